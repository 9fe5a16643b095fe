import { readFileSync } from 'node:fs';
import type { DomainRole } from '../lambda/core/custom-domains/custom-domain';
import { DOMAIN_ROLES } from '../lambda/core/custom-domains/custom-domain';
import type { CustomDomains, CustomDomainStore } from '../lambda/core/custom-domains/custom-domains';
import type { DnsLookup } from '../lambda/core/custom-domains/dns-verdict';
import type { EdgeCertificateState, ValidationRecord } from '../lambda/core/custom-domains/edge-tenants';
import { decide, newRecord } from '../lambda/core/custom-domains/lifecycle';
import { Refusal } from './failures';

/**
 * The migration of the old configuration file's domains (config/domains.json, deployed as
 * per-project API Gateway domains behind `<domain>.<cnameTargetDomain>`) to the domains
 * service, without downtime. Each domain gets its record first (so the stale-tenant sweep never
 * takes its tenant for a removed domain's), then a certificate of its own (ACM in us-east-1,
 * validated by DNS: the old targets answer HTTPS only, so no HTTP validation can reach the
 * platform), and once that is issued its tenant, created with it. Only then does its old
 * target become a CNAME to the edge.
 */

/** What the import reads of an old configuration file. */
export interface OldDomainsConfig {
  /** `cnameTargetDomain`: the old per-domain targets are `<domain>.<cnameTargetDomain>`. */
  readonly cnameTargetDomain: string;
  readonly projects: readonly {
    readonly name: string;
    readonly domains: readonly { readonly name: string; readonly role: DomainRole }[];
  }[];
}

function fail(file: string, what: string): never {
  throw new Refusal(`${file} is not an old domains configuration: ${what}.`);
}

/** Reads the parts of an old configuration the import needs (the file's other fields are ignored). */
export function readOldDomainsConfig(file: string): OldDomainsConfig {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Refusal(missing ? `No file ${file}.` : `${file} is not JSON.`);
  }
  const config = json as { platform?: { cnameTargetDomain?: unknown }; projects?: unknown };
  const target = config.platform?.cnameTargetDomain;
  if (typeof target !== 'string' || target === '') fail(file, 'platform.cnameTargetDomain is missing');
  if (!Array.isArray(config.projects)) fail(file, 'projects is not a list');
  const projects = config.projects.map((raw: unknown, index) => {
    const project = raw as { name?: unknown; domains?: unknown };
    if (typeof project.name !== 'string') fail(file, `projects[${index}].name is not a string`);
    if (!Array.isArray(project.domains)) fail(file, `projects[${index}].domains is not a list`);
    const domains = project.domains.map((rawDomain: unknown, at) => {
      const domain = rawDomain as { name?: unknown; role?: unknown };
      if (typeof domain.name !== 'string' || !DOMAIN_ROLES.includes(domain.role as DomainRole)) {
        fail(file, `projects[${index}].domains[${at}] needs a name and a role (${DOMAIN_ROLES.join(', ')})`);
      }
      return { name: domain.name.toLowerCase().replace(/\.$/, ''), role: domain.role as DomainRole };
    });
    return { name: project.name, domains };
  });
  return { cnameTargetDomain: target.toLowerCase().replace(/\.$/, ''), projects };
}

/** What the import did with one domain. */
export interface ImportedDomain {
  readonly project: string;
  readonly domain: string;
  readonly role: DomainRole;
  /** `created`, `exists` (re-run), or `failed` with the reason. */
  readonly record: 'created' | 'exists' | 'failed';
  /**
   * `created` with its certificate now, `exists` (re-run), `waiting` for the certificate,
   * `deferred` (local mode: the service of npm start moves it on), `failed`, or `skipped`.
   */
  readonly tenant: 'created' | 'exists' | 'waiting' | 'deferred' | 'failed' | 'skipped';
  /** The certificate's state, when asked. */
  readonly certificate?: EdgeCertificateState;
  /** The certificate of its own (its ARN). */
  readonly certificateArn?: string;
  /** The CNAME the certificate's DNS validation needs, and whether the DNS answers it already. */
  readonly validationRecord?: ValidationRecord & { readonly found?: boolean };
  /** The old per-domain target. */
  readonly oldTarget: string;
  /** Once the tenant has its certificate: the record change that moves the traffic to the edge. */
  readonly recordChange?: string;
  readonly reason?: string;
}

export interface ImportOptions {
  readonly store: CustomDomainStore;
  /**
   * The domains service over the edge, which requests each certificate and creates the tenant
   * once it is issued; without it (local mode, whose edge lives in npm start) npm start's
   * service does so when the project's domains are listed or verified.
   */
  readonly service?: Pick<CustomDomains, 'advanceImport'>;
  /** Where to look for the validation records (the tool's resolver); none: not looked for. */
  readonly dns?: Pick<DnsLookup, 'cname'>;
  /** Whether the project exists (a domain of an unknown project is not imported). */
  readonly projectExists: (name: string) => Promise<boolean>;
  /** Where the old targets point once the certificate is issued: the routing endpoint. */
  readonly routingEndpoint: string;
  readonly clock: () => number;
}

/** The DNS change that moves a migrated domain's traffic to the edge. */
export function recordChangeOf(oldTarget: string, routingEndpoint: string): string {
  return `${oldTarget} CNAME ${routingEndpoint} (TTL 300), replacing its record to the old custom domain`;
}

const ROLE_ORDER = { primary: 0, additional: 1, redirect: 2 } as const;
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);
const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** Whether the DNS answers the validation CNAME; undefined when it cannot be asked. */
async function validationFound(
  dns: Pick<DnsLookup, 'cname'>,
  record: ValidationRecord,
): Promise<boolean | undefined> {
  try {
    return (await dns.cname(record.name)).some((value) => normalize(value) === normalize(record.value));
  } catch {
    return undefined;
  }
}

/**
 * Imports every domain of the configuration, primaries first (redirects are routed to them).
 * Idempotent: a record, certificate or tenant that exists is kept, so a re-run only completes.
 */
export async function importDomains(
  config: OldDomainsConfig,
  options: ImportOptions,
): Promise<ImportedDomain[]> {
  const { store, service, dns, routingEndpoint } = options;
  const results: ImportedDomain[] = [];
  for (const project of config.projects) {
    const exists = await options.projectExists(project.name);
    const primary = project.domains.find((domain) => domain.role === 'primary');
    const ordered = [...project.domains].sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role]);
    for (const { name, role } of ordered) {
      const base = {
        project: project.name,
        domain: name,
        role,
        oldTarget: `${name}.${config.cnameTargetDomain}`,
      };
      const refused = (reason: string): ImportedDomain => ({
        ...base,
        record: 'failed',
        tenant: 'skipped',
        reason,
      });
      if (!exists) {
        results.push(
          refused(
            `no project ${project.name}: create it first (npm run projects -- create ${project.name} <plan>)`,
          ),
        );
        continue;
      }
      let stored = await store.get(name);
      if (stored && stored.project !== project.name) {
        results.push(refused(`attached to project ${stored.project} already`));
        continue;
      }
      if (role === 'redirect' && !primary) {
        results.push(refused('a redirect without a primary domain to point at'));
        continue;
      }
      let record: ImportedDomain['record'] = 'exists';
      if (!stored) {
        const now = new Date(options.clock()).toISOString();
        // No tenant yet (`attached: false`): it comes once the certificate is issued.
        const domain = newRecord(decide(undefined, 'import', { now }), {
          name,
          project: project.name,
          role,
          addedAt: now,
          // Live on the old target: it has served traffic, so removing it needs the confirmation.
          servedAt: now,
          migratedFrom: base.oldTarget,
        });
        record = (await store.create(domain)) ? 'created' : 'exists';
        stored = record === 'created' ? domain : await store.get(name);
        // The project's primary claim (the service decides the primary, and routes redirects,
        // by it): a re-run, or a claim the project has already, leaves it as it is.
        if (record === 'created' && role === 'primary')
          await store.claimPrimary(project.name, name, undefined);
      }
      if (!stored || stored.project !== project.name) {
        results.push(refused('attached to another project a moment ago'));
        continue;
      }
      if (stored.attached || !service) {
        const issued = stored.attached && stored.certificate === 'issued';
        results.push({
          ...base,
          record,
          tenant: stored.attached ? 'exists' : 'deferred',
          certificate: stored.certificate,
          ...(issued ? { recordChange: recordChangeOf(base.oldTarget, routingEndpoint) } : {}),
        });
        continue;
      }
      try {
        const progress = await service.advanceImport(stored);
        const { domain, certificate } = progress;
        const validation = certificate.validationRecord;
        const found = validation && dns ? await validationFound(dns, validation) : undefined;
        results.push({
          ...base,
          record,
          tenant: domain.attached ? 'created' : 'waiting',
          certificate: certificate.state,
          certificateArn: certificate.arn,
          ...(validation
            ? { validationRecord: { ...validation, ...(found === undefined ? {} : { found }) } }
            : {}),
          ...(domain.attached ? { recordChange: recordChangeOf(base.oldTarget, routingEndpoint) } : {}),
          ...(domain.state === 'failed' && domain.reason ? { reason: domain.reason } : {}),
        });
      } catch (error) {
        // The record stays: a re-run goes on from it.
        results.push({
          ...base,
          record,
          tenant: 'failed',
          reason: `${sentence(error instanceof Error ? error.message : String(error))} Re-run the import: it goes on from the record`,
        });
      }
    }
  }
  return results;
}

/** What the tool prints of one imported domain (a line, and the steps under it). */
export function describeImport(result: ImportedDomain): string {
  const head = `${result.domain} (project ${result.project}, ${result.role})`;
  if (result.record === 'failed') return `${head}: not imported: ${sentence(result.reason ?? 'refused')}`;
  const certificate = result.certificate ? `, certificate ${result.certificate}` : '';
  const tenant = {
    created: 'tenant created with its certificate',
    exists: 'tenant exists',
    waiting: 'tenant once the certificate is issued',
    deferred: "certificate and tenant from npm start's service (list or verify the project's domains)",
    failed: 'tenant failed',
    skipped: 'no tenant',
  }[result.tenant];
  const lines = [`${head}: record ${result.record}${certificate}, ${tenant}.`];
  const validation = result.validationRecord;
  if (validation && result.certificate !== 'issued') {
    const found =
      validation.found === undefined
        ? 'not looked up'
        : validation.found
          ? 'found at the DNS: no action for the tenant'
          : 'not found at the DNS: the tenant must add it';
    lines.push(`  Validation record: ${validation.name} CNAME ${validation.value} (${found}).`);
  } else if (result.certificate === 'pending' && result.tenant === 'waiting') {
    lines.push('  Validation record: not made by ACM yet: re-run the import in a minute to see it.');
  }
  if (result.reason) lines.push(`  ${sentence(result.reason)}`);
  lines.push(
    result.recordChange
      ? `  Once the tenant is deployed, change: ${result.recordChange}.`
      : `  Keep ${result.oldTarget} as it is until the certificate is issued (status --all shows the change then).`,
  );
  return lines.join('\n');
}
