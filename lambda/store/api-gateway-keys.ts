import {
  type APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  LimitExceededException,
  NotFoundException,
} from '@aws-sdk/client-api-gateway';
import type { PlanName } from '../core/plans';
import { GatewayKeysExhausted, type ProjectGateway } from '../core/project-creation';
import { projectKeyName, usagePlanName } from './api-gateway-names';

/** API Gateway's quota of API keys per account and region (not raisable). */
export const GATEWAY_KEY_QUOTA = 10_000;

/** Why no project can be created while the account holds its most gateway keys. */
export function gatewayKeyQuotaMessage(stackName: string): string {
  return (
    `API Gateway holds its most API keys: ${GATEWAY_KEY_QUOTA.toLocaleString('en-US')} per account and region, ` +
    `shared by every environment of the account (${stackName} among them), and AWS does not raise it. ` +
    'Delete projects that are no longer used (npm run projects -- delete), or serve more projects from another account or region.'
  );
}

/**
 * Where a stack's usage plans and project keys are found: the projects tool lists both
 * (lambda/store/api-gateway-directory.ts, `ListedGatewayDirectory`); the console function finds
 * its one usage plan and lists no keys (lambda/store/api-gateway-usage-plans.ts, `StackUsagePlans`),
 * so its role needs no right to read the account's keys.
 */
export interface GatewayDirectory {
  /** The id of the usage plan of `plan` in the stack; an Error naming the fix when there is none. */
  usagePlanId(plan: PlanName): Promise<string>;
  /** Ids of the API keys named `name` and valued `usageId` (names are compared whole). */
  apiKeyIds(name: string, usageId: string): Promise<string[]>;
}

/** One line saying why something failed, with its cause. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${reasonOf(error.cause)})` : '';
  return `${error.message || error.name}${cause}`.replace(/\s*\n\s*/g, ' ');
}

/**
 * {@link ProjectGateway} over the API Gateway of one stack. Each project has one API key,
 * named by {@link projectKeyName} and valued by the project's usage identifier, in the
 * usage plan of its plan; the authorizer hands that value to the gateway, which meters the
 * project with it. During a plan change a project has two keys, told apart by their values.
 * A key this instance made is deleted by its id, without a lookup (the undo of a failed create).
 */
export class ApiGatewayProjectKeys implements ProjectGateway {
  readonly description: string;
  /** Usage identifier → id of the key this instance made with it. */
  private readonly made = new Map<string, string>();

  constructor(
    private readonly client: APIGatewayClient,
    private readonly stackName: string,
    private readonly directory: GatewayDirectory,
  ) {
    this.description = `API Gateway of ${stackName}`;
  }

  async createKey(project: string, usageId: string, plan: PlanName): Promise<void> {
    // The usage plan is checked first, so a missing one leaves no key behind.
    const usagePlanId = await this.directory.usagePlanId(plan);
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
          `could not add it to usage plan ${label} (${reasonOf(error)}), ` +
            `nor delete the API Gateway key ${id} again (${reasonOf(undoError)}): delete it in the console`,
        );
      }
      throw new Error(`could not add it to usage plan ${label} (${reasonOf(error)})`);
    }
    this.made.set(usageId, id);
  }

  async deleteKey(project: string, usageId: string): Promise<void> {
    const made = this.made.get(usageId);
    const ids = made
      ? [made]
      : await this.directory.apiKeyIds(projectKeyName(this.stackName, project), usageId);
    for (const apiKey of ids) {
      try {
        await this.client.send(new DeleteApiKeyCommand({ apiKey }));
      } catch (error) {
        // Gone already: what was asked for (a re-run after a partial failure).
        if (!(error instanceof NotFoundException)) throw error;
      }
    }
    this.made.delete(usageId);
  }
}
