import { type CustomDomain, servingState } from './custom-domain';
import {
  type Changes,
  type CustomDomainsOptions,
  edgeCall,
  moveOnForRead,
  now,
  save,
} from './custom-domains-ports';
import type { EdgeCertificate } from './edge-tenants';

/**
 * The certificate state transitions of a domain that has a tenant at the edge: what the edge's
 * word on its certificate makes of the domain (serving, still pending, or failed with the fix).
 * Requesting the certificate again is verification's part (custom-domains.ts).
 */

/** The changes the edge's certificate makes to a domain with a tenant. */
export function afterCertificate(
  options: Pick<CustomDomainsOptions, 'clock'>,
  domain: CustomDomain,
  certificate: EdgeCertificate,
): Changes {
  switch (certificate.state) {
    case 'issued':
      return {
        state: servingState(domain.role),
        certificate: 'issued',
        ...(domain.servedAt ? {} : { servedAt: now(options) }),
      };
    case 'pending':
      return { state: 'certificate-pending', certificate: 'pending' };
    case 'timed-out':
      return {
        state: 'failed',
        certificate: 'timed-out',
        reason: `The certificate was not issued in time${certificate.reason ? ` (${certificate.reason})` : ''}: check the DNS record, then choose Re-verify to request it again.`,
      };
    case 'failed':
      return {
        state: 'failed',
        certificate: 'failed',
        reason: `The certificate could not be issued${certificate.reason ? ` (${certificate.reason})` : ''}: choose Re-verify to request it again.`,
      };
    case 'none':
      return {
        state: 'failed',
        attached: false,
        certificate: 'none',
        reason: 'The edge has no tenant for this domain: choose Re-verify.',
      };
  }
}

/** A certificate-pending domain, moved on by what the edge says of its certificate (undefined: removed meanwhile). */
export async function refreshCertificate(
  options: Pick<CustomDomainsOptions, 'store' | 'edge' | 'clock'>,
  domain: CustomDomain,
): Promise<CustomDomain | undefined> {
  const certificate = await edgeCall(() => options.edge.certificate(domain.name));
  if (certificate.state === 'pending') return domain;
  return moveOnForRead(options, domain, () =>
    save(options, domain, afterCertificate(options, domain, certificate)),
  );
}
