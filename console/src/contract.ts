import type { DomainRole, DomainState } from '../../lambda/domain/custom-domain-record';
import type { EdgeCertificateState } from '../../lambda/domain/edge-tenants';

/**
 * The console API's bodies as the page reads them (docs: the console API contract of issue 15;
 * a domain's view and a verification are the service's own types). Only what the page shows is named.
 */

export interface Session {
  readonly project: string;
  readonly csrfToken: string;
  readonly idleTimeoutSeconds: number;
  readonly expiresAt: string;
}

export interface Counter {
  readonly used: number;
  readonly limit: number;
  readonly resetsAt: string;
}

export interface Usage {
  readonly project: { readonly name: string; readonly plan: string; readonly address: string };
  readonly limits: { readonly perMinute: number; readonly perDay: number };
  readonly customDomains: { readonly allowed: true } | { readonly allowed: false; readonly reason: string };
  readonly usage: { readonly minute: Counter; readonly day: Counter };
}

export interface ApiKey {
  readonly keyId: string;
  readonly name: string;
  readonly createdAt: string;
  readonly revokedAt?: string;
}

export interface IssuedKey {
  readonly apiKey: string;
  readonly key: ApiKey;
  /** On a rotation: the key it replaces. */
  readonly replaces?: string;
}

export type {
  DomainView,
  TenantDnsRecord as DnsRecord,
  Verification,
} from '../../lambda/domain/custom-domain-record';

export type { DomainRole, DomainState, EdgeCertificateState };
