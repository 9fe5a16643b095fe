import { isIP } from 'node:net';
import { type CustomDomain, isServing } from './custom-domains/custom-domain-record';
import { hashSecret, secretMatches } from './secret';

/**
 * What the service believes about a request that came through the custom-domains edge
 * (CloudFront, or local mode's HTTPS edge). The edge adds a secret header to every request
 * it sends to a project's address; only a request carrying it is believed about its viewer's
 * address and about the custom domain the viewer asked for. Pure: no I/O.
 */

/** The header the edge adds to every request it forwards (the origin secret). */
export const ORIGIN_SECRET_HEADER = 'x-animal-store-edge';
/** The viewer's address and source port as CloudFront states it, e.g. `198.51.100.10:46532`. */
export const VIEWER_ADDRESS_HEADER = 'cloudfront-viewer-address';
/** The host the viewer asked for, set by the edge (the origin sees the project's address as Host). */
export const VIEWER_HOST_HEADER = 'x-forwarded-host';

/**
 * Seconds a custom domain lookup is cached by the authorizer: a removed domain is refused
 * within this, even while the edge still routes it. The cost: at most one consistent
 * GetItem per domain every 2 s per warm authorizer instance.
 */
export const EDGE_DOMAIN_CACHE_SECONDS = 2;

/**
 * Whether `presented` is one of the accepted values (the current one, and the previous one
 * while a rotation reaches every edge location). Compared as SHA-256 digests in constant
 * time, every candidate compared: neither length nor position leaks.
 */
export function originSecretMatches(presented: string, accepted: readonly string[]): boolean {
  let matched = false;
  for (const value of accepted) {
    if (value.length > 0 && secretMatches(hashSecret(value), presented)) matched = true;
  }
  return matched;
}

const PORT = /^(0|[1-9]\d{0,4})$/;

/**
 * The viewer's IP address from `CloudFront-Viewer-Address`: `ip:port`, an IPv6 address either
 * bracketed (`[2001:db8::1]:443`) or bare with the port after its last colon (the form
 * CloudFront's documentation does not show but its logs do). Anything else names nobody.
 */
export function parseViewerAddress(value: string): string | undefined {
  const text = value.trim();
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(text);
  const [address, port] = bracketed
    ? [bracketed[1] ?? '', bracketed[2] ?? '']
    : [text.slice(0, text.lastIndexOf(':')), text.slice(text.lastIndexOf(':') + 1)];
  if (!text.includes(':') || !PORT.test(port) || Number(port) > 65_535) return undefined;
  const family = isIP(address);
  if (family === 0 || (bracketed && family !== 6)) return undefined;
  return family === 6 ? address.toLowerCase() : address;
}

/** Longest host name (RFC 1035): a longer one names no domain, and is never looked up. */
const MAX_HOST_NAME = 253;

/** A host header's name: without port, case or trailing dot; none if it is not a host name. */
export function viewerHostName(value: string): string | undefined {
  const name = value
    .trim()
    .toLowerCase()
    .replace(/:\d{1,5}$/, '')
    .replace(/\.$/, '');
  return name.length <= MAX_HOST_NAME && /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(name) ? name : undefined;
}

/**
 * Whether the edge may serve `domain` as `project`: it is that project's, and serving. A
 * redirect domain is answered by the edge function itself and never reaches the origin, but
 * while its tenant changes role both are true for a moment, so it is served rather than refused.
 */
export function domainServesProject(
  domain: Pick<CustomDomain, 'project' | 'state'> | undefined,
  project: string | undefined,
): boolean {
  return domain !== undefined && project !== undefined && domain.project === project && isServing(domain);
}
