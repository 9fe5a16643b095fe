import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectNameProblem } from '../../lambda/domain/project';
import { HOSTED_ZONE_ID, isHostName, type PlatformAddressConfig, RESERVED_PROJECT_NAMES } from './platform';

/**
 * Custom domains of the tenants (projects), as one typed configuration: the CDK app
 * deploys it and the `domains` tool edits it. It is the only list of domains; the
 * domains table holds only their verification and certificate state.
 */

/** TTL of every record a tenant is told to create (the spec's 3600). */
export const TENANT_RECORD_TTL_SECONDS = 3600;

/** How a domain is used in its project. */
export const DOMAIN_ROLES = ['primary', 'additional', 'redirect'] as const;
export type DomainRole = (typeof DOMAIN_ROLES)[number];

/** The DNS zone a domain lives in. */
export interface DnsZone {
  /** The zone's apex, e.g. `acme-pets.example`; the domain is it or a name under it. */
  readonly name: string;
  /**
   * The Route 53 hosted zone of this account that serves the zone: the deploy then
   * creates the records itself. Absent: DNS is elsewhere and the tenant adds them.
   */
  readonly hostedZoneId?: string;
}

/** One custom domain of a project. */
export interface CustomDomainConfig {
  /** Fully qualified, lower case, without a trailing dot, e.g. `shop.acme-pets.example`. */
  readonly name: string;
  /** `primary` (exactly one per project with custom domains), `additional`, or a 301 `redirect` to the primary. */
  readonly role: DomainRole;
  readonly zone: DnsZone;
}

/** A tenant's project. */
export interface ProjectConfig {
  /** The project's name (a DNS label, its address's label), also the stack name's suffix. */
  readonly name: string;
  readonly domains: readonly CustomDomainConfig[];
}

/** The platform's own domain. */
export interface PlatformConfig {
  /** The platform domain; each project is published at `<project>.<domain>`. */
  readonly domain: string;
  /** The Route 53 hosted zone of the platform domain (offline synth: no lookup). */
  readonly hostedZone: { readonly id: string; readonly name: string };
  /**
   * The spec's `{platform_cname_target}`: the name under which the platform publishes
   * one target per custom domain, `<domain>.<cnameTargetDomain>` (an alias of that
   * domain's API Gateway regional endpoint). Must be in the platform's hosted zone.
   */
  readonly cnameTargetDomain: string;
}

export interface DomainsConfig {
  readonly platform: PlatformConfig;
  readonly projects: readonly ProjectConfig[];
}

/** A DNS record as a tenant enters it at their provider. */
export interface TenantDnsRecord {
  /** The label relative to the zone (`shop`), `@` for the apex. */
  readonly name: string;
  /** The fully qualified name. */
  readonly fqdn: string;
  readonly type: 'CNAME' | 'ALIAS/ANAME';
  readonly value: string;
  readonly ttl: number;
}

export { isHostName };

/** True when `name` is `zone` or a name under it. */
export function isWithin(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}

/** True when the domain is its zone's apex (no subdomain label). */
export function isApex(domain: CustomDomainConfig): boolean {
  return domain.name === domain.zone.name;
}

/** The record name relative to the zone: the subdomain label(s), or `@` for the apex. */
export function recordLabel(domain: CustomDomainConfig): string {
  return isApex(domain) ? '@' : domain.name.slice(0, -(domain.zone.name.length + 1));
}

/** The spec's `{platform_cname_target}` of one custom domain. */
export function cnameTarget(platform: PlatformConfig, domainName: string): string {
  return `${domainName}.${platform.cnameTargetDomain}`;
}

/** The platform address the platform part of a domains configuration describes. */
export function platformAddressOf(platform: PlatformConfig): PlatformAddressConfig {
  return { domain: platform.domain, hostedZoneId: platform.hostedZone.id };
}

/**
 * How a domains configuration's platform part disagrees with the environment's platform
 * address (context values), one message per field; empty when they agree.
 */
export function platformDisagreements(platform: PlatformConfig, address: PlatformAddressConfig): string[] {
  const fromDomains = platformAddressOf(platform);
  const problems: string[] = [];
  if (fromDomains.domain !== address.domain) {
    problems.push(
      `platform.domain is ${JSON.stringify(fromDomains.domain)} but the platform domain (-c platformDomain) is ${JSON.stringify(address.domain)}: make them the same, or leave the context value out (the domains configuration then gives it).`,
    );
  }
  if (fromDomains.hostedZoneId !== address.hostedZoneId) {
    problems.push(
      `platform.hostedZone.id is ${JSON.stringify(fromDomains.hostedZoneId)} but the platform hosted zone (-c platformHostedZoneId) is ${JSON.stringify(address.hostedZoneId)}: make them the same, or leave the context value out.`,
    );
  }
  return problems;
}

/** The address of a project, a subdomain of the platform domain (served by the wildcard). */
export function defaultAddress(platform: PlatformConfig, projectName: string): string {
  return `${projectName}.${platform.domain}`;
}

/** The host every redirect of a project points to: its primary custom domain, else its default address. */
export function primaryHost(platform: PlatformConfig, project: ProjectConfig): string {
  return project.domains.find((d) => d.role === 'primary')?.name ?? defaultAddress(platform, project.name);
}

/** The record a tenant creates for a domain: CNAME for a subdomain, ALIAS/ANAME for an apex. */
export function tenantDnsRecord(platform: PlatformConfig, domain: CustomDomainConfig): TenantDnsRecord {
  return {
    name: recordLabel(domain),
    fqdn: domain.name,
    type: isApex(domain) ? 'ALIAS/ANAME' : 'CNAME',
    value: cnameTarget(platform, domain.name),
    ttl: TENANT_RECORD_TTL_SECONDS,
  };
}

/** One line for a record: `name type value TTL`, as outputs and the tool print it. */
export function formatTenantRecord(record: TenantDnsRecord): string {
  return `${record.name} ${record.type} ${record.value} TTL ${record.ttl} (for ${record.fqdn})`;
}

/** Every problem of a configuration, each naming the bad value and the fix; empty when valid. */
export function domainsConfigProblems(config: DomainsConfig): string[] {
  const problems: string[] = [];
  const { platform } = config;
  if (!isHostName(platform.domain)) {
    problems.push(
      `platform.domain is ${JSON.stringify(platform.domain)}: use a lower-case domain name such as "animalstore.example".`,
    );
  }
  if (!HOSTED_ZONE_ID.test(platform.hostedZone.id)) {
    problems.push(
      `platform.hostedZone.id is ${JSON.stringify(platform.hostedZone.id)}: use the Route 53 hosted zone id (Z followed by letters and digits), from the Route 53 console.`,
    );
  }
  if (!isWithin(platform.domain, platform.hostedZone.name)) {
    problems.push(
      `platform.hostedZone.name is ${JSON.stringify(platform.hostedZone.name)}: it must be "${platform.domain}" or a parent of it, the zone that holds the platform domain.`,
    );
  }
  if (
    !isHostName(platform.cnameTargetDomain) ||
    !isWithin(platform.cnameTargetDomain, platform.hostedZone.name)
  ) {
    problems.push(
      `platform.cnameTargetDomain is ${JSON.stringify(platform.cnameTargetDomain)}: use a name in the platform zone "${platform.hostedZone.name}", e.g. "tenants.${platform.hostedZone.name}".`,
    );
  }

  const projectNames = new Set<string>();
  const owners = new Map<string, string>();
  const zoneIds = new Map<string, string | undefined>();
  for (const project of config.projects) {
    const where = `project ${JSON.stringify(project.name)}`;
    const nameProblem = projectNameProblem(project.name, RESERVED_PROJECT_NAMES);
    if (nameProblem !== undefined) problems.push(`${where}: ${nameProblem}`);
    if (projectNames.has(project.name))
      problems.push(`${where}: the name is used twice; give each project its own.`);
    projectNames.add(project.name);
    const primaries = project.domains.filter((d) => d.role === 'primary');
    if (project.domains.length > 0 && primaries.length !== 1) {
      problems.push(
        `${where} has ${primaries.length} primary domains (${primaries.map((d) => d.name).join(', ') || 'none'}): mark exactly one domain "role": "primary", the others "additional" or "redirect".`,
      );
    }
    for (const domain of project.domains)
      problems.push(...domainProblems(config, project, domain, owners, zoneIds));
  }
  return problems;
}

function domainProblems(
  config: DomainsConfig,
  project: ProjectConfig,
  domain: CustomDomainConfig,
  owners: Map<string, string>,
  zoneIds: Map<string, string | undefined>,
): string[] {
  const { platform } = config;
  const problems: string[] = [];
  const where = `domain ${JSON.stringify(domain.name)} of project ${JSON.stringify(project.name)}`;
  if (!isHostName(domain.name)) {
    problems.push(`${where}: use a lower-case domain name without a trailing dot, e.g. "shop.example.com".`);
    return problems;
  }
  if (isWithin(domain.name, platform.hostedZone.name)) {
    problems.push(
      `${where}: it is in the platform zone; the project's platform address is ${defaultAddress(platform, project.name)} already. Use a domain the tenant owns.`,
    );
  }
  const owner = owners.get(domain.name);
  if (owner !== undefined)
    problems.push(
      `${where}: it is also configured for project ${JSON.stringify(owner)}; a domain serves one project only.`,
    );
  owners.set(domain.name, project.name);
  if (!(DOMAIN_ROLES as readonly string[]).includes(domain.role)) {
    problems.push(
      `${where}: role ${JSON.stringify(domain.role)} is unknown: use ${DOMAIN_ROLES.join(', ')}.`,
    );
  }
  if (!isHostName(domain.zone.name) || !isWithin(domain.name, domain.zone.name)) {
    problems.push(
      `${where}: zone.name ${JSON.stringify(domain.zone.name)} must be the zone that holds the domain, i.e. "${domain.name}" itself (apex) or a parent of it.`,
    );
  }
  const { hostedZoneId } = domain.zone;
  if (hostedZoneId !== undefined && !HOSTED_ZONE_ID.test(hostedZoneId)) {
    problems.push(
      `${where}: zone.hostedZoneId ${JSON.stringify(hostedZoneId)} is not a Route 53 hosted zone id (Z followed by letters and digits); leave it out when DNS is elsewhere.`,
    );
  }
  if (zoneIds.has(domain.zone.name) && zoneIds.get(domain.zone.name) !== hostedZoneId) {
    problems.push(
      `${where}: zone ${domain.zone.name} is given another hostedZoneId elsewhere (${zoneIds.get(domain.zone.name) ?? 'none'}); give every domain of a zone the same one.`,
    );
  }
  zoneIds.set(domain.zone.name, hostedZoneId);
  const target = cnameTarget(platform, domain.name);
  if (target.length > 253) {
    problems.push(
      `${where}: its target ${target} is longer than 253 characters; shorten platform.cnameTargetDomain.`,
    );
  }
  return problems;
}

/** Throws one error listing every problem, or returns the configuration. */
export function validateDomainsConfig(config: DomainsConfig, source: string): DomainsConfig {
  const problems = domainsConfigProblems(config);
  if (problems.length > 0) {
    throw new Error(`Invalid domains configuration (${source}):\n- ${problems.join('\n- ')}`);
  }
  return config;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks the shape of parsed JSON (types only; {@link validateDomainsConfig} checks the values). */
export function parseDomainsConfig(json: unknown, source: string): DomainsConfig {
  const fail = (what: string): never => {
    throw new Error(`Invalid domains configuration (${source}): ${what}. See config/domains.example.json.`);
  };
  if (!isRecord(json)) return fail('the file must hold one JSON object with "platform" and "projects"');
  const { platform, projects } = json;
  if (!isRecord(platform) || !isRecord(platform.hostedZone)) {
    return fail(
      '"platform" must be an object with "domain", "hostedZone": {"id", "name"} and "cnameTargetDomain"',
    );
  }
  for (const [key, value] of [
    ['platform.domain', platform.domain],
    ['platform.hostedZone.id', platform.hostedZone.id],
    ['platform.hostedZone.name', platform.hostedZone.name],
    ['platform.cnameTargetDomain', platform.cnameTargetDomain],
  ] as const) {
    if (typeof value !== 'string') fail(`${key} must be a string`);
  }
  if (!Array.isArray(projects)) return fail('"projects" must be an array (it may be empty)');
  projects.forEach((project: unknown, i) => {
    if (!isRecord(project) || typeof project.name !== 'string') {
      fail(`projects[${i}] must be an object with "name" and "domains"`);
    }
    // The plan lives in the projects table only: a second copy here could disagree with it.
    if ('plan' in (project as Record<string, unknown>)) {
      fail(
        `projects[${i}].plan: a project's plan is kept in the projects table only; remove "plan" here (npm run projects -- set-plan changes it)`,
      );
    }
    const domains = (project as Record<string, unknown>).domains;
    if (!Array.isArray(domains)) return fail(`projects[${i}].domains must be an array (it may be empty)`);
    domains.forEach((domain: unknown, j) => {
      if (
        !isRecord(domain) ||
        typeof domain.name !== 'string' ||
        typeof domain.role !== 'string' ||
        !isRecord(domain.zone) ||
        typeof domain.zone.name !== 'string' ||
        !['string', 'undefined'].includes(typeof domain.zone.hostedZoneId)
      ) {
        fail(`projects[${i}].domains[${j}] must be {"name", "role", "zone": {"name", "hostedZoneId"?}}`);
      }
    });
  });
  return json as unknown as DomainsConfig;
}

/** Reads, checks and validates a configuration file. */
export function readDomainsConfig(file: string): DomainsConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `Cannot read the domains configuration ${file} (${error instanceof Error ? error.message : String(error)}): check the path, e.g. -c domainsConfig=config/domains.example.json.`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `The domains configuration ${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}.`,
    );
  }
  return validateDomainsConfig(parseDomainsConfig(json, file), file);
}

/**
 * The configuration named by the `domainsConfig` context value (`cdk synth -c
 * domainsConfig=config/domains.json`), relative to `cwd`; undefined when unset, so the
 * default app creates no domain stacks.
 */
export function domainsConfigFromContext(
  value: unknown,
  cwd: string = process.cwd(),
): DomainsConfig | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') {
    throw new Error(
      `Context value "domainsConfig" is ${JSON.stringify(value)}: pass the path of a JSON file, e.g. -c domainsConfig=config/domains.example.json.`,
    );
  }
  return readDomainsConfig(path.resolve(cwd, value));
}
