import {
  type APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlansCommand,
  NotFoundException,
} from '@aws-sdk/client-api-gateway';
import { type PlanName, usagePlanName } from '../lambda/api/plans';
import type { ApiKeyRecord } from '../lambda/domain/api-key';
import { reason } from './failures';

/**
 * What the keys tool needs of the gateway of a deployed stage: every key the
 * service issues has an API Gateway key (named by its key id, valued by its usage
 * identifier) in the usage plan of its plan, so the gateway meters it.
 */
export interface KeyGateway {
  /** Where the gateway keys live, for messages, e.g. `API Gateway of AnimalStore-staging`. */
  readonly description: string;
  /** Creates the gateway key of a record in its plan's usage plan; leaves nothing behind when it fails. */
  createKey(record: ApiKeyRecord): Promise<void>;
  /** Deletes the gateway key of a key id (none is fine); resolves to how many were deleted. */
  deleteKey(keyId: string): Promise<number>;
  /** Moves a key to another plan's usage plan; leaves it where it was when it fails. */
  moveKey(keyId: string, from: PlanName, to: PlanName): Promise<void>;
}

/** Most items API Gateway returns per page. */
const PAGE_LIMIT = 500;

/** {@link KeyGateway} over the API Gateway of one stack, whose usage plans are named by {@link usagePlanName}. */
export class ApiGatewayKeys implements KeyGateway {
  readonly description: string;
  private planIds: Promise<Map<string, string>> | undefined;

  constructor(
    private readonly client: APIGatewayClient,
    private readonly stackName: string,
  ) {
    this.description = `API Gateway of ${stackName}`;
  }

  async createKey(record: ApiKeyRecord): Promise<void> {
    const usagePlanId = await this.usagePlanId(record.plan);
    const { id } = await this.client.send(
      new CreateApiKeyCommand({ name: record.keyId, value: record.usageId, enabled: true }),
    );
    if (!id) throw new Error(`API Gateway returned no id for the new key ${record.keyId}`);
    try {
      await this.client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: id, keyType: 'API_KEY' }));
    } catch (error) {
      try {
        await this.client.send(new DeleteApiKeyCommand({ apiKey: id }));
      } catch (undoError) {
        throw new Error(
          `could not add it to usage plan ${this.planLabel(record.plan)} (${reason(error)}), ` +
            `nor delete the API Gateway key ${id} again (${reason(undoError)}): delete it in the console`,
        );
      }
      throw new Error(`could not add it to usage plan ${this.planLabel(record.plan)} (${reason(error)})`);
    }
  }

  async deleteKey(keyId: string): Promise<number> {
    const ids = await this.apiKeyIds(keyId);
    for (const apiKey of ids) {
      try {
        await this.client.send(new DeleteApiKeyCommand({ apiKey }));
      } catch (error) {
        if (!(error instanceof NotFoundException)) throw error;
      }
    }
    return ids.length;
  }

  async moveKey(keyId: string, from: PlanName, to: PlanName): Promise<void> {
    const [apiKeyId, ...others] = await this.apiKeyIds(keyId);
    if (!apiKeyId || others.length > 0) {
      throw new Error(
        `expected one API Gateway key named ${keyId} in ${this.stackName}, found ${others.length + (apiKeyId ? 1 : 0)}`,
      );
    }
    const toPlanId = await this.usagePlanId(to);
    // An ended agreement's usage plan may be gone, and the key's membership with it.
    const fromPlanId = (await this.usagePlans()).get(usagePlanName(this.stackName, from));
    // A key may be in only one usage plan per API stage, so it leaves the old one first.
    if (fromPlanId) {
      try {
        await this.client.send(new DeleteUsagePlanKeyCommand({ usagePlanId: fromPlanId, keyId: apiKeyId }));
      } catch (error) {
        if (!(error instanceof NotFoundException)) throw error;
      }
    }
    try {
      await this.addToPlan(toPlanId, apiKeyId);
    } catch (error) {
      if (!fromPlanId) throw error;
      try {
        await this.addToPlan(fromPlanId, apiKeyId);
      } catch (undoError) {
        throw new Error(
          `could not add key ${keyId} to usage plan ${this.planLabel(to)} (${reason(error)}), ` +
            `nor put it back into ${this.planLabel(from)} (${reason(undoError)})`,
        );
      }
      throw error;
    }
  }

  private async addToPlan(usagePlanId: string, apiKeyId: string): Promise<void> {
    try {
      await this.client.send(
        new CreateUsagePlanKeyCommand({ usagePlanId, keyId: apiKeyId, keyType: 'API_KEY' }),
      );
    } catch (error) {
      // Already a member: what was asked for (a re-run after a partial failure).
      if (!(error instanceof ConflictException)) throw error;
    }
  }

  private planLabel(plan: PlanName): string {
    return usagePlanName(this.stackName, plan);
  }

  private async usagePlanId(plan: PlanName): Promise<string> {
    const name = this.planLabel(plan);
    const id = (await this.usagePlans()).get(name);
    if (!id) {
      throw new Error(
        `${this.stackName} has no usage plan named ${name}: deploy the stack with plan ${plan} (lambda/api/plans.ts) first`,
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

  /** Ids of the gateway keys named by a key id (the name query matches prefixes, so names are compared). */
  private async apiKeyIds(keyId: string): Promise<string[]> {
    const ids: string[] = [];
    let position: string | undefined;
    do {
      const page = await this.client.send(
        new GetApiKeysCommand({ nameQuery: keyId, includeValues: false, position, limit: PAGE_LIMIT }),
      );
      for (const { id, name } of page.items ?? []) if (id && name === keyId) ids.push(id);
      position = page.position;
    } while (position);
    return ids;
  }
}
