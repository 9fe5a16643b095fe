import { DomainError } from '../errors';
import { edgeFailureWords } from './lifecycle-words';

/**
 * The port to the edge that serves custom domains: CloudFront SaaS Manager in AWS (one
 * distribution tenant per custom domain, each with its own managed certificate validated over
 * HTTP), local mode's HTTPS edge and certificate authority on one machine. Each custom domain,
 * redirects included, is its own tenant with its own certificate, so a domain whose DNS is not
 * ready never holds up, or causes a re-issue of, another domain's certificate.
 */

/** What the edge does with a domain: serve its project, or answer 301 to the project's primary domain. */
export type EdgeRoute =
  | { readonly project: string; readonly role: 'serve' }
  | {
      readonly project: string;
      readonly role: 'redirect';
      /** The domain visitors are sent to, keeping path and query. */
      readonly primary: string;
    };

/** Where a domain's certificate stands at the edge. */
export type EdgeCertificateState = 'none' | 'pending' | 'issued' | 'timed-out' | 'failed';

/** Why a certificate is pending, timed out or failed: a fact; lifecycle-words.ts says it in words. */
export type CertificateCause =
  | 'validation-pending'
  | 'validation-timed-out'
  | 'authority-refused'
  | 'revoked'
  | 'expired'
  | 'inactive'
  | 'gone';

/** The facts behind a certificate's state, as the store reports them (never words of its own). */
export interface CertificateFacts {
  readonly cause?: CertificateCause;
  /** How its authority validates: `http` for CloudFront's managed certificates, `dns` for ACM's. */
  readonly validatedBy?: 'http' | 'dns';
  /** The authority's own failure code, passed through as data (ACM's FailureReason, e.g. CAA_ERROR). */
  readonly failureCode?: string;
  /** Local mode only: the sandbox authority's own message, which a developer needs to see verbatim. */
  readonly authorityMessage?: string;
}

export interface EdgeCertificate extends CertificateFacts {
  readonly state: EdgeCertificateState;
}

/** The edge's own check of a domain's DNS (CloudFront's VerifyDnsConfiguration). */
export interface EdgeDnsCheck {
  readonly valid: boolean;
  readonly reason?: string;
}

/** The CNAME a DNS-validated certificate's authority looks for (ACM's DomainValidationOptions.ResourceRecord). */
export interface ValidationRecord {
  readonly name: string;
  readonly value: string;
}

/**
 * A certificate of the platform's own for one domain (ACM in us-east-1, validated by DNS): what a
 * domain imported from the old per-domain targets serves with until its DNS is at the edge. Its
 * HTTP-validated managed certificate cannot be issued before then: the old targets are API
 * Gateway custom domains, which answer HTTPS only, and HTTP validation fetches over port 80.
 */
export interface OwnCertificate extends CertificateFacts {
  /** The certificate's ARN (what the tenant names). */
  readonly arn: string;
  /** `none`: the certificate is gone (deleted). */
  readonly state: EdgeCertificateState;
  /** The record to have at the domain's DNS; absent until the authority has made it (a few seconds), and locally. */
  readonly validationRecord?: ValidationRecord;
}

export interface AttachOptions {
  /**
   * An issued certificate of one's own ({@link OwnCertificate}) for the tenant, instead of a
   * managed certificate validated over HTTP. @default a managed certificate
   */
  readonly certificateArn?: string;
}

/**
 * Every method is idempotent, and throws only when the edge cannot answer (the service
 * reports that as the edge being unavailable).
 */
export interface EdgeTenants {
  /**
   * Creates the domain's tenant, or updates it to `route`, and requests its managed certificate
   * (or, with `certificateArn`, serves with that certificate).
   */
  attach(domain: string, route: EdgeRoute, options?: AttachOptions): Promise<void>;
  /** Changes what an attached domain does (a new primary, a domain made a redirect), keeping its certificate. */
  reroute(domain: string, route: EdgeRoute): Promise<void>;
  /** The certificate's state, managed or its own ('none' for a domain without a tenant). */
  certificate(domain: string): Promise<EdgeCertificate>;
  /** Requests the certificate again, after it timed out or failed (a managed one, validated over HTTP). */
  renewCertificate(domain: string): Promise<void>;
  /**
   * Requests a certificate of one's own for exactly `domain`, validated by DNS; idempotent for
   * the same `replacing` (the ARN of a certificate that failed, or none for the first).
   */
  requestOwnCertificate(domain: string, replacing?: string): Promise<OwnCertificate>;
  /** Where a certificate of one's own stands, with its validation record. */
  ownCertificate(arn: string): Promise<OwnCertificate>;
  /** The edge's own DNS check; undefined where the edge has none (local mode). */
  checkDns(domain: string): Promise<EdgeDnsCheck | undefined>;
  /** Deletes the domain's tenant (none is fine). */
  detach(domain: string): Promise<void>;
  /** Every domain that has a tenant (to clean up tenants whose domain was removed). */
  tenants(): Promise<readonly string[]>;
}

/**
 * What went wrong at the edge, as a fact the edge adapter reports (the words are the core's,
 * lifecycle-words.ts): it cannot answer now, it refused, the domain has no tenant (or lost it
 * meanwhile), its tenant kept changing, a disabled tenant is not deleted yet, there is no
 * certificate manager, or the name is in use at another distribution.
 */
export type EdgeFailureFact =
  | 'unavailable'
  | 'refused'
  | 'no-tenant'
  | 'tenant-gone'
  | 'tenant-kept-changing'
  | 'disabled-not-deleted'
  | 'no-certificate-manager'
  | 'in-use-elsewhere';

/** A failure at the edge: the service's `edge_unavailable` (`domain_taken` for a name in use elsewhere), in the core's words. */
export class EdgeFailure extends DomainError {
  readonly fact: EdgeFailureFact;

  constructor(fact: EdgeFailureFact, domain: string | undefined, options?: { cause?: unknown }) {
    super(
      fact === 'in-use-elsewhere' ? 'domain_taken' : 'edge_unavailable',
      edgeFailureWords(fact, domain),
      options,
    );
    this.name = 'EdgeFailure';
    this.fact = fact;
  }
}

/** What one sweep of stale tenants did: each tenant deleted, and each one the edge refused to delete now. */
export interface StaleTenantSweep {
  readonly deleted: readonly string[];
  /** Left for the next sweep (CloudFront refuses until the disabled state has propagated). */
  readonly refused: readonly { readonly domain: string; readonly reason: string }[];
}

/**
 * Deletes the edge's tenants whose domain has no record (a removal whose detach failed). A
 * deletion the edge refuses is reported and the sweep goes on, so one stuck tenant never keeps
 * the others; only a failure to list the tenants fails the sweep. A tenant is always created
 * after its domain's record, so a tenant without one is never a domain being added.
 */
export async function sweepStaleTenants(
  edge: Pick<EdgeTenants, 'tenants' | 'detach'>,
  hasRecord: (domain: string) => Promise<boolean>,
): Promise<StaleTenantSweep> {
  const deleted: string[] = [];
  const refused: { domain: string; reason: string }[] = [];
  for (const domain of await edge.tenants()) {
    if (await hasRecord(domain)) continue;
    try {
      await edge.detach(domain);
      deleted.push(domain);
    } catch (error) {
      refused.push({ domain, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { deleted, refused };
}
