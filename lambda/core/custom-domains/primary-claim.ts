import type { CustomDomain } from './custom-domain';
import { type CustomDomainsOptions, recordOf, save, type Writer } from './custom-domains-ports';
import type { EdgeRoute } from './edge-tenants';
import { DomainError } from '../errors';

/**
 * The project's primary claim: which of its domains is the primary, how a first domain wins the
 * claim when two are added at once, and the edge route that follows from it (a redirect points
 * at the primary). Moving the claim on purpose is the service's setPrimary (custom-domains.ts).
 */

type Store = Pick<CustomDomainsOptions, 'store'>;

/** Reads and conditional writes of the primary claim before a request gives up (each lost one means another request moved it). */
export const CLAIM_ATTEMPTS = 3;

/**
 * The project's primary domain: the one its claim names while that domain is the project's
 * (strongly consistent), else a primary the project index shows (stored before claims existed).
 */
export async function primaryOf({ store }: Store, project: string): Promise<string | undefined> {
  const claimed = await store.claimedPrimary(project);
  if (claimed !== undefined && (await recordOf({ store }, claimed, project)) !== undefined) return claimed;
  return (await unclaimedPrimary({ store }, project, claimed))?.name;
}

/** A primary the index shows that still stands (a consistent read), other than the claim's. */
async function unclaimedPrimary(
  { store }: Store,
  project: string,
  claimed: string | undefined,
): Promise<CustomDomain | undefined> {
  const listed = (await store.listByProject(project)).find(
    (other) => other.role === 'primary' && other.name !== claimed,
  );
  if (!listed) return undefined;
  const current = await recordOf({ store }, listed.name, project);
  return current?.role === 'primary' ? current : undefined;
}

/**
 * Claims the project's primary for `name`, a domain just stored: true when it won. A claim
 * that names another live domain of the project stands; one whose domain is gone is taken over.
 */
export async function claimFirst({ store }: Store, project: string, name: string): Promise<boolean> {
  for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt += 1) {
    const claimed = await store.claimedPrimary(project);
    if (claimed === name) return true;
    if (claimed !== undefined && (await recordOf({ store }, claimed, project)) !== undefined) return false;
    const older = await unclaimedPrimary({ store }, project, name);
    if (older) {
      // A primary stored before claims existed keeps its role, and gets the claim.
      await store.claimPrimary(project, older.name, claimed);
      return false;
    }
    if (await store.claimPrimary(project, name, claimed)) return true;
  }
  return false;
}

/** Makes a domain that won the claim the primary (a concurrent write to it is read again). */
export async function promote(options: Writer, domain: CustomDomain): Promise<CustomDomain> {
  let current = domain;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await save(options, current, { role: 'primary' });
    } catch (error) {
      const fresh = await recordOf(options, domain.name, domain.project);
      if (attempt >= CLAIM_ATTEMPTS || fresh === undefined) throw error;
      if (fresh.role === 'primary') return fresh;
      current = fresh;
    }
  }
}

/** Where the edge sends the domain's requests: served, or (a redirect) 301 to the primary. */
export async function routeOf(options: Store, domain: CustomDomain): Promise<EdgeRoute> {
  if (domain.role !== 'redirect') return { project: domain.project, role: 'serve' };
  const primary = await primaryOf(options, domain.project);
  if (primary === undefined) {
    throw new DomainError(
      'domain_role_conflict',
      `Project ${domain.project} has no primary domain for ${domain.name} to redirect to: add or choose one first.`,
    );
  }
  return { project: domain.project, role: 'redirect', primary };
}
