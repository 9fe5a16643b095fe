import { issueApiKey } from '../../lambda/core/api-key';

/**
 * Items as the release before projects wrote them, for tests of the upgrade: written with
 * raw PutCommands, never through today's repositories.
 */

/** An API key item: a plan and a usage id of its own, no project. */
export function oldKeyItem(plan: string, options: { revoked?: boolean } = {}): Record<string, unknown> {
  const { record } = issueApiKey('unused', `old ${plan}`, new Date());
  const item: Record<string, unknown> = { ...record, plan, usageId: `usage-${record.keyId}` };
  delete item.project;
  if (options.revoked) item.revokedAt = new Date().toISOString();
  return item;
}

/** A pet item: in the one all-pets `collection`, no project. */
export function oldPetItem(id: number): Record<string, unknown> {
  return {
    id,
    name: `pet ${id}`,
    categoryId: 1,
    status: id % 2 ? 'available' : 'sold',
    collection: 'pets',
    createdAt: new Date().toISOString(),
    createToken: `token-${id}`,
  };
}
