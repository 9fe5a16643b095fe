import type { AuditEntry } from '../../../../lambda/core/audit';
import { actorKey, actorText } from '../../../../lambda/core/audit';
import {
  type CustomDomainStore,
  CustomDomains,
  type ProjectRef,
} from '../../../../lambda/core/custom-domains/custom-domains';
import { CLAIM_WINDOW_MS } from '../../../../lambda/core/custom-domains/domain-claims';
import type { DnsLookup } from '../../../../lambda/core/custom-domains/dns-verdict';
import type { TxtLookup } from '../../../../lambda/core/custom-domains/domain-ownership';
import type { EdgeTenants } from '../../../../lambda/core/custom-domains/edge-tenants';
import { newTargetId } from '../../../../lambda/core/custom-domains/project-target';
import { domainRuleAudit } from '../../../../lambda/operations/domain-rule-audit';
import { AuditLogRepository } from '../../../../lambda/store/audit-log-repository';
import { CustomDomainRepository } from '../../../../lambda/store/custom-domain-repository';
import { LOCAL_TABLE_NAMES } from '../../../../local/local-tables';
import { startTestStore, type TestStore } from '../../../support/embedded-store';

/**
 * A claim's release, as its project's audit log records it (issue 28), over the embedded store:
 * of two lists that both find a claim past its window, exactly one releases it and records
 * `domain.release` (the delete is conditional), and a log that cannot be written leaves the
 * release made. Adds and lists ask neither the edge nor DNS: those ports refuse any question.
 */

let store: TestStore;
let domains: CustomDomainRepository;
let auditLog: AuditLogRepository;
let counter = 0;

beforeAll(async () => {
  store = await startTestStore();
  domains = new CustomDomainRepository(store.documents, LOCAL_TABLE_NAMES.customDomains);
  auditLog = new AuditLogRepository(store.documents, LOCAL_TABLE_NAMES.auditLog);
});

afterAll(() => store.close());

const START = Date.parse('2031-03-04T05:06:00.000Z');
const unasked = new Proxy(
  {},
  {
    get: (_, question) => () => {
      throw new Error(`${String(question)} was asked: adds and lists ask neither the edge nor DNS`);
    },
  },
);

function service(options: { store?: CustomDomainStore; log?: AuditLogRepository; clock: () => number }) {
  return new CustomDomains({
    store: options.store ?? domains,
    edge: unasked as EdgeTenants,
    dns: unasked as DnsLookup & TxtLookup,
    clock: options.clock,
    target: 'domains.platform.test',
    platformDomain: 'platform.test',
    ruleEvents: domainRuleAudit(options.log ?? auditLog, options.clock),
  });
}

function newProject(): ProjectRef {
  counter += 1;
  return { name: `rule-${counter}-${Date.now().toString(36)}`, plan: 'pro', targetId: newTargetId() };
}

/** The store, with every listing held until `parties` requests have listed: all see the same claims. */
function listingTogether(parties: number): CustomDomainStore {
  let arrived = 0;
  let all: () => void = () => undefined;
  const together = new Promise<void>((resolve) => {
    all = resolve;
  });
  return new Proxy(domains, {
    get: (target, property, receiver) => {
      const member = Reflect.get(target, property, receiver) as unknown;
      if (typeof member !== 'function') return member;
      if (property !== 'listByProject') return member.bind(target);
      return async (project: string) => {
        const listed = await domains.listByProject(project);
        arrived += 1;
        if (arrived >= parties) all();
        await together;
        return listed;
      };
    },
  });
}

async function logOf(project: string): Promise<AuditEntry[]> {
  return [...(await auditLog.read(project, { limit: 100 })).entries];
}

it('releases a claim once, and records it once, when two lists find it past its window together', async () => {
  let now = START;
  const clock = () => now;
  const project = newProject();
  await service({ clock }).add(project, { name: `${project.name}.shop.test` });
  expect(await domains.domainCount(project.name)).toBe(1);
  now += CLAIM_WINDOW_MS;

  const racing = service({ store: listingTogether(2), clock });
  const lists = await Promise.all([racing.list(project), racing.list(project)]);

  expect(lists).toEqual([[], []]);
  // One place freed, not two.
  expect(await domains.domainCount(project.name)).toBe(0);
  const entries = await logOf(project.name);
  expect(entries).toEqual([
    {
      project: project.name,
      entryId: expect.any(String),
      at: new Date(now).toISOString(),
      actor: { kind: 'platform', rule: 'claim-window' },
      action: 'domain.release',
      target: `${project.name}.shop.test`,
      outcome: { result: 'success' },
    },
  ]);
  expect(actorKey(entries[0]?.actor ?? { kind: 'console-token' })).toBe('rule:claim-window');
  expect(actorText(entries[0]?.actor ?? { kind: 'console-token' })).toMatch(/^the platform: .*window/);
});

it('releases the claim all the same when its entry cannot be written', async () => {
  let now = START;
  const clock = () => now;
  const project = newProject();
  const brokenLog = new AuditLogRepository(store.documents, 'no-such-audit-table');
  await service({ clock }).add(project, { name: `${project.name}.shop.test` });
  now += CLAIM_WINDOW_MS;

  await expect(service({ clock, log: brokenLog }).list(project)).resolves.toEqual([]);
  expect(await domains.listByProject(project.name)).toEqual([]);
  expect(await logOf(project.name)).toEqual([]);
});
