import type { CustomDomain } from '../../../lambda/domain/custom-domain';
import { CustomDomains, type ProjectRef } from '../../../lambda/domain/custom-domains';
import type { DnsLookup } from '../../../lambda/domain/dns-verdict';
import type {
  EdgeCertificate,
  EdgeDnsCheck,
  EdgeRoute,
  EdgeTenants,
} from '../../../lambda/domain/edge-tenants';
import { DomainError } from '../../../lambda/domain/errors';
import { CustomDomainRepository } from '../../../lambda/store/custom-domain-repository';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/**
 * The service's rules where the edge decides: its own DNS check, its failures, its stale
 * tenants, and writes that lose a race. The store is the embedded one; DNS answers a CNAME to
 * the target for every name (the verdicts themselves are tested against a real DNS server in
 * test/e2e/custom-domains-dns.test.ts); the edge is a recording stand-in for the port.
 */

const TARGET = 'domains.platform.test';

class RecordingEdge implements EdgeTenants {
  readonly routes = new Map<string, EdgeRoute>();
  certificateState: EdgeCertificate = { state: 'pending' };
  dnsCheck: EdgeDnsCheck | undefined;
  failing = false;
  readonly calls: string[] = [];

  private call(name: string): void {
    this.calls.push(name);
    if (this.failing) throw new Error('ThrottlingException: Rate exceeded');
  }

  async attach(domain: string, route: EdgeRoute) {
    this.call(`attach ${domain}`);
    this.routes.set(domain, route);
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
  async conflict() {
    return undefined;
  }
  async detach(domain: string) {
    this.call(`detach ${domain}`);
    this.routes.delete(domain);
  }
  async tenants() {
    return [...this.routes.keys()];
  }
}

const cnameToTarget: DnsLookup = {
  cname: async (name) => (name === TARGET ? [] : [TARGET]),
  a: async () => ['192.0.2.1'],
  aaaa: async () => [],
  caa: async () => [],
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
  project = { name: `p${counter}`, plan: 'pro' };
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

  edge.certificateState = { state: 'timed-out', reason: 'no CNAME' };
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
  expect(await repository.get(name('shop'))).toMatchObject({
    state: 'pending-dns',
    attached: false,
    version: 1,
  });
});

it('removes the record even when the tenant cannot be deleted now, and the sweep deletes it later', async () => {
  await service.add(project, { name: name('shop') });
  await service.verify(project, name('shop'));
  edge.failing = true;

  expect(await service.remove(project, name('shop'))).toEqual({ name: name('shop'), tenant: 'pending' });
  expect(await repository.get(name('shop'))).toBeUndefined();

  edge.failing = false;
  expect(await service.cleanUpStaleTenants()).toEqual([name('shop')]);
  expect(edge.routes.size).toBe(0);
});

it('refuses a write based on a stale read (domain_busy), so a slower request never undoes a faster one', async () => {
  await service.add(project, { name: name('shop') });
  const stale = (await repository.get(name('shop'))) as CustomDomain;
  await service.verify(project, name('shop'));

  expect(await repository.update({ ...stale, state: 'failed', version: stale.version + 1 })).toBe(false);
  expect(await repository.get(name('shop'))).toMatchObject({ state: 'certificate-pending', version: 2 });
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
