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

export interface EdgeCertificate {
  readonly state: EdgeCertificateState;
  /** Why it is pending, timed out or failed, in words for the tenant. */
  readonly reason?: string;
}

/** The edge's own check of a domain's DNS (CloudFront's VerifyDnsConfiguration). */
export interface EdgeDnsCheck {
  readonly valid: boolean;
  readonly reason?: string;
}

/**
 * Who serves a new certificate's HTTP validation token. `cloudfront`: the edge, once the
 * domain's CNAME points at it (every domain the service adds). `self-hosted`: the platform,
 * where the domain points today (the import of domains that are live on the old per-domain
 * targets: their traffic moves only once the certificate is issued).
 */
export type CertificateValidation = 'cloudfront' | 'self-hosted';

export interface AttachOptions {
  /** @default 'cloudfront' */
  readonly validation?: CertificateValidation;
}

/**
 * Every method is idempotent, and throws only when the edge cannot answer (the service
 * reports that as the edge being unavailable).
 */
export interface EdgeTenants {
  /** Creates the domain's tenant, or updates it to `route`, and requests its managed certificate. */
  attach(domain: string, route: EdgeRoute, options?: AttachOptions): Promise<void>;
  /** Changes what an attached domain does (a new primary, a domain made a redirect), keeping its certificate. */
  reroute(domain: string, route: EdgeRoute): Promise<void>;
  /** The certificate's state ('none' for a domain without a tenant). */
  certificate(domain: string): Promise<EdgeCertificate>;
  /** Requests the certificate again, after it timed out or failed. */
  renewCertificate(domain: string): Promise<void>;
  /** The edge's own DNS check; undefined where the edge has none (local mode). */
  checkDns(domain: string): Promise<EdgeDnsCheck | undefined>;
  /** Where the domain is in use outside this platform's tenants, in words; undefined when free. */
  conflict(domain: string): Promise<string | undefined>;
  /** Deletes the domain's tenant (none is fine). */
  detach(domain: string): Promise<void>;
  /** Every domain that has a tenant (to clean up tenants whose domain was removed). */
  tenants(): Promise<readonly string[]>;
}
