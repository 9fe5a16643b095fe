import { domainToASCII } from 'node:url';
import {
  type CustomDomain,
  describeDomain,
  type DomainView,
  DNS_PROPAGATION_MS,
  isApexDomain,
  isServing,
  MAX_DOMAINS_PER_PROJECT,
  normalizeDomainName,
  registrableDomain,
} from './custom-domain';
import { afterCertificate, refreshCertificate } from './custom-domain-certificates';
import { REMOVE_CONFIRMATION, type Verification } from './custom-domain-record';
import { type CustomDomainsOptions, edgeCall, now, save } from './custom-domains-ports';
import { type DnsExpectation, explainVerdict, observe, verdictOf } from './dns-verdict';
import { type EdgeRoute, type StaleTenantSweep, sweepStaleTenants } from './edge-tenants';
import { DomainError } from './errors';
import { advanceImport, type ImportProgress, refreshImport } from './imported-domains';
import { PLAN_NAMES, PLANS } from './plans';
import { claimFirst, primaryOf, promote, routeOf } from './primary-claim';
import type { Project } from './project';

/**
 * The domains service's rules (the backend of the dashboard's Domains settings): a project
 * adds its domains, verifies them, picks the primary, makes redirects and removes them. It
 * acts over ports: the stored domains, the edge's tenants, DNS, and a clock
 * (custom-domains-ports.ts). Its parts live beside it: the primary claim (primary-claim.ts), the
 * certificate transitions (custom-domain-certificates.ts) and the imported-domain path
 * (imported-domains.ts).
 */

export { REMOVE_CONFIRMATION };
export type { Verification };
// Importers take the ports and the import's progress from here, beside the service.
export type { CustomDomainsOptions, CustomDomainStore } from './custom-domains-ports';
export type { ImportProgress } from './imported-domains';

/** The project a request acts for. */
export type ProjectRef = Pick<Project, 'name' | 'plan'>;

export interface Removal {
  readonly name: string;
  /** `pending`: the edge could not delete the tenant now; the stale-tenant sweep will. */
  readonly tenant: 'deleted' | 'pending';
}

const ROLE_ORDER = { primary: 0, additional: 1, redirect: 2 } as const;

function byRoleThenName(a: CustomDomain, b: CustomDomain): number {
  return ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || a.name.localeCompare(b.name);
}

/** A name as typed, in the stored form when it can be one (a lookup never refuses: unknown is 404). */
function lookupName(name: string): string {
  const lower = name.trim().toLowerCase().replace(/\.$/, '');
  return domainToASCII(lower) || lower;
}

export class CustomDomains {
  constructor(private readonly options: CustomDomainsOptions) {}

  /** The project's domains, primary first; certificates still pending are asked about at the edge. */
  async list(project: ProjectRef): Promise<DomainView[]> {
    const domains = await this.options.store.listByProject(project.name);
    const current = await Promise.all(
      domains.map((domain) => {
        if (domain.state !== 'certificate-pending') return domain;
        if (domain.attached) return refreshCertificate(this.options, domain);
        return domain.migratedFrom ? refreshImport(this.options, domain) : domain;
      }),
    );
    return current
      .filter((domain): domain is CustomDomain => domain !== undefined)
      .sort(byRoleThenName)
      .map((domain) => this.view(domain));
  }

  /**
   * Adds a domain in pending-dns: the first becomes the primary, `redirect` adds a 301 to the
   * primary, others are additional. Refused on a plan without custom domains, for a name that is
   * not a domain of one's own, for a name attached to any project or in use elsewhere at the edge.
   */
  async add(project: ProjectRef, request: { name: string; redirect?: boolean }): Promise<DomainView> {
    const { store, edge, platformDomain } = this.options;
    const plan = PLANS[project.plan];
    if (!plan.customDomains) {
      const paid = PLAN_NAMES.filter((name) => PLANS[name].customDomains).map((name) => PLANS[name].title);
      throw new DomainError(
        'plan_without_custom_domains',
        `Custom domains are available on any paid plan (${paid[0] ?? 'Pro'} or above), and project ${project.name} is on the ${plan.title} plan: upgrade it to ${paid.join(', ')}, then add the domain.`,
      );
    }
    const name = normalizeDomainName(request.name, platformDomain);
    const existing = await store.get(name);
    if (existing) {
      throw new DomainError(
        'domain_taken',
        existing.project === project.name
          ? `${name} is a domain of project ${project.name} already.`
          : `${name} is attached to another project: a domain serves one project only. If it is yours, remove it there first.`,
      );
    }
    const domains = await store.listByProject(project.name);
    if (domains.length >= MAX_DOMAINS_PER_PROJECT) {
      throw new DomainError(
        'too_many_domains',
        `Project ${project.name} has ${domains.length} custom domains, the most one project may have: remove one first.`,
      );
    }
    const primary = await primaryOf(this.options, project.name);
    if (request.redirect && primary === undefined) {
      throw new DomainError(
        'domain_role_conflict',
        `Project ${project.name} has no primary domain for ${name} to redirect to: add the primary domain first.`,
      );
    }
    const elsewhere = await edgeCall(() => edge.conflict(name));
    if (elsewhere !== undefined) {
      throw new DomainError(
        'domain_taken',
        `${name} is in use elsewhere (${elsewhere}): remove it there, then add it here.`,
      );
    }
    const addedAt = now(this.options);
    // Stored as additional, and promoted only once it holds the project's primary claim: two
    // first adds at once both store, and exactly one wins the claim.
    const domain: CustomDomain = {
      name,
      project: project.name,
      role: request.redirect ? 'redirect' : 'additional',
      state: 'pending-dns',
      since: addedAt,
      addedAt,
      attached: false,
      certificate: 'none',
      version: 1,
    };
    if (!(await store.create(domain))) {
      throw new DomainError('domain_taken', `${name} was attached to a project a moment ago.`);
    }
    if (request.redirect || primary !== undefined || !(await claimFirst(this.options, project.name, name))) {
      return this.view(domain);
    }
    return this.view(await promote(this.options, domain));
  }

  /**
   * Checks the domain's DNS (and, where the edge has one, the edge's own check). Verified, a
   * domain without a tenant gets one and its certificate is requested (certificate-pending); a
   * certificate that timed out or failed is requested again. Not verified, it stays pending-dns
   * within 48 hours of adding when nothing is there yet, else fails with the verdict's reason.
   */
  async verify(project: ProjectRef, requested: string): Promise<Verification> {
    const { dns, edge, target } = this.options;
    const domain = await this.owned(project, requested);
    const expectation: DnsExpectation = {
      domain: domain.name,
      zone: registrableDomain(domain.name),
      apex: isApexDomain(domain.name),
      target,
      ...(domain.migratedFrom ? { migratedFrom: domain.migratedFrom } : {}),
    };
    let verdict;
    try {
      verdict = verdictOf(expectation, await observe(dns, expectation));
    } catch (error) {
      throw new DomainError('dns_unavailable', `DNS could not be asked about ${domain.name}`, {
        cause: error,
      });
    }
    let { summary, fix } = explainVerdict(expectation, verdict);
    let kind: string = verdict.kind;
    if (verdict.kind === 'verified') {
      const check = await edgeCall(() => edge.checkDns(domain.name));
      if (check && !check.valid) {
        kind = 'edge-dns-invalid';
        summary = `Not verified: the edge does not see ${domain.name} pointing at ${target}${check.reason ? ` (${check.reason})` : ''}.`;
        fix = `Keep the ${expectation.apex ? 'ALIAS/ANAME' : 'CNAME'} ${domain.name} → ${target} as the name's only record, wait for DNS to propagate, then re-verify.`;
      }
    }
    const verified = kind === 'verified';
    let after: CustomDomain;
    if (domain.migratedFrom && !domain.attached) {
      // Still served where it was (the old target): its tenant waits for its own certificate,
      // whatever the DNS says; one that failed or timed out is requested again.
      after = (await advanceImport(this.options, domain, { renew: true })).domain;
    } else if (kind === 'migration-pending') {
      after = domain;
    } else if (!verified) {
      const waiting =
        kind === 'not-found' &&
        !domain.servedAt &&
        Date.parse(now(this.options)) - Date.parse(domain.addedAt) < DNS_PROPAGATION_MS;
      after = waiting
        ? await save(this.options, domain, { state: 'pending-dns' })
        : await save(this.options, domain, {
            state: 'failed',
            reason: kind === 'not-found' ? `${summary} ${fix}` : summary,
          });
    } else if (!domain.attached) {
      await edgeCall(async () => edge.attach(domain.name, await routeOf(this.options, domain)));
      after = await save(this.options, domain, {
        state: 'certificate-pending',
        attached: true,
        certificate: 'pending',
      });
    } else {
      const certificate = await edgeCall(() => edge.certificate(domain.name));
      if (certificate.state === 'issued' || certificate.state === 'pending') {
        after = await save(this.options, domain, afterCertificate(this.options, domain, certificate));
      } else {
        // Timed out, failed or gone: a fresh request, and the 30 minutes start again.
        await edgeCall(async () =>
          certificate.state === 'none'
            ? edge.attach(domain.name, await routeOf(this.options, domain))
            : edge.renewCertificate(domain.name),
        );
        after = await save(
          this.options,
          domain,
          { state: 'certificate-pending', certificate: 'pending' },
          { restart: true },
        );
      }
    }
    return { domain: this.view(after), verified, verdict: kind, summary, fix };
  }

  /**
   * Moves on an imported domain that has no tenant yet, towards serving from the edge with its
   * certificate of its own ({@link advanceImport} in imported-domains.ts says how).
   */
  advanceImport(domain: CustomDomain, { renew = false } = {}): Promise<ImportProgress> {
    return advanceImport(this.options, domain, { renew });
  }

  /**
   * Makes a domain the project's primary: the former primary becomes additional, and every
   * redirect now points at the new one. Once the project has a primary, only a domain that is
   * serving can become it, so redirects never point at a name that does not answer.
   */
  async setPrimary(project: ProjectRef, requested: string): Promise<DomainView[]> {
    const { edge, store } = this.options;
    const domain = await this.owned(project, requested);
    if (domain.role === 'primary') return this.list(project);
    const others = (await store.listByProject(project.name)).filter((other) => other.name !== domain.name);
    // The claim names the primary even when the index does not show it yet.
    const claimed = await store.claimedPrimary(project.name);
    const holder = claimed === undefined || claimed === domain.name ? undefined : await store.get(claimed);
    const former =
      holder?.project === project.name && holder.role === 'primary'
        ? holder
        : others.find((other) => other.role === 'primary');
    if (former && !isServing(domain)) {
      throw new DomainError(
        'domain_role_conflict',
        `${domain.name} does not serve yet (${domain.state}): verify it until it is active, then make it the primary.`,
      );
    }
    // The claim moves first: of two requests choosing different primaries, one is refused.
    if (!(await store.claimPrimary(project.name, domain.name, claimed))) {
      throw new DomainError(
        'domain_busy',
        `The primary of project ${project.name} changed while this request ran: retry.`,
      );
    }
    const serve: EdgeRoute = { project: project.name, role: 'serve' };
    if (domain.attached && domain.role === 'redirect') {
      await edgeCall(() => edge.reroute(domain.name, serve));
    }
    await save(this.options, domain, {
      role: 'primary',
      ...(domain.state === 'redirect' ? { state: 'active' as const } : {}),
    });
    if (former) await save(this.options, former, { role: 'additional' });
    const toPrimary: EdgeRoute = { project: project.name, role: 'redirect', primary: domain.name };
    for (const redirect of others.filter((other) => other.role === 'redirect' && other.attached)) {
      await edgeCall(() => edge.reroute(redirect.name, toPrimary));
    }
    return this.list(project);
  }

  /** Makes a domain answer 301 to the primary, keeping path and query (never the primary itself). */
  async makeRedirect(project: ProjectRef, requested: string): Promise<DomainView> {
    const domain = await this.owned(project, requested);
    if (domain.role === 'redirect') return this.view(domain);
    if (domain.role === 'primary') {
      throw new DomainError(
        'domain_role_conflict',
        `${domain.name} is the primary domain, which redirects point at: make another domain primary first.`,
      );
    }
    const route = await routeOf(this.options, { ...domain, role: 'redirect' });
    if (domain.attached) await edgeCall(() => this.options.edge.reroute(domain.name, route));
    const after = await save(this.options, domain, {
      role: 'redirect',
      ...(domain.state === 'active' ? { state: 'redirect' as const } : {}),
    });
    return this.view(after);
  }

  /**
   * Removes a domain: its record first, so the service refuses the host at once, then its
   * tenant. A domain that has served traffic and is not itself a redirect (whose visitors
   * were sent on to the primary) needs `confirm` = {@link REMOVE_CONFIRMATION}; the primary
   * goes last.
   */
  async remove(project: ProjectRef, requested: string, confirm?: string): Promise<Removal> {
    const { store, edge } = this.options;
    const domain = await this.owned(project, requested);
    if (domain.role === 'primary') {
      const others = (await store.listByProject(project.name)).filter((other) => other.name !== domain.name);
      if (others.length > 0) {
        throw new DomainError(
          'domain_role_conflict',
          `${domain.name} is the primary domain of project ${project.name}: make another domain primary first (${others[0]?.name}), or remove the others.`,
        );
      }
    }
    if (domain.servedAt && domain.role !== 'redirect' && confirm !== REMOVE_CONFIRMATION) {
      throw new DomainError(
        'confirmation_required',
        `${domain.name} has served traffic and no redirect covers it: traffic to it stops immediately. If its URL is shared, make it a redirect first and remove it later; to remove it now, confirm with confirm=${REMOVE_CONFIRMATION}.`,
      );
    }
    if (!(await store.delete(domain.name, project.name))) throw this.notFound(project, requested);
    if (domain.role === 'primary') await store.releasePrimary(project.name, domain.name);
    if (!domain.attached) return { name: domain.name, tenant: 'deleted' };
    try {
      await edge.detach(domain.name);
      return { name: domain.name, tenant: 'deleted' };
    } catch {
      // The record is gone, so the host is refused already; the sweep deletes the tenant later.
      return { name: domain.name, tenant: 'pending' };
    }
  }

  /**
   * Deletes the edge's tenants whose domain has no record (a removal whose detach failed),
   * going on past a deletion the edge refuses (each is reported). Scheduled in AWS
   * (lib/constructs/stale-tenant-cleanup.ts).
   */
  async cleanUpStaleTenants(): Promise<StaleTenantSweep> {
    const { store, edge } = this.options;
    return edgeCall(() => sweepStaleTenants(edge, async (name) => (await store.get(name)) !== undefined));
  }

  private view(domain: CustomDomain): DomainView {
    return describeDomain(domain, this.options.target, this.options.clock());
  }

  private notFound(project: ProjectRef, requested: string): DomainError {
    return new DomainError(
      'domain_not_found',
      `${JSON.stringify(requested)} is not a custom domain of project ${project.name}.`,
    );
  }

  /** The project's domain of that name; another project's is not found either, so names never leak. */
  private async owned(project: ProjectRef, requested: string): Promise<CustomDomain> {
    const domain = await this.options.store.get(lookupName(requested));
    if (!domain || domain.project !== project.name) throw this.notFound(project, requested);
    return domain;
  }
}
