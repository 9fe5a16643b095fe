import {
  type APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
  GetUsagePlansCommand,
  LimitExceededException,
  NotFoundException,
} from '@aws-sdk/client-api-gateway';
import type { PlanName } from '../lambda/core/plans';
import { GatewayKeysExhausted, type ProjectGateway } from '../lambda/core/project-creation';
import { reason } from './failures';
import { projectKeyName, usagePlanName } from '../lib/config/usage-plan-names';

/** API Gateway's quota of API keys per account and region (not raisable). */
export const GATEWAY_KEY_QUOTA = 10_000;

/** Most items API Gateway returns per page. */
const PAGE_LIMIT = 500;

/** Why no project can be created while the account holds its most gateway keys. */
export function gatewayKeyQuotaMessage(stackName: string): string {
  return (
    `API Gateway holds its most API keys: ${GATEWAY_KEY_QUOTA.toLocaleString('en-US')} per account and region, ` +
    `shared by every environment of the account (${stackName} among them), and AWS does not raise it. ` +
    'Delete projects that are no longer used (npm run projects -- delete), or serve more projects from another account or region.'
  );
}

/**
 * {@link ProjectGateway} over the API Gateway of one stack. Each project has one API key,
 * named by {@link projectKeyName} and valued by the project's usage identifier, in the
 * usage plan of its plan (found by {@link usagePlanName}); the authorizer hands that value
 * to the gateway, which meters the project with it. During a plan change a project has two
 * keys, told apart by their values.
 */
export class ApiGatewayProjectKeys implements ProjectGateway {
  readonly description: string;
  private planIds: Promise<Map<string, string>> | undefined;

  constructor(
    private readonly client: APIGatewayClient,
    private readonly stackName: string,
  ) {
    this.description = `API Gateway of ${stackName}`;
  }

  async createKey(project: string, usageId: string, plan: PlanName): Promise<void> {
    // The usage plan is checked first, so a missing one leaves no key behind.
    const usagePlanId = await this.usagePlanId(plan);
    let id: string | undefined;
    try {
      ({ id } = await this.client.send(
        new CreateApiKeyCommand({
          name: projectKeyName(this.stackName, project),
          description: `Usage identifier of project ${project} (npm run projects); not a secret`,
          value: usageId,
          enabled: true,
        }),
      ));
    } catch (error) {
      if (error instanceof LimitExceededException)
        throw new GatewayKeysExhausted(gatewayKeyQuotaMessage(this.stackName));
      throw error;
    }
    if (!id) throw new Error(`API Gateway returned no id for the new key of project ${project}`);
    try {
      await this.client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: id, keyType: 'API_KEY' }));
    } catch (error) {
      const label = usagePlanName(this.stackName, plan);
      try {
        await this.client.send(new DeleteApiKeyCommand({ apiKey: id }));
      } catch (undoError) {
        throw new Error(
          `could not add it to usage plan ${label} (${reason(error)}), ` +
            `nor delete the API Gateway key ${id} again (${reason(undoError)}): delete it in the console`,
        );
      }
      throw new Error(`could not add it to usage plan ${label} (${reason(error)})`);
    }
  }

  async deleteKey(project: string, usageId: string): Promise<void> {
    for (const apiKey of await this.apiKeyIds(project, usageId)) {
      try {
        await this.client.send(new DeleteApiKeyCommand({ apiKey }));
      } catch (error) {
        // Gone already: what was asked for (a re-run after a partial failure).
        if (!(error instanceof NotFoundException)) throw error;
      }
    }
  }

  private async usagePlanId(plan: PlanName): Promise<string> {
    const name = usagePlanName(this.stackName, plan);
    const id = (await this.usagePlans()).get(name);
    if (!id) {
      throw new Error(
        `${this.stackName} has no usage plan named ${name}: deploy the current version of the stack first`,
      );
    }
    return id;
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

  /**
   * Ids of the project's gateway keys valued `usageId`. The name query matches prefixes
   * (`acme` finds `acme-corp`), so names are compared whole; values are usage
   * identifiers, never secrets.
   */
  private async apiKeyIds(project: string, usageId: string): Promise<string[]> {
    const name = projectKeyName(this.stackName, project);
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
}
