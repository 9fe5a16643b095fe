import { type ApiKeyRecord, type ApiKeyStore, issueApiKey } from './api-key';
import { MAX_ACTIVE_KEYS_PER_PROJECT } from './limits';
import type { ProjectRecord, ProjectStore } from './project';

/**
 * The rules of a project's API keys, shared by the keys tool (an operator, any project) and the
 * console (a project's owner, its own keys only): a key is issued to an existing project with
 * fewer than {@link MAX_ACTIVE_KEYS_PER_PROJECT} active keys; a rotation issues the new key
 * before it revokes the old one (the owner is never without a working key), and only the
 * rotation whose conditional write revokes the old key keeps its new one, so a key has one
 * replacement however many rotate it at once; a revocation keeps its first time. A key of
 * another project is, to the console, no key at all.
 *
 * The cap holds under concurrency because the project's count of active keys
 * ({@link ProjectRecord.activeKeys}) moves only by conditional writes: a create takes a place
 * (refused at the cap) before it stores its key, and gives it back if the key cannot be stored;
 * the revocation that revokes a key, and only that one, gives its place back; a rotation keeps
 * the place of the key it replaces. A project without a count (keys made before the cap) is
 * counted once, from its keys, by its first key change.
 */

export { MAX_ACTIVE_KEYS_PER_PROJECT };

/** What revoking an active key did. */
export type Revocation =
  /** This call revoked it. */
  | { readonly revoked: true; readonly record: ApiKeyRecord }
  /** It was revoked already (`record`), or there is no such key (none). */
  | { readonly revoked: false; readonly record?: ApiKeyRecord };

/** What the key rules need of key storage (the store implements it). */
export interface ProjectKeyStore extends ApiKeyStore {
  put(record: ApiKeyRecord): Promise<void>;
  list(): Promise<ApiKeyRecord[]>;
  listByProject(project: string): Promise<ApiKeyRecord[]>;
  /**
   * Revokes the key if it is active, in one conditional write, noting the key that replaces
   * it if any: of calls at the same time, one is told it revoked the key.
   */
  revoke(keyId: string, revokedAt: Date, replacedBy?: string): Promise<Revocation>;
  /** Deletes a key that was never handed to anyone (a rotation's that lost its race). */
  discard(keyId: string): Promise<void>;
  /** Moves a key that is active and in project `from` (none: a key from before projects); false otherwise. */
  move(keyId: string, from: string | undefined, to: string): Promise<boolean>;
}

/** What the key rules need of project storage: the project and its count of active keys. */
export interface ProjectKeyCountStore extends ProjectStore {
  /** Starts the project's count at `count`; false when it has one already, or no such project. */
  startKeyCount(project: string, count: number): Promise<boolean>;
  /** Adds one to a started count below `cap`; false otherwise (at the cap, no count, no project). */
  addKey(project: string, cap: number): Promise<boolean>;
  /** Takes one from a started count above zero (nothing otherwise). */
  removeKey(project: string): Promise<void>;
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
  /** The key is revoked (perhaps by a rotation at the same time): it cannot be rotated or moved. */
  | 'key_revoked'
  /** A key from before projects, until the upgrade gives it one. */
  | 'key_without_project'
  /** The project has {@link MAX_ACTIVE_KEYS_PER_PROJECT} active keys (the subject is the project). */
  | 'too_many_keys';

/** A refusal of the key rules; each interface words it its own way. */
export class KeyRefusal extends Error {
  constructor(
    readonly kind: KeyRefusalKind,
    readonly subject: string,
    /** When the key was revoked (`key_revoked`). */
    readonly revokedAt?: string,
    /** The key that replaced it, when a rotation revoked it (`key_revoked`). */
    readonly replacedBy?: string,
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
  readonly projects: ProjectKeyCountStore;
  readonly clock: () => Date;
}

/** Limits a key operation to one project's keys (the console); none for an operator's tool. */
export interface KeyScope {
  readonly project?: string;
}

export class ProjectKeys {
  constructor(private readonly options: ProjectKeysOptions) {}

  /** Every key, oldest first (an operator's listing: a scan of the whole table). */
  list(): Promise<ApiKeyRecord[]> {
    return this.options.keys.list();
  }

  /**
   * A project's keys, oldest first (records only: they hold no secret). Apart from {@link list}
   * so that the console's code cannot reach the scan, which its role may not make.
   */
  async listOf(project: string): Promise<ApiKeyRecord[]> {
    await this.existingProject(project);
    return this.options.keys.listByProject(project);
  }

  /** Issues a key of a project, if it has a place for one. */
  async create(project: string, name: string): Promise<IssuedKey> {
    const { keys, projects, clock } = this.options;
    await this.counted(await this.existingProject(project));
    await this.takePlace(project);
    const issued = issueApiKey(project, name, clock());
    try {
      await keys.put(issued.record);
    } catch (error) {
      await projects.removeKey(project);
      throw error;
    }
    return issued;
  }

  /** Revokes a key (again is fine: the first revocation time is kept); returns it as revoked. */
  async revoke(keyId: string, scope: KeyScope = {}): Promise<ApiKeyRecord> {
    const record = await this.keyIn(keyId, scope);
    if (record.revokedAt) return record;
    await this.countedIfAny(record.project);
    const revocation = await this.options.keys.revoke(keyId, this.options.clock());
    if (!revocation.record) throw new KeyRefusal('key_not_found', keyId);
    if (revocation.revoked && revocation.record.project) {
      await this.options.projects.removeKey(revocation.record.project);
    }
    return revocation.record;
  }

  /**
   * Replaces an active key by a new one of the same project and name. Of rotations of one key
   * at the same time, the one whose conditional revocation of the old key succeeds keeps its
   * new key; the others delete theirs (never shown to anyone) and are refused `key_revoked`.
   */
  async rotate(keyId: string, scope: KeyScope = {}): Promise<RotatedKey> {
    const old = await this.activeKey(keyId, scope);
    if (!old.project) throw new KeyRefusal('key_without_project', keyId);
    await this.countedIfAny(old.project);
    const { keys, clock } = this.options;
    const issued = issueApiKey(old.project, old.name, clock());
    const newKeyId = issued.record.keyId;
    await keys.put(issued.record);
    let revocation: Revocation;
    try {
      revocation = await keys.revoke(keyId, clock(), newKeyId);
    } catch (revokeFailure) {
      try {
        await keys.discard(newKeyId);
      } catch (withdrawFailure) {
        throw new KeyRotationFailed(keyId, newKeyId, false, revokeFailure, withdrawFailure);
      }
      throw new KeyRotationFailed(keyId, newKeyId, true, revokeFailure);
    }
    if (revocation.revoked) return { ...issued, replaces: keyId };
    // Lost the race: the new key was never shown to anyone, so it goes (should the store fail
    // here, the key stays, usable by no one: its secret left with this call).
    await keys.discard(newKeyId);
    if (!revocation.record) throw new KeyRefusal('key_not_found', keyId);
    const { revokedAt, replacedBy } = revocation.record;
    throw new KeyRefusal('key_revoked', keyId, revokedAt, replacedBy);
  }

  /** Moves an active key to another project (its plan, pets and address from then on). */
  async move(keyId: string, project: string): Promise<MovedKey> {
    const { keys, projects } = this.options;
    const record = await this.activeKey(keyId);
    const target = await this.existingProject(project);
    const moved = { keyId, from: record.project, to: project };
    if (record.project === project) return moved;
    await this.counted(target);
    await this.countedIfAny(record.project);
    await this.takePlace(project);
    let done: boolean;
    try {
      done = await keys.move(keyId, record.project, project);
    } catch (error) {
      await projects.removeKey(project);
      throw error;
    }
    if (!done) {
      await projects.removeKey(project);
      // Revoked or moved meanwhile: say which, as a fresh look finds it.
      const now = await keys.get(keyId);
      if (now?.revokedAt) throw new KeyRefusal('key_revoked', keyId, now.revokedAt, now.replacedBy);
      throw new KeyRefusal('key_not_found', keyId);
    }
    if (record.project) await projects.removeKey(record.project);
    return moved;
  }

  private async existingProject(project: string): Promise<ProjectRecord> {
    const record = await this.options.projects.get(project);
    if (!record) throw new KeyRefusal('no_such_project', project);
    return record;
  }

  /**
   * Makes sure the project's active keys are counted: a project from before the cap is counted
   * once, from its keys. Every key change awaits this before it writes, so the one count that
   * is stored was read before any counted change was made.
   */
  private async counted(project: ProjectRecord): Promise<void> {
    if (project.activeKeys !== undefined) return;
    const active = (await this.options.keys.listByProject(project.name)).filter((key) => !key.revokedAt);
    await this.options.projects.startKeyCount(project.name, active.length);
  }

  /** {@link counted} for a key's project, when the project still exists. */
  private async countedIfAny(project: string | undefined): Promise<void> {
    const record = project === undefined ? undefined : await this.options.projects.get(project);
    if (record) await this.counted(record);
  }

  /** Takes one of the project's places for an active key, or refuses at the cap. */
  private async takePlace(project: string): Promise<void> {
    if (await this.options.projects.addKey(project, MAX_ACTIVE_KEYS_PER_PROJECT)) return;
    if (!(await this.options.projects.get(project))) throw new KeyRefusal('no_such_project', project);
    throw new KeyRefusal('too_many_keys', project);
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
    if (record.revokedAt) throw new KeyRefusal('key_revoked', keyId, record.revokedAt, record.replacedBy);
    return record;
  }
}
