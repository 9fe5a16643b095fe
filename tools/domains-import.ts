import { readFileSync } from 'node:fs';
import type { CustomDomain, DomainRole } from '../lambda/domain/custom-domain';
import { DOMAIN_ROLES } from '../lambda/domain/custom-domain';
import type { CustomDomainStore } from '../lambda/domain/custom-domains';
import type { EdgeRoute, EdgeTenants } from '../lambda/domain/edge-tenants';
import { Refusal } from './failures';

/**
 * The migration of the old configuration file's domains (config/domains.json, deployed as
 * per-project API Gateway domains behind `<domain>.<cnameTargetDomain>`) to the domains
 * service, without downtime: each domain gets its record and its edge tenant, whose
 * certificate the platform validates where the domain points today (`self-hosted`). Only
 * once that certificate is issued does its old target become a CNAME to the edge.
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
  /** `created` (self-hosted validation), `exists`, `deferred` (local mode: npm start attaches it), or `failed`. */
  readonly tenant: 'created' | 'exists' | 'deferred' | 'failed' | 'skipped';
  /** The certificate's state at the edge, when asked. */
  readonly certificate?: string;
  /** The old per-domain target. */
  readonly oldTarget: string;
  /** Once the certificate is issued: the record change that moves the traffic to the edge. */
  readonly recordChange?: string;
  readonly reason?: string;
}

export interface ImportOptions {
  readonly store: CustomDomainStore;
  /** The edge; without it (local mode, whose edge lives in npm start) tenants are left to npm start. */
  readonly edge?: EdgeTenants;
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

/**
 * Imports every domain of the configuration, primaries first (redirects are routed to them).
 * Idempotent: a record or tenant that exists is left as it is, so a re-run only completes.
 */
export async function importDomains(
  config: OldDomainsConfig,
  options: ImportOptions,
): Promise<ImportedDomain[]> {
  const { store, edge, routingEndpoint } = options;
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
      if (!exists) {
        results.push({
          ...base,
          record: 'failed',
          tenant: 'skipped',
          reason: `no project ${project.name}: create it first (npm run projects -- create ${project.name} <plan>)`,
        });
        continue;
      }
      const stored = await store.get(name);
      if (stored && stored.project !== project.name) {
        results.push({
          ...base,
          record: 'failed',
          tenant: 'skipped',
          reason: `attached to project ${stored.project} already`,
        });
        continue;
      }
      if (role === 'redirect' && !primary) {
        results.push({
          ...base,
          record: 'failed',
          tenant: 'skipped',
          reason: 'a redirect without a primary domain to point at',
        });
        continue;
      }
      const route: EdgeRoute =
        role === 'redirect' && primary
          ? { project: project.name, role: 'redirect', primary: primary.name }
          : { project: project.name, role: 'serve' };
      // The tenant first: a record without one would be reported as failed by the service.
      let tenant: ImportedDomain['tenant'] = 'deferred';
      let certificate: string | undefined;
      if (edge) {
        try {
          const current = await edge.certificate(name);
          if (current.state === 'none') {
            await edge.attach(name, route, { validation: 'self-hosted' });
            tenant = 'created';
            certificate = (await edge.certificate(name)).state;
          } else {
            tenant = 'exists';
            certificate = current.state;
          }
        } catch (error) {
          results.push({
            ...base,
            record: stored ? 'exists' : 'failed',
            tenant: 'failed',
            reason: error instanceof Error ? error.message : String(error),
          });
          continue;
        }
      }
      let record: ImportedDomain['record'] = 'exists';
      if (!stored) {
        const now = new Date(options.clock()).toISOString();
        const domain: CustomDomain = {
          name,
          project: project.name,
          role,
          state: 'certificate-pending',
          since: now,
          addedAt: now,
          attached: true,
          certificate: 'pending',
          // Live on the old target: it has served traffic, so removing it needs the confirmation.
          servedAt: now,
          migratedFrom: base.oldTarget,
          version: 1,
        };
        record = (await store.create(domain)) ? 'created' : 'exists';
      }
      results.push({
        ...base,
        record,
        tenant,
        ...(certificate ? { certificate } : {}),
        ...(certificate === 'issued'
          ? { recordChange: recordChangeOf(base.oldTarget, routingEndpoint) }
          : {}),
      });
    }
  }
  return results;
}

/** One line per imported domain, as the tool prints it. */
export function describeImport(result: ImportedDomain): string {
  const head = `${result.domain} (project ${result.project}, ${result.role})`;
  if (result.reason) return `${head}: not imported: ${result.reason}.`;
  const tenant = {
    created: 'tenant created (self-hosted validation)',
    exists: 'tenant exists',
    deferred: 'tenant at the next npm start',
    failed: 'tenant failed',
    skipped: 'no tenant',
  }[result.tenant];
  const certificate = result.certificate ? `, certificate ${result.certificate}` : '';
  const next = result.recordChange
    ? ` Now change: ${result.recordChange}.`
    : ` Keep ${result.oldTarget} as it is until the certificate is issued (status --all shows the change then).`;
  return `${head}: record ${result.record}, ${tenant}${certificate}.${next}`;
}
