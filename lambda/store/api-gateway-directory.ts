import { type APIGatewayClient, GetApiKeysCommand, GetUsagePlansCommand } from '@aws-sdk/client-api-gateway';
import type { PlanName } from '../core/plans';
import { usagePlanName } from './api-gateway-names';
import type { GatewayDirectory } from './api-gateway-keys';

/** Most items API Gateway returns per page. */
const PAGE_LIMIT = 500;

/**
 * The projects tool's {@link GatewayDirectory}: a stack's usage plans found by name
 * ({@link usagePlanName}), read once, and its project keys listed by name and value. Apart from
 * lambda/store/api-gateway-keys.ts so that no function's bundle ships these reads.
 */
export class ListedGatewayDirectory implements GatewayDirectory {
  private planIds: Promise<Map<string, string>> | undefined;

  constructor(
    private readonly client: APIGatewayClient,
    private readonly stackName: string,
  ) {}

  async usagePlanId(plan: PlanName): Promise<string> {
    const name = usagePlanName(this.stackName, plan);
    const id = (await this.usagePlans()).get(name);
    if (!id) {
      throw new Error(
        `${this.stackName} has no usage plan named ${name}: deploy the current version of the stack first`,
      );
    }
    return id;
  }

  /**
   * The name query matches prefixes (`acme` finds `acme-corp`), so names are compared whole;
   * values are usage identifiers, never secrets.
   */
  async apiKeyIds(name: string, usageId: string): Promise<string[]> {
    const ids: string[] = [];
    let position: string | undefined;
    do {
      const page = await this.client.send(
        new GetApiKeysCommand({ nameQuery: name, includeValues: true, position, limit: PAGE_LIMIT }),
      );
      for (const item of page.items ?? []) {
        if (item.id && item.name === name && item.value === usageId) ids.push(item.id);
      }
      position = page.position;
    } while (position);
    return ids;
  }

  /** Usage plan ids by name, read once. */
  private usagePlans(): Promise<Map<string, string>> {
    this.planIds ??= (async () => {
      const plans = new Map<string, string>();
      let position: string | undefined;
      do {
        const page = await this.client.send(new GetUsagePlansCommand({ position, limit: PAGE_LIMIT }));
        for (const { id, name } of page.items ?? []) if (id && name) plans.set(name, id);
        position = page.position;
      } while (position);
      return plans;
    })();
    return this.planIds;
  }
}
