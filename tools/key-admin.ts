import { allPlans, isPlanName, type PlanName } from '../lambda/api/plans';
import { type ApiKeyRecord, issueApiKey } from '../lambda/domain/api-key';
import type { ApiKeyRepository } from '../lambda/store/api-key-repository';
import type { KeyGateway } from './api-gateway-keys';
import { reason, UsageError } from './failures';

/**
 * The key operations of the keys tool. The keys table is the truth the authorizer
 * reads; on a deployed stage the gateway keeps a key per record in the usage plan
 * of its plan. Steps run so that a failure half-way leaves no working key without
 * its record and no record claiming a plan its gateway key is not in: what has
 * been done is undone, and what could not be undone is named in the error.
 */

export interface KeyAdminOptions {
  readonly keys: ApiKeyRepository;
  /** The gateway of a deployed stage; none in local mode. */
  readonly gateway?: KeyGateway;
  readonly clock?: () => Date;
}

/** A new key: `apiKey` is shown to its owner once and never stored. */
export interface IssuedKey {
  readonly apiKey: string;
  readonly record: ApiKeyRecord;
}

export interface RotatedKey extends IssuedKey {
  /** Id of the key it replaces, now revoked. */
  readonly replaces: string;
  /** Set when the old key's gateway key is left behind: what happened and how to finish. */
  readonly incomplete?: string;
}

export interface RevokedKey {
  readonly keyId: string;
  /** Set when the gateway key is left behind: what happened and how to finish. */
  readonly incomplete?: string;
}

export interface PlanChange {
  readonly keyId: string;
  readonly from: PlanName;
  readonly to: PlanName;
}

/** The configured plans, enterprise agreements included. */
export function configuredPlans(): PlanName[] {
  return [...allPlans().keys()];
}

/** Checks a plan given on the command line against the configured plans. */
export function parsePlan(value: string): PlanName {
  if (!isPlanName(value)) {
    throw new UsageError(
      `Unknown plan ${JSON.stringify(value)}: use one of ${configuredPlans().join(', ')}.`,
    );
  }
  return value;
}

export class KeyAdmin {
  private readonly keys: ApiKeyRepository;
  private readonly gateway: KeyGateway | undefined;
  private readonly clock: () => Date;

  constructor(options: KeyAdminOptions) {
    this.keys = options.keys;
    this.gateway = options.gateway;
    this.clock = options.clock ?? (() => new Date());
  }

  /** Every key, oldest first (records only: they hold no secret). */
  list(): Promise<ApiKeyRecord[]> {
    return this.keys.list();
  }

  /** Issues a key on a plan. */
  async create(plan: PlanName, name: string): Promise<IssuedKey> {
    const issued = issueApiKey(plan, name, this.clock());
    await this.add(issued.record);
    return issued;
  }

  /** Revokes a key (again, to finish a revocation whose gateway step failed). */
  async revoke(keyId: string): Promise<RevokedKey> {
    if (!(await this.keys.revoke(keyId, this.clock()))) throw new UsageError(`No key has id ${keyId}.`);
    return { keyId, incomplete: await this.deleteGatewayKey(keyId) };
  }

  /**
   * Replaces a key by a new one with the same plan and name: new id, secret and
   * usage identifier, so its rate-limit counters start afresh. The new key exists
   * before the old one is revoked, so the owner is never without a working key.
   */
  async rotate(keyId: string): Promise<RotatedKey> {
    const old = await this.activeKey(keyId, 'it cannot be rotated; issue a new key with create');
    if (!isPlanName(old.plan)) {
      throw new UsageError(
        `Key ${keyId} is on plan ${old.plan}, which is no longer configured: move it with set-plan first.`,
      );
    }
    const issued = issueApiKey(old.plan, old.name, this.clock());
    await this.add(issued.record);
    try {
      if (!(await this.keys.revoke(keyId, this.clock()))) throw new Error('its record is gone');
    } catch (error) {
      const withdrawn = await this.withdraw(issued.record.keyId);
      throw new Error(
        `Could not revoke key ${keyId}: ${reason(error)}. ${withdrawn} Key ${keyId} still works.`,
      );
    }
    return { ...issued, replaces: keyId, incomplete: await this.deleteGatewayKey(keyId) };
  }

  /** Moves an active key to another plan. */
  async setPlan(keyId: string, plan: PlanName): Promise<PlanChange> {
    const record = await this.activeKey(
      keyId,
      `its plan cannot change; issue a new key with create --plan ${plan}`,
    );
    const change = { keyId, from: record.plan, to: plan };
    if (record.plan === plan) return change;
    const { gateway } = this;
    if (gateway) {
      try {
        await gateway.moveKey(keyId, record.plan, plan);
      } catch (error) {
        throw new Error(
          `Could not move key ${keyId} to plan ${plan} in ${gateway.description}: ${reason(error)}. ` +
            `Its plan is still ${record.plan}.`,
        );
      }
    }
    let failure: unknown;
    try {
      if (await this.keys.setPlan(keyId, plan)) return change;
      failure = new Error('its record is gone');
    } catch (error) {
      failure = error;
    }
    let undone = `Its plan is still ${record.plan}.`;
    if (gateway) {
      try {
        await gateway.moveKey(keyId, plan, record.plan);
        undone = `Its gateway key was moved back; its plan is still ${record.plan}.`;
      } catch (error) {
        undone =
          `Its gateway key is in the usage plan of ${plan} but its record says ${record.plan}, and moving it back ` +
          `failed (${reason(error)}): run set-plan ${keyId} ${plan} again.`;
      }
    }
    throw new Error(`Could not record plan ${plan} for key ${keyId}: ${reason(failure)}. ${undone}`);
  }

  private async activeKey(keyId: string, consequence: string): Promise<ApiKeyRecord> {
    const record = await this.keys.get(keyId);
    if (!record) throw new UsageError(`No key has id ${keyId}.`);
    if (record.revokedAt)
      throw new UsageError(`Key ${keyId} was revoked at ${record.revokedAt}: ${consequence}.`);
    return record;
  }

  /** Stores a new key: the gateway key first, so that no record ever names a key the gateway lacks. */
  private async add(record: ApiKeyRecord): Promise<void> {
    const { gateway } = this;
    if (gateway) {
      try {
        await gateway.createKey(record);
      } catch (error) {
        throw new Error(
          `Could not create the gateway key of a new key in ${gateway.description}: ${reason(error)}. No key was issued.`,
        );
      }
    }
    try {
      await this.keys.put(record);
    } catch (error) {
      let undone = 'No key was issued.';
      if (gateway) {
        try {
          await gateway.deleteKey(record.keyId);
          undone = 'Its gateway key was deleted again; no key was issued.';
        } catch (undoError) {
          undone =
            `No key was issued, but its gateway key ${record.keyId} is left in ${gateway.description} ` +
            `(${reason(undoError)}): delete it there.`;
        }
      }
      throw new Error(`Could not store the new key ${record.keyId}: ${reason(error)}. ${undone}`);
    }
  }

  /** Takes back a key issued by a failed rotation; says how that went. */
  private async withdraw(keyId: string): Promise<string> {
    try {
      await this.keys.revoke(keyId, this.clock());
    } catch (error) {
      return `The new key ${keyId} could not be withdrawn (${reason(error)}): run revoke ${keyId}.`;
    }
    const incomplete = await this.deleteGatewayKey(keyId);
    return incomplete
      ? `The new key ${keyId} was revoked. ${incomplete}`
      : `The new key ${keyId} was withdrawn.`;
  }

  private async deleteGatewayKey(keyId: string): Promise<string | undefined> {
    const { gateway } = this;
    if (!gateway) return undefined;
    try {
      await gateway.deleteKey(keyId);
      return undefined;
    } catch (error) {
      return (
        `Key ${keyId} is revoked, but its gateway key could not be deleted from ${gateway.description} ` +
        `(${reason(error)}): run revoke ${keyId} again with the same --stage.`
      );
    }
  }
}
