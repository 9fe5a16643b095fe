import { domainToASCII } from 'node:url';
import {
  type CustomDomain,
  describeDomain,
  type DomainView,
  isApexDomain,
  isServing,
  normalizeDomainName,
} from './custom-domain';
import { refreshCertificate } from './custom-domain-certificates';
import { verifyDomain } from './custom-domain-verification';
import { type Removal, REMOVE_CONFIRMATION, type Verification } from './custom-domain-record';
import {
  type CustomDomainsOptions,
  edgeCall,
  now,
  recordOf,
  save,
  saveDecision,
} from './custom-domains-ports';
import { decide, newRecord } from './lifecycle';
import { isReleasable, ownedElsewhereNotice, release, releasedWords, reservePlace } from './domain-claims';
import { ownershipDnsRecord } from './domain-ownership';
import { type EdgeRoute, type StaleTenantSweep, sweepStaleTenants } from './edge-tenants';
import { DomainError } from '../errors';
import { advanceImport, type ImportProgress, refreshImport } from './imported-domains';
import { PLAN_NAMES, PLANS } from '../plans';
import { claimFirst, primaryOf, promote, routeOf } from './primary-claim';
import type { Project } from '../project';
import { newTargetId, ownershipToken, projectTarget } from './project-target';

/**
 * The domains service's rules (the backend of the dashboard's Domains settings): a project
 * adds its domains, verifies them, picks the primary, makes redirects and removes them. It
 * acts over ports: the stored domains, the edge's tenants, DNS, and a clock
 * (custom-domains-ports.ts). Its parts live beside it: who owns a name (domain-ownership.ts,
 * domain-claims.ts), the verification (custom-domain-verification.ts), the primary claim
 * (primary-claim.ts), the certificate transitions (custom-domain-certificates.ts) and the
 * imported-domain path (imported-domains.ts).
 */

export { REMOVE_CONFIRMATION };
export type { Removal, Verification };
// Importers take the ports and the import's progress from here, beside the service.
export type { CustomDomainsOptions, CustomDomainStore } from './custom-domains-ports';
export type { ImportProgress } from './imported-domains';

/** The project a request acts for. */
export type ProjectRef = Pick<Project, 'name' | 'plan' | 'targetId'>;

/** What a request shows and checks of the project: its own target and its ownership token. */
interface Proofs {
  readonly target: string;
  readonly token: string;
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
    const proofs = await this.proofsOf(project);
    const domains = await this.options.store.listByProject(project.name);
    const nowMs = this.options.clock();
    // A pending claim on a name another project owns says so (never which project).
    const elsewhere = new Set<string>();
    const current = await Promise.all(
      domains.map(async (domain) => {
        if (isReleasable(domain, nowMs)) {
          // Released by another request meanwhile (or changed): shows what it left.
          if (await release(this.options, domain)) return undefined;
          return recordOf(this.options, domain.name, domain.project);
        }
        if (domain.claim && domain.state === 'pending-dns' && (await this.options.store.get(domain.name))) {
          elsewhere.add(domain.name);
        }
        if (domain.state !== 'certificate-pending') return domain;
        if (domain.attached) return refreshCertificate(this.options, domain);
        return domain.migratedFrom ? refreshImport(this.options, domain) : domain;
      }),
    );
    return current
      .filter((domain): domain is CustomDomain => domain !== undefined)
      .sort(byRoleThenName)
      .map((domain) => {
        const view = this.view(domain, proofs);
        return elsewhere.has(domain.name)
          ? { ...view, notices: [...view.notices, ownedElsewhereNotice(domain.name)] }
          : view;
      });
  }

  /**
   * Adds a domain in pending-dns, as the project's claim: the first becomes the primary,
   * `redirect` adds a 301 to the primary, others are additional. A name another project has,
   * pending or verified, can be claimed too: the first project whose DNS proof holds at verify
   * time owns it. Refused on a plan without custom domains, for a name that is not a domain of
   * one's own, one the project has already, and past the cap. A name in use elsewhere at the
   * edge is refused at verify, when its tenant is created (CloudFront's CNAMEAlreadyExists).
   */
  async add(project: ProjectRef, request: { name: string; redirect?: boolean }): Promise<DomainView> {
    const { platformDomain } = this.options;
    const plan = PLANS[project.plan];
    if (!plan.customDomains) {
      const paid = PLAN_NAMES.filter((name) => PLANS[name].customDomains).map((name) => PLANS[name].title);
      throw new DomainError(
        'plan_without_custom_domains',
        `Custom domains are available on any paid plan (${paid[0] ?? 'Pro'} or above), and project ${project.name} is on the ${plan.title} plan: upgrade it to ${paid.join(', ')}, then add the domain.`,
      );
    }
    const name = normalizeDomainName(request.name, platformDomain);
    const proofs = await this.proofsOf(project);
    const existing = await recordOf(this.options, name, project.name);
    if (
      existing &&
      !(isReleasable(existing, this.options.clock()) && (await release(this.options, existing)))
    ) {
      throw this.taken(project, name);
    }
    const primary = await primaryOf(this.options, project.name);
    if (request.redirect && primary === undefined) {
      throw new DomainError(
        'domain_role_conflict',
        `Project ${project.name} has no primary domain for ${name} to redirect to: add the primary domain first.`,
      );
    }
    await reservePlace(this.options, project.name);
    const addedAt = now(this.options);
    // Stored as additional, and promoted only once it holds the project's primary claim: two
    // first adds at once both store, and exactly one wins the claim.
    const domain = newRecord(decide(undefined, 'add', { now: addedAt }), {
      name,
      project: project.name,
      role: request.redirect ? 'redirect' : 'additional',
      addedAt,
      claim: true,
    });
    if (!(await this.options.store.create(domain))) {
      await this.options.store.releaseDomain(project.name);
      throw this.taken(project, name);
    }
    if (request.redirect || primary !== undefined || !(await claimFirst(this.options, project.name, name))) {
      return this.view(domain, proofs);
    }
    return this.view(await promote(this.options, domain), proofs);
  }

  /**
   * Checks the domain's DNS against the project's proof and moves it on: a claim whose proof
   * holds takes the name, a verified domain gets its tenant and certificate, and one that is not
   * stays pending or fails ({@link verifyDomain} in custom-domain-verification.ts says how).
   */
  async verify(project: ProjectRef, requested: string): Promise<Verification> {
    const proofs = await this.proofsOf(project);
    const domain = await this.owned(project, requested);
    const { after, ...outcome } = await verifyDomain(this.options, domain, proofs);
    return { domain: this.view(after, proofs), ...outcome };
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
    const holder =
      claimed === undefined || claimed === domain.name
        ? undefined
        : await recordOf(this.options, claimed, project.name);
    const former = holder?.role === 'primary' ? holder : others.find((other) => other.role === 'primary');
    const decision = decide(domain, 'set-primary', {
      now: now(this.options),
      otherPrimary: former !== undefined,
    });
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
    await saveDecision(this.options, domain, decision, { role: 'primary' });
    if (former) await save(this.options, former, { role: 'additional' });
    const toPrimary: EdgeRoute = { project: project.name, role: 'redirect', primary: domain.name };
    for (const redirect of others.filter((other) => other.role === 'redirect' && other.attached)) {
      await edgeCall(() => edge.reroute(redirect.name, toPrimary));
    }
    return this.list(project);
  }

  /** Makes a domain answer 301 to the primary, keeping path and query (never the primary itself). */
  async makeRedirect(project: ProjectRef, requested: string): Promise<DomainView> {
    const proofs = await this.proofsOf(project);
    const domain = await this.owned(project, requested);
    const decision = decide(domain, 'redirect', { now: now(this.options) });
    if (!decision.effects.includes('make-redirect')) return this.view(domain, proofs);
    const route = await routeOf(this.options, { ...domain, role: 'redirect' });
    if (domain.attached) await edgeCall(() => this.options.edge.reroute(domain.name, route));
    const after = await saveDecision(this.options, domain, decision, { role: 'redirect' });
    return this.view(after, proofs);
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
    const others =
      domain.role === 'primary'
        ? (await store.listByProject(project.name)).filter((other) => other.name !== domain.name)
        : [];
    const nextServing = others.find((other) => isServing(other))?.name;
    const { effects } = decide(domain, 'remove', {
      now: now(this.options),
      others: others.length,
      ...(nextServing ? { nextServing } : {}),
      confirmed: confirm === REMOVE_CONFIRMATION,
    });
    if (!(await store.delete(domain.name, project.name))) throw this.notFound(project, requested);
    await store.releaseDomain(project.name);
    if (effects.includes('release-primary')) await store.releasePrimary(project.name, domain.name);
    if (!effects.includes('detach')) return { name: domain.name, tenant: 'deleted' };
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

  /** The domain as the project sees it: the record names the project's own target; an apex shows its TXT proof too. */
  private view(domain: CustomDomain, { target, token }: Proofs): DomainView {
    const view = describeDomain(domain, target, this.options.clock());
    if (!isApexDomain(domain.name)) return view;
    const { apexFallback, ...rest } = view;
    return {
      ...rest,
      ownershipRecord: ownershipDnsRecord(domain.name, token),
      ...(apexFallback ? { apexFallback } : {}),
    };
  }

  /**
   * The project's target and ownership token. A project made before per-project targets gets
   * its target id here, once (a conditional write: concurrent requests agree on one).
   */
  private async proofsOf(project: ProjectRef): Promise<Proofs> {
    const targetId =
      project.targetId ?? (await this.options.projects?.assignTargetId(project.name, newTargetId()));
    if (targetId === undefined) throw new Error(`Project ${project.name} has no target id.`);
    return { target: projectTarget(targetId, this.options.target), token: ownershipToken(targetId) };
  }

  private notFound(project: ProjectRef, requested: string): DomainError {
    return new DomainError(
      'domain_not_found',
      `${JSON.stringify(requested)} is not a custom domain of project ${project.name}.`,
    );
  }

  private taken(project: ProjectRef, name: string): DomainError {
    return new DomainError('domain_taken', `${name} is a domain of project ${project.name} already.`);
  }

  /**
   * The project's record of that name (owned, or its claim); another project's is not found
   * either, so names never leak. A claim whose window has passed is released here.
   */
  private async owned(project: ProjectRef, requested: string): Promise<CustomDomain> {
    const domain = await recordOf(this.options, lookupName(requested), project.name);
    if (!domain) throw this.notFound(project, requested);
    if (isReleasable(domain, this.options.clock()) && (await release(this.options, domain))) {
      throw new DomainError('domain_not_found', releasedWords(domain.name));
    }
    return domain;
  }
}
