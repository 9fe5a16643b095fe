import { type ApiKeyRecord, type ApiKeyStore, issueApiKey } from './api-key';
import type { ProjectStore } from './project';

/**
 * The rules of a project's API keys, shared by the keys tool (an operator, any project) and the
 * console (a project's owner, its own keys only): a key is issued to an existing project, a
 * rotation issues the new key before it revokes the old one (the owner is never without a
 * working key) and takes the new one back if the old one cannot be revoked, a revocation keeps
 * its first time. A key of another project is, to the console, no key at all.
 */

/** What the key rules need of key storage (the store implements it). */
export interface ProjectKeyStore extends ApiKeyStore {
  put(record: ApiKeyRecord): Promise<void>;
  list(): Promise<ApiKeyRecord[]>;
  listByProject(project: string): Promise<ApiKeyRecord[]>;
  /** Marks a key revoked, keeping an earlier time; false when no such key exists. */
  revoke(keyId: string, revokedAt: Date): Promise<boolean>;
  /** False when no such key exists. */
  move(keyId: string, project: string): Promise<boolean>;
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

export type KeyRefusalKind =
  /** No project has the name. */
  | 'no_such_project'
  /** No key has the id (or, scoped to a project, none of its keys). */
  | 'key_not_found'
  /** The key is revoked: it cannot be rotated or moved. */
  | 'key_revoked'
  /** A key from before projects, until the upgrade gives it one. */
  | 'key_without_project';

/** A refusal of the key rules; each interface words it its own way. */
export class KeyRefusal extends Error {
  constructor(
    readonly kind: KeyRefusalKind,
    readonly subject: string,
    /** When the key was revoked (`key_revoked`). */
    readonly revokedAt?: string,
  ) {
    super(`${kind}: ${subject}`);
    this.name = 'KeyRefusal';
  }
}

/** A rotation whose old key could not be revoked: the old key still works. */
export class KeyRotationFailed extends Error {
  constructor(
    readonly keyId: string,
    readonly newKeyId: string,
    /** Whether the new key was taken back; if not, the caller should revoke it. */
    readonly withdrawn: boolean,
    readonly revokeFailure: unknown,
    readonly withdrawFailure?: unknown,
  ) {
    super(`Could not revoke key ${keyId}`, { cause: revokeFailure });
    this.name = 'KeyRotationFailed';
  }
}

export interface ProjectKeysOptions {
  readonly keys: ProjectKeyStore;
  readonly projects: ProjectStore;
  readonly clock: () => Date;
}

/** Limits a key operation to one project's keys (the console); none for an operator's tool. */
export interface KeyScope {
  readonly project?: string;
}

export class ProjectKeys {
  constructor(private readonly options: ProjectKeysOptions) {}

  /** Every key, or a project's, oldest first (records only: they hold no secret). */
  async list(project?: string): Promise<ApiKeyRecord[]> {
    if (project === undefined) return this.options.keys.list();
    await this.existingProject(project);
    return this.options.keys.listByProject(project);
  }

  /** Issues a key of a project. */
  async create(project: string, name: string): Promise<IssuedKey> {
    await this.existingProject(project);
    const issued = issueApiKey(project, name, this.options.clock());
    await this.options.keys.put(issued.record);
    return issued;
  }

  /** Revokes a key (again is fine: the first revocation time is kept); returns it as revoked. */
  async revoke(keyId: string, scope: KeyScope = {}): Promise<ApiKeyRecord> {
    await this.keyIn(keyId, scope);
    if (!(await this.options.keys.revoke(keyId, this.options.clock()))) {
      throw new KeyRefusal('key_not_found', keyId);
    }
    const revoked = await this.options.keys.get(keyId);
    if (!revoked) throw new KeyRefusal('key_not_found', keyId);
    return revoked;
  }

  /** Replaces an active key by a new one of the same project and name. */
  async rotate(keyId: string, scope: KeyScope = {}): Promise<RotatedKey> {
    const old = await this.activeKey(keyId, scope);
    if (!old.project) throw new KeyRefusal('key_without_project', keyId);
    const { keys, clock } = this.options;
    const issued = issueApiKey(old.project, old.name, clock());
    await keys.put(issued.record);
    let revokeFailure: unknown;
    try {
      if (await keys.revoke(keyId, clock())) return { ...issued, replaces: keyId };
      revokeFailure = new Error('its record is gone');
    } catch (error) {
      revokeFailure = error;
    }
    try {
      await keys.revoke(issued.record.keyId, clock());
    } catch (withdrawFailure) {
      throw new KeyRotationFailed(keyId, issued.record.keyId, false, revokeFailure, withdrawFailure);
    }
    throw new KeyRotationFailed(keyId, issued.record.keyId, true, revokeFailure);
  }

  /** Moves an active key to another project (its plan, pets and address from then on). */
  async move(keyId: string, project: string): Promise<MovedKey> {
    const record = await this.activeKey(keyId);
    await this.existingProject(project);
    const moved = { keyId, from: record.project, to: project };
    if (record.project === project) return moved;
    if (!(await this.options.keys.move(keyId, project))) throw new KeyRefusal('key_not_found', keyId);
    return moved;
  }

  private async existingProject(project: string): Promise<void> {
    if (!(await this.options.projects.get(project))) throw new KeyRefusal('no_such_project', project);
  }

  /** The key, if it exists and is in the scope's project. */
  private async keyIn(keyId: string, scope: KeyScope): Promise<ApiKeyRecord> {
    const record = await this.options.keys.get(keyId);
    if (!record || (scope.project !== undefined && record.project !== scope.project)) {
      throw new KeyRefusal('key_not_found', keyId);
    }
    return record;
  }

  private async activeKey(keyId: string, scope: KeyScope = {}): Promise<ApiKeyRecord> {
    const record = await this.keyIn(keyId, scope);
    if (record.revokedAt) throw new KeyRefusal('key_revoked', keyId, record.revokedAt);
    return record;
  }
}
