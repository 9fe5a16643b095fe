import { isIP } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import { getDomain } from 'tldts';
import { TENANT_RECORD_TTL } from './dns-verdict';
import type { CustomDomain, DomainView, TenantDnsRecord } from './custom-domain-record';
import { DomainError } from '../errors';

export type { DomainView, TenantDnsRecord };

export * from './custom-domain-record';

/**
 * A custom domain of a project (the spec's "Custom domains (dashboard feature)"): its name,
 * role and state, the one DNS record the tenant creates, and what the dashboard shows of it.
 * Pure: no I/O, times come in as milliseconds.
 */

/** The spec: "DNS changes may take up to 48 hours to propagate". */
export const DNS_PROPAGATION_MS = 48 * 60 * 60_000;
/** The spec: a certificate not there after 30 minutes gets the troubleshooting steps. */
export const CERTIFICATE_PATIENCE_MS = 30 * 60_000;
/** Bounds the edge's tenants one project can take (CloudFront: 10,000 per account by default). */
export const MAX_DOMAINS_PER_PROJECT = 20;

export const PROPAGATION_NOTICE = 'DNS changes may take up to 48 hours to propagate.';

/** The spec's troubleshooting steps, for a certificate still pending after 30 minutes. */
export const CERTIFICATE_TROUBLESHOOTING = [
  'Confirm that the domain still verifies.',
  'Check that CAA records do not block the certificate authority: they must allow Amazon (CAA 0 issue "amazon.com"), or there must be none.',
  'Choose Re-verify.',
] as const;

const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/** RFC 1035 §2.3.4: a label is at most 63 octets, a name at most 253 characters in text. */
const MAX_LABEL = 63;
/** Longest domain name (RFC 1035), without the trailing dot. */
export const MAX_DOMAIN_NAME = 253;
/**
 * The whole Public Suffix List, its private section included: `github.io` and
 * `s3.amazonaws.com` are suffixes under which strangers hold names, as `co.uk` is, so none of
 * them is a tenant's apex or zone.
 */
const PUBLIC_SUFFIX_LIST = { allowPrivateDomains: true } as const;

function invalid(message: string): DomainError {
  return new DomainError('invalid_domain', message);
}

/**
 * The name a tenant typed, as the service keeps it: trimmed, lower case, without the trailing
 * dot, an internationalized name in its ASCII (`xn--`) form. Refuses IP addresses, wildcards,
 * URLs, names that are not host names (labels of letters, digits and hyphens, at least two),
 * names too long (a label over 63 characters, a name over 253), public suffixes of either section
 * of the list (`co.uk`, `github.io`), and the platform's own domain and names under it (projects
 * are served there already).
 */
export function normalizeDomainName(input: string, platformDomain: string): string {
  const shown = JSON.stringify(input);
  const trimmed = input.trim();
  if (trimmed === '') throw invalid('Give a domain name, e.g. shop.example.com.');
  const bare = trimmed.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare) !== 0) {
    throw invalid(`${shown} is an IP address: a custom domain is a name, e.g. shop.example.com.`);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) || /[/?#@:]/.test(trimmed)) {
    throw invalid(`${shown} is not a bare domain name: give the name only, without scheme, port or path.`);
  }
  if (trimmed.includes('*')) {
    throw invalid(`${shown} is a wildcard: add each domain by its own name.`);
  }
  const withoutDot = trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
  // The WHATWG host parser: case folded, IDN to punycode, '' for what is not a host name.
  const name = domainToASCII(withoutDot.toLowerCase());
  const labels = name.split('.');
  if (name === '' || !labels.every((label) => LABEL.test(label))) {
    throw invalid(
      `${shown} is not a domain name: use labels of letters, digits and hyphens separated by dots, e.g. shop.example.com.`,
    );
  }
  const long = labels.find((label) => label.length > MAX_LABEL);
  if (long !== undefined) {
    throw invalid(
      `${shown} is too long: its label ${long.slice(0, 16)}… has ${long.length} characters, and a label has at most ${MAX_LABEL}.`,
    );
  }
  if (name.length > MAX_DOMAIN_NAME) {
    throw invalid(
      `${shown} is too long: it has ${name.length} characters, and a domain name has at most ${MAX_DOMAIN_NAME}.`,
    );
  }
  // A numeric last label makes the host parser read an IPv4 address (`127.1`, `0x7f.1`).
  if (isIP(name) !== 0 || /^(\d+|0x[0-9a-f]*)$/.test(labels.at(-1) ?? '')) {
    throw invalid(`${shown} is an IP address: a custom domain is a name, e.g. shop.example.com.`);
  }
  if (labels.length < 2) {
    throw invalid(`${shown} is a single label: give the full domain name, e.g. shop.example.com.`);
  }
  const platform = platformDomain.toLowerCase();
  if (name === platform || name.endsWith(`.${platform}`)) {
    throw invalid(
      `${shown} is the platform's own domain (${platform}): every project is served at <project>.${platform} already; attach a domain of your own.`,
    );
  }
  if (getDomain(name, PUBLIC_SUFFIX_LIST) === null) {
    throw invalid(
      `${shown} is a public suffix, under which anyone registers names: give a domain of your own, e.g. shop.${name}.`,
    );
  }
  return name;
}

/** The registrable domain of a name (the zone a tenant controls): `example.co.uk` for `shop.example.co.uk`. */
export function registrableDomain(name: string): string {
  return getDomain(name, PUBLIC_SUFFIX_LIST) ?? name;
}

/** True for a registrable domain itself (`example.com`), where no CNAME may stand. */
export function isApexDomain(name: string): boolean {
  return registrableDomain(name) === name;
}

export function tenantDnsRecord(name: string, target: string): TenantDnsRecord {
  const zone = registrableDomain(name);
  const apex = zone === name;
  return {
    name: apex ? '@' : name.slice(0, -(zone.length + 1)),
    zone,
    type: apex ? 'ALIAS/ANAME' : 'CNAME',
    value: target,
    ttl: TENANT_RECORD_TTL,
  };
}

/**
 * What works for an apex where the DNS provider has no ALIAS/ANAME: a CNAME is not allowed at
 * an apex, and CloudFront's static anycast IP lists have a default quota of 0, so the platform
 * offers no fixed addresses. The www subdomain can have the CNAME, and the provider's own
 * redirect (URL forwarding) sends the apex there.
 */
export function apexFallback(name: string, target: string): string {
  return `If your DNS provider has no ALIAS or ANAME record: add www.${name} instead (a CNAME to ${target}), make it the primary domain, and forward ${name} to https://www.${name} with your DNS provider's redirect (URL forwarding).`;
}

/** The view of a stored domain at `nowMs`, with the edge's one target. */
export function describeDomain(domain: CustomDomain, target: string, nowMs: number): DomainView {
  const inState = Math.max(0, nowMs - Date.parse(domain.since));
  const sinceAdded = Math.max(0, nowMs - Date.parse(domain.addedAt));
  const unicodeName = domainToUnicode(domain.name);
  const waitingForDns = domain.state === 'pending-dns' || (domain.state === 'failed' && !domain.attached);
  return {
    name: domain.name,
    ...(unicodeName !== domain.name ? { unicodeName } : {}),
    role: domain.role,
    state: domain.state,
    ...(domain.reason ? { reason: domain.reason } : {}),
    record: tenantDnsRecord(domain.name, target),
    ...(isApexDomain(domain.name) ? { apexFallback: apexFallback(domain.name, target) } : {}),
    certificate: domain.certificate,
    since: domain.since,
    secondsInState: Math.floor(inState / 1000),
    addedAt: domain.addedAt,
    notices: waitingForDns && sinceAdded < DNS_PROPAGATION_MS ? [PROPAGATION_NOTICE] : [],
    ...(domain.state === 'certificate-pending' && inState >= CERTIFICATE_PATIENCE_MS
      ? { troubleshooting: CERTIFICATE_TROUBLESHOOTING }
      : {}),
  };
}
