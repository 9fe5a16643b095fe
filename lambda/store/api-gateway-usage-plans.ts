import { type APIGatewayClient, GetUsagePlansCommand } from '@aws-sdk/client-api-gateway';
import type { PlanName } from '../core/plans';
import { usagePlanName } from './api-gateway-names';
import type { GatewayDirectory } from './api-gateway-keys';

/** Most items API Gateway returns per page. */
export const GATEWAY_PAGE_LIMIT = 500;

/**
 * A stack's usage plans found by name ({@link usagePlanName}), read once per instance. The console
 * function's {@link GatewayDirectory}: it adds keys to the usage plans of `plans` only (the Free
 * plan's), and lists no keys, so it deletes only those it made. (Its usage plan's id cannot be in
 * its environment: the usage plan depends on the stage, which depends on the function.)
 */
export class StackUsagePlans implements GatewayDirectory {
  private planIds: Promise<Map<string, string>> | undefined;

  constructor(
    protected readonly client: APIGatewayClient,
    protected readonly stackName: string,
    /** The plans whose usage plans keys may be added to. @default every plan */
    private readonly plans?: readonly PlanName[],
  ) {}

  async usagePlanId(plan: PlanName): Promise<string> {
    if (this.plans && !this.plans.includes(plan)) {
      throw new Error(
        `this function adds keys to the usage plans of ${this.plans.join(', ')} only, not ${plan}`,
      );
    }
    const name = usagePlanName(this.stackName, plan);
    const id = (await this.usagePlans()).get(name);
    if (!id) {
      throw new Error(
        `${this.stackName} has no usage plan named ${name}: deploy the current version of the stack first`,
      );
    }
    return id;
  }

  async apiKeyIds(name: string): Promise<string[]> {
    throw new Error(`this function deletes only the keys it made, and did not make ${name}`);
  }

  /** Usage plan ids by name, read once. */
  private usagePlans(): Promise<Map<string, string>> {
    this.planIds ??= (async () => {
      const plans = new Map<string, string>();
      let position: string | undefined;
      do {
        const page = await this.client.send(
          new GetUsagePlansCommand({ position, limit: GATEWAY_PAGE_LIMIT }),
        );
        for (const { id, name } of page.items ?? []) if (id && name) plans.set(name, id);
        position = page.position;
      } while (position);
      return plans;
    })();
    // A failed read is not kept: the next create reads again.
    this.planIds.catch(() => (this.planIds = undefined));
    return this.planIds;
  }
}
