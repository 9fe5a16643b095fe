import type { CustomDomain } from './custom-domain';
import {
  type CustomDomainsOptions,
  edgeCall,
  moveOnForRead,
  now,
  saveDecision,
} from './custom-domains-ports';
import { certificateEvent, decide } from './lifecycle';

/**
 * A certificate-pending domain that has a tenant at the edge, moved on by the edge's word on its
 * certificate (the lifecycle's certificate events: serving, still pending, or failed with the
 * fix). Requesting the certificate again is verification's part (custom-domain-verification.ts).
 */

/** A certificate-pending domain, moved on by what the edge says of its certificate (undefined: removed meanwhile). */
export async function refreshCertificate(
  options: Pick<CustomDomainsOptions, 'store' | 'edge' | 'clock'>,
  domain: CustomDomain,
): Promise<CustomDomain | undefined> {
  const certificate = await edgeCall(() => options.edge.certificate(domain.name));
  if (certificate.state === 'pending') return domain;
  return moveOnForRead(options, domain, () =>
    saveDecision(
      options,
      domain,
      decide(domain, certificateEvent(certificate.state), { now: now(options), certificate }),
    ),
  );
}
