import { type ApiKeyRecord, issueApiKey } from '../lambda/domain/api-key';
import type { ApiKeyRepository } from '../lambda/store/api-key-repository';
import type { ProjectRepository } from '../lambda/store/project-repository';
import { reason, UsageError } from './failures';

/**
 * The key operations of the keys tool. A key belongs to a project, whose plan, pets and
 * address it acts for; the keys table is the truth the authorizer reads. Keys have no
 * gateway keys of their own: the gateway meters the project (npm run projects).
 */

export interface KeyAdminOptions {
  readonly keys: ApiKeyRepository;
  readonly projects: ProjectRepository;
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
}

export interface MovedKey {
  readonly keyId: string;
  readonly from: string;
  readonly to: string;
}

export class KeyAdmin {
  private readonly keys: ApiKeyRepository;
  private readonly projects: ProjectRepository;
  private readonly clock: () => Date;

  constructor(options: KeyAdminOptions) {
    this.keys = options.keys;
    this.projects = options.projects;
    this.clock = options.clock ?? (() => new Date());
  }

  /** Every key, or a project's, oldest first (records only: they hold no secret). */
  async list(project?: string): Promise<ApiKeyRecord[]> {
    if (project === undefined) return this.keys.list();
    await this.existingProject(project);
    return this.keys.listByProject(project);
  }

  /** Issues a key of a project. */
  async create(project: string, name: string): Promise<IssuedKey> {
    await this.existingProject(project);
    const issued = issueApiKey(project, name, this.clock());
    await this.keys.put(issued.record);
    return issued;
  }

  /** Revokes a key (again is fine: the first revocation time is kept). */
  async revoke(keyId: string): Promise<void> {
    if (!(await this.keys.revoke(keyId, this.clock()))) throw noSuchKey(keyId);
  }

  /**
   * Replaces a key by a new one of the same project and name. The new key exists before
   * the old one is revoked, so the owner is never without a working key.
   */
  async rotate(keyId: string): Promise<RotatedKey> {
    const old = await this.activeKey(keyId, 'it cannot be rotated; issue a new key with create');
    // A key from before projects has none until the upgrade gives it one.
    if (!old.project) {
      throw new UsageError(`Key ${keyId} belongs to no project yet: run npm run projects -- migrate first.`);
    }
    const issued = issueApiKey(old.project, old.name, this.clock());
    await this.keys.put(issued.record);
    try {
      if (!(await this.keys.revoke(keyId, this.clock()))) throw new Error('its record is gone');
    } catch (error) {
      const withdrawn = await this.withdraw(issued.record.keyId);
      throw new Error(
        `Could not revoke key ${keyId}: ${reason(error)}. ${withdrawn} Key ${keyId} still works.`,
      );
    }
    return { ...issued, replaces: keyId };
  }

  /** Moves an active key to another project (its plan, pets and address from then on). */
  async move(keyId: string, project: string): Promise<MovedKey> {
    const record = await this.activeKey(keyId, 'it cannot be moved');
    await this.existingProject(project);
    const moved = { keyId, from: record.project, to: project };
    if (record.project === project) return moved;
    if (!(await this.keys.move(keyId, project))) throw noSuchKey(keyId);
    return moved;
  }

  private async existingProject(project: string): Promise<void> {
    if (!(await this.projects.get(project))) {
      throw new UsageError(
        `No project is named ${project}: see npm run projects -- list, or create it with npm run projects -- create ${project}.`,
      );
    }
  }

  private async activeKey(keyId: string, consequence: string): Promise<ApiKeyRecord> {
    const record = await this.keys.get(keyId);
    if (!record) throw noSuchKey(keyId);
    if (record.revokedAt)
      throw new UsageError(`Key ${keyId} was revoked at ${record.revokedAt}: ${consequence}.`);
    return record;
  }

  /** Takes back a key issued by a failed rotation; says how that went. */
  private async withdraw(keyId: string): Promise<string> {
    try {
      await this.keys.revoke(keyId, this.clock());
      return `The new key ${keyId} was withdrawn.`;
    } catch (error) {
      return `The new key ${keyId} could not be withdrawn (${reason(error)}): run revoke ${keyId}.`;
    }
  }
}

function noSuchKey(keyId: string): UsageError {
  return new UsageError(`No key has id ${keyId}.`);
}
