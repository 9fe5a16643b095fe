import {
  type CustomDomain,
  MAX_DOMAINS_PER_PROJECT,
} from '../../../../lambda/core/custom-domains/custom-domain';
import {
  type CustomDomainStore,
  CustomDomains,
  type ProjectRef,
  REMOVE_CONFIRMATION,
} from '../../../../lambda/core/custom-domains/custom-domains';
import type { DnsLookup } from '../../../../lambda/core/custom-domains/dns-verdict';
import type { TxtLookup } from '../../../../lambda/core/custom-domains/domain-ownership';
import type {
  AttachOptions,
  EdgeCertificate,
  EdgeDnsCheck,
  EdgeRoute,
  EdgeTenants,
  OwnCertificate,
} from '../../../../lambda/core/custom-domains/edge-tenants';
import { DomainError } from '../../../../lambda/core/errors';
import {
  newTargetId,
  ownershipToken,
  projectTarget,
} from '../../../../lambda/core/custom-domains/project-target';
import { CustomDomainRepository } from '../../../../lambda/store/custom-domain-repository';
import { LOCAL_TABLE_NAMES } from '../../../../local/local-tables';
import { startTestStore, type TestStore } from '../../../support/embedded-store';

/**
 * The service's rules where the edge decides: its own DNS check, its failures, its stale
 * tenants, and writes that lose a race. The store is the embedded one; DNS answers a CNAME to
 * the target for every name (the verdicts themselves are tested against a real DNS server in
 * test/e2e/custom-domains-dns.test.ts); the edge is a recording stand-in for the port.
 */

const TARGET = 'domains.platform.test';

class RecordingEdge implements EdgeTenants {
  readonly routes = new Map<string, EdgeRoute>();
  /** The certificate of its own each attached tenant serves with (an imported domain's). */
  readonly ownCertificates = new Map<string, string>();
  certificateState: EdgeCertificate = { state: 'pending' };
  /** What the certificate authority says of certificates of one's own, by ARN. */
  readonly own = new Map<string, OwnCertificate>();
  requested = 0;
  dnsCheck: EdgeDnsCheck | undefined;
  failing = false;
  readonly calls: string[] = [];

  private call(name: string): void {
    this.calls.push(name);
    if (this.failing) throw new Error('ThrottlingException: Rate exceeded');
  }

  async attach(domain: string, route: EdgeRoute, options: AttachOptions = {}) {
    this.call(`attach ${domain}${options.certificateArn ? ` with ${options.certificateArn}` : ''}`);
    this.routes.set(domain, route);
    if (options.certificateArn) this.ownCertificates.set(domain, options.certificateArn);
  }
  async requestOwnCertificate(domain: string, replacing?: string) {
    this.call(`request ${domain}${replacing ? ` replacing ${replacing}` : ''}`);
    this.requested += 1;
    const arn = `arn:aws:acm:us-east-1:123456789012:certificate/${this.requested}`;
    const requested: OwnCertificate = {
      arn,
      state: 'pending',
      validationRecord: { name: `_x.${domain}`, value: '_y.acm-validations.aws' },
    };
    this.own.set(arn, requested);
    return requested;
  }
  async ownCertificate(arn: string) {
    this.call(`describe ${arn}`);
    return this.own.get(arn) ?? { arn, state: 'none' as const };
  }
  async reroute(domain: string, route: EdgeRoute) {
    this.call(`reroute ${domain}`);
    this.routes.set(domain, route);
  }
  async certificate(domain: string) {
    this.call(`certificate ${domain}`);
    return this.routes.has(domain) ? this.certificateState : { state: 'none' as const };
  }
  async renewCertificate(domain: string) {
    this.call(`renew ${domain}`);
  }
  async checkDns(domain: string) {
    this.call(`checkDns ${domain}`);
    return this.dnsCheck;
  }
  async detach(domain: string) {
    this.call(`detach ${domain}`);
    this.routes.delete(domain);
  }
  async tenants() {
    return [...this.routes.keys()];
  }
}

/** The target of the test's current project. */
const ownTarget = () => projectTarget(project.targetId ?? '', TARGET);

const cnameToTarget: DnsLookup & TxtLookup = {
  cname: async (name) => (name.endsWith(TARGET) ? [] : [ownTarget()]),
  a: async () => ['192.0.2.1'],
  aaaa: async () => [],
  caa: async () => [],
  txt: async () => [],
};

let store: TestStore;
let repository: CustomDomainRepository;
let edge: RecordingEdge;
let service: CustomDomains;
let project: ProjectRef;
let counter = 0;

beforeAll(async () => {
  store = await startTestStore();
  repository = new CustomDomainRepository(store.documents, LOCAL_TABLE_NAMES.customDomains);
});

afterAll(async () => {
  await store.close();
});

beforeEach(() => {
  edge = new RecordingEdge();
  service = new CustomDomains({
    store: repository,
    edge,
    dns: cnameToTarget,
    clock: () => Date.parse('2025-01-01T00:00:00Z'),
    target: TARGET,
    platformDomain: 'platform.test',
  });
  counter += 1;
  project = { name: `p${counter}`, plan: 'pro', targetId: newTargetId() };
});

const name = (label: string) => `${label}.p${counter}.example.com`;

it("holds the verdict back when the edge's own DNS check fails (CloudFront's VerifyDnsConfiguration)", async () => {
  await service.add(project, { name: name('shop') });
  edge.dnsCheck = { valid: false, reason: 'invalid-configuration' };

  const outcome = await service.verify(project, name('shop'));

  expect(outcome).toMatchObject({
    verified: false,
    verdict: 'edge-dns-invalid',
    domain: { state: 'failed' },
  });
  expect(edge.routes.size).toBe(0);
});

it('attaches once, renews a timed-out certificate on re-verify, and leaves an issued one alone', async () => {
  await service.add(project, { name: name('shop') });
  await service.verify(project, name('shop'));
  expect(edge.routes.get(name('shop'))).toEqual({ project: project.name, role: 'serve' });

  edge.certificateState = { state: 'timed-out', cause: 'validation-timed-out', validatedBy: 'http' };
  expect(await service.list(project)).toEqual([
    expect.objectContaining({ state: 'failed', certificate: 'timed-out' }),
  ]);
  await service.verify(project, name('shop'));
  edge.certificateState = { state: 'issued' };
  await service.verify(project, name('shop'));

  expect(edge.calls.filter((call) => !call.startsWith('checkDns'))).toEqual([
    `attach ${name('shop')}`,
    `certificate ${name('shop')}`,
    `certificate ${name('shop')}`,
    `renew ${name('shop')}`,
    `certificate ${name('shop')}`,
  ]);
  expect(await service.list(project)).toEqual([expect.objectContaining({ state: 'active' })]);
});

it('reports an edge that cannot answer as unavailable, and changes nothing', async () => {
  await service.add(project, { name: name('shop') });
  edge.failing = true;

  await expect(service.verify(project, name('shop'))).rejects.toMatchObject({ kind: 'edge_unavailable' });
  expect(await repository.getClaim(name('shop'), project.name)).toMatchObject({
    state: 'pending-dns',
    attached: false,
    // Stored as additional (1), then made the primary once it won the project's claim (2).
    version: 2,
  });
});

it('removes the record even when the tenant cannot be deleted now, and the sweep deletes it later', async () => {
  await service.add(project, { name: name('shop') });
  await service.verify(project, name('shop'));
  edge.failing = true;

  expect(await service.remove(project, name('shop'))).toEqual({ name: name('shop'), tenant: 'pending' });
  expect(await repository.get(name('shop'))).toBeUndefined();

  edge.failing = false;
  expect(await service.cleanUpStaleTenants()).toEqual({ deleted: [name('shop')], refused: [] });
  expect(edge.routes.size).toBe(0);
});

it('sweeps past a tenant the edge refuses to delete, and reports it', async () => {
  await service.add(project, { name: name('a') });
  await service.add(project, { name: name('b') });
  await service.verify(project, name('a'));
  await service.verify(project, name('b'));
  // Both records gone (a crash, or removals whose detach failed), their tenants left.
  await repository.delete(name('a'), project.name);
  await repository.delete(name('b'), project.name);
  const detach = edge.detach.bind(edge);
  edge.detach = async (domain) => {
    if (domain === name('a'))
      throw new DomainError('edge_unavailable', `The tenant of ${domain} is not disabled yet.`);
    return detach(domain);
  };

  expect(await service.cleanUpStaleTenants()).toEqual({
    deleted: [name('b')],
    refused: [{ domain: name('a'), reason: `The tenant of ${name('a')} is not disabled yet.` }],
  });
  expect([...edge.routes.keys()]).toEqual([name('a')]);
});

/** A barrier: each of `parties` callers waits until all have arrived; later callers pass. */
function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let release: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    release = resolve;
  });
  return async () => {
    arrived += 1;
    if (arrived >= parties) release();
    if (arrived <= parties) await all;
  };
}

/**
 * The store, with the first reads of every concurrent add held until all of them have read:
 * each sees a project with no domain and no primary, as two requests do when the project index
 * (eventually consistent in DynamoDB) has not caught up. Deterministic: the writes then race
 * for real on the embedded store, which applies each conditional write atomically.
 */
function racingStore(parties: number): CustomDomainStore {
  const listed = barrier(parties);
  const claimRead = barrier(parties);
  return {
    get: (domain) => repository.get(domain),
    getClaim: (domain, owner) => repository.getClaim(domain, owner),
    takeName: (domain, previous) => repository.takeName(domain, previous),
    putClaim: (domain) => repository.putClaim(domain),
    deleteClaim: (domain, owner) => repository.deleteClaim(domain, owner),
    domainCount: (owner) => repository.domainCount(owner),
    startDomainCount: (owner, count) => repository.startDomainCount(owner, count),
    reserveDomain: (owner, max) => repository.reserveDomain(owner, max),
    releaseDomain: (owner) => repository.releaseDomain(owner),
    listByProject: async (owner) => {
      const domains = await repository.listByProject(owner);
      await listed();
      return domains;
    },
    create: (domain) => repository.create(domain),
    update: (domain) => repository.update(domain),
    delete: (domain, owner) => repository.delete(domain, owner),
    claimedPrimary: async (owner) => {
      const claimed = await repository.claimedPrimary(owner);
      await claimRead();
      return claimed;
    },
    claimPrimary: (owner, domain, expected) => repository.claimPrimary(owner, domain, expected),
    releasePrimary: (owner, domain) => repository.releasePrimary(owner, domain),
  };
}

it('makes exactly one primary of simultaneous first adds, whatever the index shows each', async () => {
  const parties = 4;
  const racing = new CustomDomains({
    store: racingStore(parties),
    edge,
    dns: cnameToTarget,
    clock: () => Date.parse('2025-01-01T00:00:00Z'),
    target: TARGET,
    platformDomain: 'platform.test',
  });
  const names = ['w', 'x', 'y', 'z'].map(name);

  const added = await Promise.all(names.map((domain) => racing.add(project, { name: domain })));

  expect(added.filter((view) => view.role === 'primary')).toHaveLength(1);
  const stored = await repository.listByProject(project.name);
  expect(stored.map((domain) => domain.role).sort()).toEqual([
    'additional',
    'additional',
    'additional',
    'primary',
  ]);
  const primary = stored.find((domain) => domain.role === 'primary')?.name;
  expect(await repository.claimedPrimary(project.name)).toBe(primary);
  // The primary claim and the domain count are the table's only other items, never listed as domains.
  expect((await repository.all()).filter((domain) => domain.project === project.name)).toHaveLength(4);
});

it('moves the claim with the primary, and frees it with the last removal', async () => {
  await service.add(project, { name: name('first') });
  await service.add(project, { name: name('second') });
  edge.certificateState = { state: 'issued' };
  await service.verify(project, name('second'));
  await service.verify(project, name('second'));
  await service.setPrimary(project, name('second'));
  expect(await repository.claimedPrimary(project.name)).toBe(name('second'));

  await service.remove(project, name('first'));
  await service.remove(project, name('second'), REMOVE_CONFIRMATION);
  expect(await repository.claimedPrimary(project.name)).toBeUndefined();
  expect(await service.add(project, { name: name('third') })).toMatchObject({ role: 'primary' });
});

it('takes over a claim whose domain is gone (a removal that stopped half way)', async () => {
  await repository.claimPrimary(project.name, name('vanished'), undefined);

  expect(await service.add(project, { name: name('next') })).toMatchObject({ role: 'primary' });
  expect(await repository.claimedPrimary(project.name)).toBe(name('next'));
});

it('refuses a write based on a stale read (domain_busy), so a slower request never undoes a faster one', async () => {
  await service.add(project, { name: name('shop') });
  const stale = (await repository.getClaim(name('shop'), project.name)) as CustomDomain;
  await service.verify(project, name('shop'));

  expect(await repository.update({ ...stale, state: 'failed', version: stale.version + 1 })).toBe(false);
  expect(await repository.get(name('shop'))).toMatchObject({ state: 'certificate-pending', version: 4 });
});

it('keeps roles consistent: a redirect needs a primary, the primary is never a redirect nor removed first', async () => {
  await expect(service.add(project, { name: name('www'), redirect: true })).rejects.toMatchObject({
    kind: 'domain_role_conflict',
  });
  await service.add(project, { name: name('shop') });
  await service.add(project, { name: name('www'), redirect: true });

  await expect(service.makeRedirect(project, name('shop'))).rejects.toThrow(DomainError);
  await expect(service.remove(project, name('shop'))).rejects.toMatchObject({ kind: 'domain_role_conflict' });
  // A pending domain cannot take over as primary: redirects would point at a name that does not answer.
  await service.add(project, { name: name('new') });
  await expect(service.setPrimary(project, name('new'))).rejects.toMatchObject({
    kind: 'domain_role_conflict',
  });
});

describe('a domain imported from the old per-domain targets', () => {
  const ARN = (n: number) => `arn:aws:acm:us-east-1:123456789012:certificate/${n}`;

  async function imported(label: string, role: CustomDomain['role'] = 'primary'): Promise<CustomDomain> {
    const domain: CustomDomain = {
      name: name(label),
      project: project.name,
      role,
      state: 'certificate-pending',
      since: '2025-01-01T00:00:00.000Z',
      addedAt: '2025-01-01T00:00:00.000Z',
      attached: false,
      certificate: 'pending',
      servedAt: '2025-01-01T00:00:00.000Z',
      migratedFrom: `${name(label)}.tenants.platform.test`,
      version: 1,
    };
    expect(await repository.create(domain)).toBe(true);
    if (role === 'primary') await repository.claimPrimary(project.name, domain.name, undefined);
    return domain;
  }

  it('gets its own certificate first, and its tenant with it only once that is issued', async () => {
    const domain = await imported('shop');
    const first = await service.advanceImport(domain);
    expect(first.certificate).toMatchObject({
      arn: ARN(1),
      state: 'pending',
      validationRecord: { name: `_x.${domain.name}`, value: '_y.acm-validations.aws' },
    });
    expect(first.domain).toMatchObject({
      state: 'certificate-pending',
      attached: false,
      certificateArn: ARN(1),
    });
    expect(edge.routes.has(domain.name)).toBe(false);

    // The project's list asks again: still pending, nothing attached; a second request never made.
    await service.list(project);
    expect(edge.requested).toBe(1);
    expect(edge.routes.has(domain.name)).toBe(false);

    edge.own.set(ARN(1), { arn: ARN(1), state: 'issued' });
    const [view] = await service.list(project);
    expect(view).toMatchObject({ name: domain.name, state: 'active', certificate: 'issued' });
    expect(edge.calls).toContain(`attach ${domain.name} with ${ARN(1)}`);
    expect(edge.routes.get(domain.name)).toEqual({ project: project.name, role: 'serve' });
    expect(await repository.get(domain.name)).toMatchObject({ attached: true, certificateArn: ARN(1) });
  });

  it('routes an imported redirect to the primary the claim names', async () => {
    const primary = await imported('shop');
    const redirect = await imported('www', 'redirect');
    edge.own.set(ARN(1), { arn: ARN(1), state: 'issued' });
    await repository.update({ ...redirect, certificateArn: ARN(1), version: 2 });
    const { domain } = await service.advanceImport((await repository.get(redirect.name)) as CustomDomain);
    expect(domain).toMatchObject({ state: 'redirect', attached: true });
    expect(edge.routes.get(redirect.name)).toEqual({
      project: project.name,
      role: 'redirect',
      primary: primary.name,
    });
  });

  it('fails with the reason and the fix when the certificate times out, and re-verify requests a new one', async () => {
    const domain = await imported('shop');
    await service.advanceImport(domain);
    edge.own.set(ARN(1), {
      arn: ARN(1),
      state: 'timed-out',
      cause: 'validation-timed-out',
      validatedBy: 'dns',
      validationRecord: { name: `_x.${domain.name}`, value: '_y.acm-validations.aws' },
    });
    const [failed] = await service.list(project);
    expect(failed).toMatchObject({ state: 'failed', certificate: 'timed-out' });
    expect(failed?.reason).toContain('ACM did not find the validation CNAME within 72 hours');
    expect(failed?.reason).toContain(
      `keep the validation record _x.${domain.name} CNAME _y.acm-validations.aws`,
    );
    expect(failed?.reason).toContain('still serves from its old target');

    const verification = await service.verify(project, domain.name);
    expect(edge.calls).toContain(`request ${domain.name} replacing ${ARN(1)}`);
    expect(verification.domain).toMatchObject({ state: 'certificate-pending', certificate: 'pending' });
    expect(await repository.get(domain.name)).toMatchObject({ certificateArn: ARN(2), attached: false });
  });

  it('keeps the record when the edge cannot answer (throttled), and goes on from it later', async () => {
    const domain = await imported('shop');
    edge.failing = true;
    await expect(service.advanceImport(domain)).rejects.toMatchObject({ kind: 'edge_unavailable' });
    expect(await repository.get(domain.name)).toEqual(domain);
    edge.failing = false;
    expect((await service.advanceImport(domain)).domain.certificateArn).toBe(ARN(1));
  });
});

describe('the cap of domains per project', () => {
  it(`holds at ${MAX_DOMAINS_PER_PROJECT} under 100 simultaneous adds: a conditional counter, not a read-then-write`, async () => {
    const adds = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) => service.add(project, { name: name(`n${i}`) })),
    );

    const stored = await repository.listByProject(project.name);
    expect(stored).toHaveLength(MAX_DOMAINS_PER_PROJECT);
    expect(adds.filter((add) => add.status === 'fulfilled')).toHaveLength(MAX_DOMAINS_PER_PROJECT);
    const refusals = adds.flatMap((add) => (add.status === 'rejected' ? [add.reason as DomainError] : []));
    expect(new Set(refusals.map((refusal) => refusal.kind))).toEqual(new Set(['too_many_domains']));
    expect(await repository.domainCount(project.name)).toBe(MAX_DOMAINS_PER_PROJECT);
    // 100 requests' writes against one embedded store, on a machine shared by other runs.
  }, 180_000);

  it('counts a removal, so the place can be taken again', async () => {
    for (let i = 0; i < MAX_DOMAINS_PER_PROJECT; i += 1) await service.add(project, { name: name(`m${i}`) });
    await expect(service.add(project, { name: name('over') })).rejects.toMatchObject({
      kind: 'too_many_domains',
    });

    await service.remove(project, name('m1'));
    expect(await service.add(project, { name: name('over') })).toMatchObject({ name: name('over') });
  });
});

it('advises as the next primary only a domain that can be primary, never a failed one', async () => {
  edge.certificateState = { state: 'issued' };
  await service.add(project, { name: name('shop') });
  await service.verify(project, name('shop'));
  await service.verify(project, name('shop'));
  await service.add(project, { name: name('broken') });
  edge.dnsCheck = { valid: false, reason: 'invalid-configuration' };
  expect((await service.verify(project, name('broken'))).domain.state).toBe('failed');
  edge.dnsCheck = undefined;

  const refused = service.remove(project, name('shop'));
  await expect(refused).rejects.toMatchObject({ kind: 'domain_role_conflict' });
  await expect(refused).rejects.not.toThrow(name('broken'));

  await service.add(project, { name: name('zeta') });
  await service.verify(project, name('zeta'));
  await service.verify(project, name('zeta'));
  await expect(service.remove(project, name('shop'))).rejects.toThrow(
    `make another domain primary first (${name('zeta')})`,
  );
  expect(await service.setPrimary(project, name('zeta'))).toContainEqual(
    expect.objectContaining({ name: name('zeta'), role: 'primary' }),
  );
});

it('leaves one owner when two projects whose proofs both hold verify at once, the other keeping its claim', async () => {
  const other: ProjectRef = { name: `${project.name}-q`, plan: 'pro', targetId: newTargetId() };
  const apex = `race-${counter}.example`;
  const tokens = [project, other].map((p) => ownershipToken(p.targetId ?? ''));
  // An apex with the edge's addresses and both projects' TXT proofs: each proof holds.
  const both = new CustomDomains({
    store: repository,
    edge,
    dns: { ...cnameToTarget, cname: async () => [], txt: async () => tokens },
    clock: () => Date.parse('2025-01-01T00:00:00Z'),
    target: TARGET,
    platformDomain: 'platform.test',
  });
  await both.add(project, { name: apex });
  await both.add(other, { name: apex });

  const outcomes = await Promise.allSettled([both.verify(project, apex), both.verify(other, apex)]);

  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject({ kind: 'domain_busy' });
  }
  const owner = await repository.get(apex);
  expect([project.name, other.name]).toContain(owner?.project);
  const loser = owner?.project === project.name ? other : project;
  expect(await repository.getClaim(apex, loser.name)).toMatchObject({ claim: true, project: loser.name });
});
