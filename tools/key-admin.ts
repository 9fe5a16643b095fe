import type { ApiKeyRecord } from '../lambda/core/api-key';
import {
  type IssuedKey,
  KeyRefusal,
  KeyRotationFailed,
  MAX_ACTIVE_KEYS_PER_PROJECT,
  type MovedKey,
  ProjectKeys,
  type RotatedKey,
} from '../lambda/core/project-keys';
import type { ApiKeyRepository } from '../lambda/store/api-key-repository';
import type { ProjectRepository } from '../lambda/store/project-repository';
import { reason, UsageError } from './failures';

/**
 * The key operations of the keys tool: the key rules of lambda/core/project-keys.ts (which
 * the console shares), worded for an operator. A key belongs to a project, whose plan, pets
 * and address it acts for; the keys table is the truth the authorizer reads. Keys have no
 * gateway keys of their own: the gateway meters the project (npm run projects).
 */

export type { IssuedKey, MovedKey, RotatedKey };

export interface KeyAdminOptions {
  readonly keys: ApiKeyRepository;
  readonly projects: ProjectRepository;
  readonly clock?: () => Date;
}

/** The operator's words for each refusal of the key rules. */
function usageErrorOf(refusal: KeyRefusal, consequence: string): UsageError {
  switch (refusal.kind) {
    case 'no_such_project':
      return new UsageError(
        `No project is named ${refusal.subject}: see npm run projects -- list, or create it with npm run projects -- create ${refusal.subject}.`,
      );
    case 'key_not_found':
      return new UsageError(`No key has id ${refusal.subject}.`);
    case 'key_revoked':
      return new UsageError(
        `Key ${refusal.subject} was ${refusal.replacedBy ? `replaced by key ${refusal.replacedBy} (rotated)` : 'revoked'} at ${refusal.revokedAt}: ${consequence}.`,
      );
    case 'key_without_project':
      return new UsageError(
        `Key ${refusal.subject} belongs to no project yet: run npm run projects -- migrate first.`,
      );
    case 'too_many_keys':
      return new UsageError(
        `Project ${refusal.subject} has ${MAX_ACTIVE_KEYS_PER_PROJECT} active keys, the most a project may have: revoke one first (npm run keys -- list --project ${refusal.subject}).`,
      );
  }
}

async function worded<T>(consequence: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof KeyRefusal) throw usageErrorOf(error, consequence);
    if (error instanceof KeyRotationFailed) {
      const newKey = error.withdrawn
        ? `The new key ${error.newKeyId} was withdrawn.`
        : `The new key ${error.newKeyId} could not be withdrawn (${reason(error.withdrawFailure)}): run revoke ${error.newKeyId}.`;
      throw new Error(
        `Could not revoke key ${error.keyId}: ${reason(error.revokeFailure)}. ${newKey} Key ${error.keyId} still works.`,
      );
    }
    throw error;
  }
}

export class KeyAdmin {
  private readonly rules: ProjectKeys;

  constructor(options: KeyAdminOptions) {
    this.rules = new ProjectKeys({
      keys: options.keys,
      projects: options.projects,
      clock: options.clock ?? (() => new Date()),
    });
  }

  /** Every key, or a project's, oldest first (records only: they hold no secret). */
  list(project?: string): Promise<ApiKeyRecord[]> {
    return worded('', () => (project === undefined ? this.rules.list() : this.rules.listOf(project)));
  }

  /** Issues a key of a project. */
  create(project: string, name: string): Promise<IssuedKey> {
    return worded('', () => this.rules.create(project, name));
  }

  /** Revokes a key (again is fine: the first revocation time is kept). */
  async revoke(keyId: string): Promise<void> {
    await worded('', () => this.rules.revoke(keyId));
  }

  /**
   * Replaces a key by a new one of the same project and name. The new key exists before
   * the old one is revoked, so the owner is never without a working key.
   */
  rotate(keyId: string): Promise<RotatedKey> {
    return worded('it cannot be rotated; issue a new key with create', () => this.rules.rotate(keyId));
  }

  /** Moves an active key to another project (its plan, pets and address from then on). */
  move(keyId: string, project: string): Promise<MovedKey> {
    return worded('it cannot be moved', () => this.rules.move(keyId, project));
  }
}
