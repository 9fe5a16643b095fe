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
  servingState,
} from './custom-domain';
import { REMOVE_CONFIRMATION } from './custom-domain-record';
import { type DnsExpectation, type DnsLookup, explainVerdict, observe, verdictOf } from './dns-verdict';
import {
  type EdgeCertificate,
  type EdgeRoute,
  type EdgeTenants,
  type OwnCertificate,
  type StaleTenantSweep,
  sweepStaleTenants,
} from './edge-tenants';
import { DomainError } from './errors';
import { PLAN_NAMES, PLANS } from './plans';
import type { Project } from './project';

/**
 * The domains service's rules (the backend of the dashboard's Domains settings): a project
 * adds its domains, verifies them, picks the primary, makes redirects and removes them. It
 * acts over ports: the stored domains, the edge's tenants, DNS, and a clock.
 */

/** What the service needs of storage: one record per name, whichever project holds it. */
export interface CustomDomainStore {
  /** The domain of that name (a strongly consistent read). */
  get(name: string): Promise<CustomDomain | undefined>;
  /** A project's domains. */
  listByProject(project: string): Promise<CustomDomain[]>;
  /** Stores a new domain; false when the name is attached already, to any project. */
  create(domain: CustomDomain): Promise<boolean>;
  /** Replaces the domain; false unless the stored one is of the same project at `version - 1`. */
  update(domain: CustomDomain): Promise<boolean>;
  /** Deletes the project's domain; false when that project has no such domain. */
  delete(name: string, project: string): Promise<boolean>;
  /**
   * The domain the project's primary claim names (a strongly consistent read; the project
   * index is not), undefined when none is claimed. The claim is what makes exactly one
   * domain the primary when two are added at once.
   */
  claimedPrimary(project: string): Promise<string | undefined>;
  /**
   * Makes the claim name `name`, only if it still names `expected` (undefined: only if there
   * is no claim); false when another request changed it first.
   */
  claimPrimary(project: string, name: string, expected: string | undefined): Promise<boolean>;
  /** Drops the project's claim if it names `name` (the last domain's removal). */
  releasePrimary(project: string, name: string): Promise<void>;
}

export { REMOVE_CONFIRMATION };

/** The project a request acts for. */
export type ProjectRef = Pick<Project, 'name' | 'plan'>;

export interface CustomDomainsOptions {
  readonly store: CustomDomainStore;
  readonly edge: EdgeTenants;
  readonly dns: DnsLookup;
  /** Milliseconds since the epoch. */
  readonly clock: () => number;
  /** The spec's `{platform_cname_target}`: every custom domain is a CNAME (or ALIAS) to it. */
  readonly target: string;
  /** The platform's own domain: names under it are refused. */
  readonly platformDomain: string;
}

/** The outcome of a verification: the domain after it, and the verdict in the tenant's words. */
export interface Verification {
  readonly domain: DomainView;
  readonly verified: boolean;
  /** The DNS verdict (tools/domains.ts names), or `edge-dns-invalid` when only the edge's check failed. */
  readonly verdict: string;
  readonly summary: string;
  readonly fix: string;
}

/** Where an imported domain stands after {@link CustomDomains.advanceImport}. */
export interface ImportProgress {
  readonly domain: CustomDomain;
  /** Its certificate of its own, with the validation record the certificate authority looks for. */
  readonly certificate: OwnCertificate;
}

export interface Removal {
  readonly name: string;
  /** `pending`: the edge could not delete the tenant now; the stale-tenant sweep will. */
  readonly tenant: 'deleted' | 'pending';
}

const ROLE_ORDER = { primary: 0, additional: 1, redirect: 2 } as const;

/** Reads and conditional writes of the primary claim before a request gives up (each lost one means another request moved it). */
const CLAIM_ATTEMPTS = 3;

function byRoleThenName(a: CustomDomain, b: CustomDomain): number {
  return ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || a.name.localeCompare(b.name);
}

/** A name as typed, in the stored form when it can be one (a lookup never refuses: unknown is 404). */
function lookupName(name: string): string {
  const lower = name.trim().toLowerCase().replace(/\.$/, '');
  return domainToASCII(lower) || lower;
}

type Changes = Partial<Omit<CustomDomain, 'name' | 'project' | 'version' | 'since' | 'addedAt'>>;

export class CustomDomains {
  constructor(private readonly options: CustomDomainsOptions) {}

  /** The project's domains, primary first; certificates still pending are asked about at the edge. */
  async list(project: ProjectRef): Promise<DomainView[]> {
    const domains = await this.options.store.listByProject(project.name);
    const current = await Promise.all(
      domains.map((domain) => {
        if (domain.state !== 'certificate-pending') return domain;
        if (domain.attached) return this.refreshCertificate(domain);
        return domain.migratedFrom ? this.refreshImport(domain) : domain;
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
    const primary = await this.primaryOf(project.name);
    if (request.redirect && primary === undefined) {
      throw new DomainError(
        'domain_role_conflict',
        `Project ${project.name} has no primary domain for ${name} to redirect to: add the primary domain first.`,
      );
    }
    const elsewhere = await this.edgeCall(() => edge.conflict(name));
    if (elsewhere !== undefined) {
      throw new DomainError(
        'domain_taken',
        `${name} is in use elsewhere (${elsewhere}): remove it there, then add it here.`,
      );
    }
    const now = this.now();
    // Stored as additional, and promoted only once it holds the project's primary claim: two
    // first adds at once both store, and exactly one wins the claim.
    const domain: CustomDomain = {
      name,
      project: project.name,
      role: request.redirect ? 'redirect' : 'additional',
      state: 'pending-dns',
      since: now,
      addedAt: now,
      attached: false,
      certificate: 'none',
      version: 1,
    };
    if (!(await store.create(domain))) {
      throw new DomainError('domain_taken', `${name} was attached to a project a moment ago.`);
    }
    if (request.redirect || primary !== undefined || !(await this.claimFirst(project.name, name))) {
      return this.view(domain);
    }
    return this.view(await this.promote(domain));
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
      const check = await this.edgeCall(() => edge.checkDns(domain.name));
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
      after = (await this.advanceImport(domain, { renew: true })).domain;
    } else if (kind === 'migration-pending') {
      after = domain;
    } else if (!verified) {
      const waiting =
        kind === 'not-found' &&
        !domain.servedAt &&
        Date.parse(this.now()) - Date.parse(domain.addedAt) < DNS_PROPAGATION_MS;
      after = waiting
        ? await this.save(domain, { state: 'pending-dns' })
        : await this.save(domain, {
            state: 'failed',
            reason: kind === 'not-found' ? `${summary} ${fix}` : summary,
          });
    } else if (!domain.attached) {
      await this.edgeCall(async () => edge.attach(domain.name, await this.routeOf(domain)));
      after = await this.save(domain, {
        state: 'certificate-pending',
        attached: true,
        certificate: 'pending',
      });
    } else {
      const certificate = await this.edgeCall(() => edge.certificate(domain.name));
      if (certificate.state === 'issued' || certificate.state === 'pending') {
        after = await this.save(domain, this.afterCertificate(domain, certificate));
      } else {
        // Timed out, failed or gone: a fresh request, and the 30 minutes start again.
        await this.edgeCall(async () =>
          certificate.state === 'none'
            ? edge.attach(domain.name, await this.routeOf(domain))
            : edge.renewCertificate(domain.name),
        );
        after = await this.save(
          domain,
          { state: 'certificate-pending', certificate: 'pending' },
          { restart: true },
        );
      }
    }
    return { domain: this.view(after), verified, verdict: kind, summary, fix };
  }

  /**
   * Moves on a domain imported from the old per-domain targets that has no tenant yet. Its
   * certificate of its own is requested when it has none (and, with `renew`, again when it
   * failed or timed out); once issued, the tenant is created with it and the domain serves
   * (active, or redirect), so its old target can move to the edge. Pending, it stays
   * certificate-pending; failed or timed out, it fails with the reason and the fix. The old
   * target still serves it meanwhile. Idempotent: the import's re-runs and the service share it.
   */
  async advanceImport(domain: CustomDomain, { renew = false } = {}): Promise<ImportProgress> {
    const { edge } = this.options;
    let current = domain;
    let certificate = domain.certificateArn
      ? await this.edgeCall(() => edge.ownCertificate(domain.certificateArn ?? ''))
      : undefined;
    const settled = certificate?.state === 'issued' || certificate?.state === 'pending';
    if (!certificate || (renew && !settled)) {
      const replacing = certificate?.arn;
      certificate = await this.edgeCall(() => edge.requestOwnCertificate(domain.name, replacing));
      current = await this.save(
        current,
        { state: 'certificate-pending', certificate: 'pending', certificateArn: certificate.arn },
        { restart: replacing !== undefined },
      );
    }
    const { arn } = certificate;
    switch (certificate.state) {
      case 'issued': {
        await this.edgeCall(async () =>
          edge.attach(domain.name, await this.routeOf(current), { certificateArn: arn }),
        );
        current = await this.save(current, {
          state: servingState(current.role),
          attached: true,
          certificate: 'issued',
          ...(current.servedAt ? {} : { servedAt: this.now() }),
        });
        break;
      }
      case 'pending':
        current = await this.save(current, { state: 'certificate-pending', certificate: 'pending' });
        break;
      default: {
        const record = certificate.validationRecord;
        const keep = record
          ? `keep the validation record ${record.name} CNAME ${record.value} at the domain's DNS`
          : "check the domain's DNS and CAA records";
        current = await this.save(current, {
          state: 'failed',
          certificate: certificate.state === 'timed-out' ? 'timed-out' : 'failed',
          reason: `The certificate for moving ${domain.name} to the edge was not issued (${certificate.reason ?? certificate.state}): ${keep}, then choose Re-verify to request it again. The domain still serves from its old target meanwhile.`,
        });
      }
    }
    return { domain: current, certificate };
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
      await this.edgeCall(() => edge.reroute(domain.name, serve));
    }
    await this.save(domain, {
      role: 'primary',
      ...(domain.state === 'redirect' ? { state: 'active' as const } : {}),
    });
    if (former) await this.save(former, { role: 'additional' });
    const toPrimary: EdgeRoute = { project: project.name, role: 'redirect', primary: domain.name };
    for (const redirect of others.filter((other) => other.role === 'redirect' && other.attached)) {
      await this.edgeCall(() => edge.reroute(redirect.name, toPrimary));
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
    const route = await this.routeOf({ ...domain, role: 'redirect' });
    if (domain.attached) await this.edgeCall(() => this.options.edge.reroute(domain.name, route));
    const after = await this.save(domain, {
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
    return this.edgeCall(() =>
      sweepStaleTenants(edge, async (name) => (await store.get(name)) !== undefined),
    );
  }

  /**
   * The project's primary domain: the one its claim names while that domain is the project's
   * (strongly consistent), else a primary the project index shows (stored before claims existed).
   */
  private async primaryOf(project: string): Promise<string | undefined> {
    const { store } = this.options;
    const claimed = await store.claimedPrimary(project);
    if (claimed !== undefined && (await store.get(claimed))?.project === project) return claimed;
    return (await this.unclaimedPrimary(project, claimed))?.name;
  }

  /** A primary the index shows that still stands (a consistent read), other than the claim's. */
  private async unclaimedPrimary(
    project: string,
    claimed: string | undefined,
  ): Promise<CustomDomain | undefined> {
    const { store } = this.options;
    const listed = (await store.listByProject(project)).find(
      (other) => other.role === 'primary' && other.name !== claimed,
    );
    if (!listed) return undefined;
    const current = await store.get(listed.name);
    return current?.project === project && current.role === 'primary' ? current : undefined;
  }

  /**
   * Claims the project's primary for `name`, a domain just stored: true when it won. A claim
   * that names another live domain of the project stands; one whose domain is gone is taken over.
   */
  private async claimFirst(project: string, name: string): Promise<boolean> {
    const { store } = this.options;
    for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt += 1) {
      const claimed = await store.claimedPrimary(project);
      if (claimed === name) return true;
      if (claimed !== undefined && (await store.get(claimed))?.project === project) return false;
      const older = await this.unclaimedPrimary(project, name);
      if (older) {
        // A primary stored before claims existed keeps its role, and gets the claim.
        await store.claimPrimary(project, older.name, claimed);
        return false;
      }
      if (await store.claimPrimary(project, name, claimed)) return true;
    }
    return false;
  }

  /** Makes a domain that won the claim the primary (a concurrent write to it is read again). */
  private async promote(domain: CustomDomain): Promise<CustomDomain> {
    let current = domain;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.save(current, { role: 'primary' });
      } catch (error) {
        const fresh = await this.options.store.get(domain.name);
        if (attempt >= CLAIM_ATTEMPTS || fresh?.project !== domain.project) throw error;
        if (fresh.role === 'primary') return fresh;
        current = fresh;
      }
    }
  }

  private now(): string {
    return new Date(this.options.clock()).toISOString();
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

  private async routeOf(domain: CustomDomain): Promise<EdgeRoute> {
    if (domain.role !== 'redirect') return { project: domain.project, role: 'serve' };
    const primary = await this.primaryOf(domain.project);
    if (primary === undefined) {
      throw new DomainError(
        'domain_role_conflict',
        `Project ${domain.project} has no primary domain for ${domain.name} to redirect to: add or choose one first.`,
      );
    }
    return { project: domain.project, role: 'redirect', primary };
  }

  private afterCertificate(domain: CustomDomain, certificate: EdgeCertificate): Changes {
    switch (certificate.state) {
      case 'issued':
        return {
          state: servingState(domain.role),
          certificate: 'issued',
          ...(domain.servedAt ? {} : { servedAt: this.now() }),
        };
      case 'pending':
        return { state: 'certificate-pending', certificate: 'pending' };
      case 'timed-out':
        return {
          state: 'failed',
          certificate: 'timed-out',
          reason: `The certificate was not issued in time${certificate.reason ? ` (${certificate.reason})` : ''}: check the DNS record, then choose Re-verify to request it again.`,
        };
      case 'failed':
        return {
          state: 'failed',
          certificate: 'failed',
          reason: `The certificate could not be issued${certificate.reason ? ` (${certificate.reason})` : ''}: choose Re-verify to request it again.`,
        };
      case 'none':
        return {
          state: 'failed',
          attached: false,
          certificate: 'none',
          reason: 'The edge has no tenant for this domain: choose Re-verify.',
        };
    }
  }

  /** A certificate-pending domain, moved on by what the edge says of its certificate (undefined: removed meanwhile). */
  private async refreshCertificate(domain: CustomDomain): Promise<CustomDomain | undefined> {
    const certificate = await this.edgeCall(() => this.options.edge.certificate(domain.name));
    if (certificate.state === 'pending') return domain;
    try {
      return await this.save(domain, this.afterCertificate(domain, certificate));
    } catch (error) {
      // Another request moved it on first: show what it wrote.
      if (error instanceof DomainError && error.kind === 'domain_busy') {
        const current = await this.options.store.get(domain.name);
        return current?.project === domain.project ? current : undefined;
      }
      throw error;
    }
  }

  /** An imported domain waiting for its certificate, moved on by what the edge says of it (undefined: removed meanwhile). */
  private async refreshImport(domain: CustomDomain): Promise<CustomDomain | undefined> {
    try {
      return (await this.advanceImport(domain)).domain;
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'domain_busy') {
        const current = await this.options.store.get(domain.name);
        return current?.project === domain.project ? current : undefined;
      }
      throw error;
    }
  }

  /** Writes the changes (a new `since` when the state changes, or on `restart`), refusing a lost race. */
  private async save(
    domain: CustomDomain,
    changes: Changes,
    { restart = false } = {},
  ): Promise<CustomDomain> {
    const state = changes.state ?? domain.state;
    const next: CustomDomain = {
      ...domain,
      ...changes,
      since: state !== domain.state || restart ? this.now() : domain.since,
      version: domain.version + 1,
    };
    if (state !== 'failed') delete (next as { reason?: string }).reason;
    const unchanged = (Object.keys(next) as (keyof CustomDomain)[]).every(
      (key) => key === 'version' || next[key] === domain[key],
    );
    if (unchanged && Object.keys(next).length === Object.keys(domain).length) return domain;
    if (!(await this.options.store.update(next))) {
      throw new DomainError('domain_busy', `${domain.name} changed while this request ran: retry.`);
    }
    return next;
  }

  /** Runs an edge call; a failure of the edge itself is reported as the edge being unavailable. */
  private async edgeCall<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw new DomainError('edge_unavailable', 'The edge cannot answer now: retry in a moment.', {
        cause: error,
      });
    }
  }
}
