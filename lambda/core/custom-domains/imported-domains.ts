import type { CustomDomain } from './custom-domain';
import {
  type CustomDomainsOptions,
  edgeCall,
  moveOnForRead,
  now,
  saveDecision,
} from './custom-domains-ports';
import type { OwnCertificate } from './edge-tenants';
import { certificateEvent, decide } from './lifecycle';
import { routeOf } from './primary-claim';

/**
 * The path of a domain imported from the old per-domain targets (tools/domains-import.ts): it
 * keeps serving from its old target until its certificate of its own is issued, and only then
 * gets its tenant at the edge. The service (custom-domains.ts) moves it on from verify and list;
 * the lifecycle (lifecycle.ts, the certificate events of an imported domain) decides each step.
 */

type Options = Pick<CustomDomainsOptions, 'store' | 'edge' | 'clock'>;

/** Where an imported domain stands after {@link advanceImport}. */
export interface ImportProgress {
  readonly domain: CustomDomain;
  /** Its certificate of its own, with the validation record the certificate authority looks for. */
  readonly certificate: OwnCertificate;
}

/**
 * Moves on a domain imported from the old per-domain targets that has no tenant yet. Its
 * certificate of its own is requested when it has none (and, with `renew`, again when it
 * failed or timed out); once issued, the tenant is created with it and the domain serves
 * (active, or redirect), so its old target can move to the edge. Pending, it stays
 * certificate-pending; failed or timed out, it fails with the reason and the fix. The old
 * target still serves it meanwhile. Idempotent: the import's re-runs and the service share it.
 */
export async function advanceImport(
  options: Options,
  domain: CustomDomain,
  { renew = false } = {},
): Promise<ImportProgress> {
  const { edge } = options;
  let current = domain;
  let certificate = domain.certificateArn
    ? await edgeCall(() => edge.ownCertificate(domain.certificateArn ?? ''))
    : undefined;
  const settled = certificate?.state === 'issued' || certificate?.state === 'pending';
  if (!certificate || (renew && !settled)) {
    const replacing = certificate?.arn;
    certificate = await edgeCall(() => edge.requestOwnCertificate(domain.name, replacing));
    const requested = decide(current, 'certificate-requested', {
      now: now(options),
      certificate,
      ...(replacing !== undefined ? { replacing } : {}),
    });
    current = await saveDecision(options, current, requested);
  }
  const issued = certificate;
  const decision = decide(current, certificateEvent(issued.state), {
    now: now(options),
    certificate: issued,
  });
  if (decision.effects.includes('attach-own-certificate')) {
    const route = await routeOf(options, current);
    await edgeCall(() => edge.attach(domain.name, route, { certificateArn: issued.arn }));
  }
  current = await saveDecision(options, current, decision);
  return { domain: current, certificate };
}

/** An imported domain waiting for its certificate, moved on by what the edge says of it (undefined: removed meanwhile). */
export async function refreshImport(
  options: Options,
  domain: CustomDomain,
): Promise<CustomDomain | undefined> {
  return moveOnForRead(options, domain, async () => (await advanceImport(options, domain)).domain);
}
