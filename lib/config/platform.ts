/**
 * The platform's own address space: every project is served at `<project>.<domain>`.
 * Read by the CDK app (the wildcard address) and by the tools (project names).
 */

/** Labels of the platform domain that are never project names: stated once, with the project rules. */
export { RESERVED_PROJECT_NAMES } from '../../lambda/core/project';

/**
 * Label of the platform's one CNAME target for custom domains (the spec's
 * `{platform_cname_target}`, `domains.<platform domain>`): a reserved project name, so no
 * project's address can take it.
 */
export const PLATFORM_CNAME_TARGET_LABEL = 'domains';

/** The spec's `{platform_cname_target}` of a platform domain: every custom domain is a CNAME to it. */
export function platformCnameTarget(domain: string): string {
  return `${PLATFORM_CNAME_TARGET_LABEL}.${domain}`;
}

/** Where projects get their addresses in an environment. */
export interface PlatformAddressConfig {
  /** The platform domain, e.g. `animalstore.example`; project `acme` is `acme.animalstore.example`. */
  readonly domain: string;
  /** The Route 53 hosted zone of the platform domain (given, not looked up: synth stays offline). */
  readonly hostedZoneId: string;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A Route 53 hosted zone id: Z followed by capital letters and digits. */
export const HOSTED_ZONE_ID = /^Z[A-Z0-9]{1,31}$/;

/** True for a lower-case host name of at least two valid labels, at most 253 characters. */
export function isHostName(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 253) return false;
  const labels = value.split('.');
  return labels.length >= 2 && labels.every((label) => LABEL.test(label));
}

/** Every problem of a platform address, each naming the bad value and the fix; empty when valid. */
export function platformAddressProblems(address: PlatformAddressConfig): string[] {
  const problems: string[] = [];
  const { domain, hostedZoneId } = address;
  // A 63-character project label and its dot must still fit in a host name (253 characters).
  if (!isHostName(domain) || domain.length > 253 - 64) {
    problems.push(
      `platform domain ${JSON.stringify(domain)}: use a lower-case domain name of at most 189 characters without a trailing dot, e.g. "animalstore.example".`,
    );
  }
  if (!HOSTED_ZONE_ID.test(hostedZoneId)) {
    problems.push(
      `platform hosted zone id ${JSON.stringify(hostedZoneId)}: use the Route 53 hosted zone id of the platform domain (Z followed by capital letters and digits), from the Route 53 console.`,
    );
  }
  return problems;
}

/**
 * The platform address given as the context values `platformDomain` and
 * `platformHostedZoneId` (`cdk deploy -c platformDomain=animalstore.example -c
 * platformHostedZoneId=Z0123…`); undefined when neither is set. Given, never looked up,
 * so synth stays offline.
 */
export function platformAddressFromContext(
  domain: unknown,
  hostedZoneId: unknown,
): PlatformAddressConfig | undefined {
  const unset = (value: unknown) => value === undefined || value === '';
  if (unset(domain) && unset(hostedZoneId)) return undefined;
  const usage =
    'pass both, e.g. -c platformDomain=animalstore.example -c platformHostedZoneId=Z0123456789PLATFORM';
  if (typeof domain !== 'string' || unset(domain)) {
    throw new Error(`Context value "platformDomain" is ${JSON.stringify(domain)}: ${usage}.`);
  }
  if (typeof hostedZoneId !== 'string' || unset(hostedZoneId)) {
    throw new Error(`Context value "platformHostedZoneId" is ${JSON.stringify(hostedZoneId)}: ${usage}.`);
  }
  return { domain, hostedZoneId };
}
