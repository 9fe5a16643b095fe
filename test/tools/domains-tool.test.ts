import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ACMClient, DescribeCertificateCommand } from '@aws-sdk/client-acm';
import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import dns2 from 'dns2';
import type { DomainsConfig } from '../../lib/config/domains';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { Refusal, runDomainsCommand } from '../../tools/domains';
import { issueConsoleToken, newUsageId } from '../../lambda/domain/project';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { DomainStateStore } from '../../tools/domains-store';

const { Packet } = dns2;

type DnsRecord =
  | { type: 'A' | 'AAAA'; address: string }
  | { type: 'CNAME'; domain: string }
  | { type: 'CAA'; flags: number; tag: string; value: string };

/** The records the loopback DNS server answers with; each test sets its own. */
let zone = new Map<string, DnsRecord[]>();

const TARGET_IP = '192.0.2.10';
const SHOP = 'shop.acme.test';
const APEX = 'acme.test';
const shopTarget = `${SHOP}.tenants.animalstore.test`;
const apexTarget = `${APEX}.tenants.animalstore.test`;

/** Answers like a recursive resolver: records of the type asked, following CNAMEs. */
function answer(name: string, type: number) {
  const answers: object[] = [];
  let current = name.toLowerCase();
  for (let hops = 0; hops < 8; hops += 1) {
    const records = zone.get(current) ?? [];
    const direct = records.filter((r) => Packet.TYPE[r.type] === type);
    const base = { name: current, class: Packet.CLASS.IN, ttl: 60 };
    if (direct.length > 0) {
      answers.push(...direct.map((r) => ({ ...base, ...r, type })));
      break;
    }
    const cname = records.find((r) => r.type === 'CNAME');
    if (!cname || type === Packet.TYPE.CNAME) break;
    answers.push({ ...base, type: Packet.TYPE.CNAME, domain: cname.domain });
    current = cname.domain;
  }
  return answers;
}

const server = dns2.createServer({
  udp: true,
  handle: (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const [question] = request.questions;
    if (question) response.answers.push(...(answer(question.name, question.type) as never[]));
    send(response);
  },
});

const acmMock = mockClient(ACMClient);
let store: TestStore;
let dir: string;
let configPath: string;
let resolver: string;
let now = new Date('2030-01-01T12:00:00Z');

const CONFIG: DomainsConfig = {
  platform: {
    domain: 'animalstore.test',
    hostedZone: { id: 'Z0PLATFORM', name: 'animalstore.test' },
    cnameTargetDomain: 'tenants.animalstore.test',
  },
  projects: [
    {
      name: 'acme',
      domains: [
        { name: SHOP, role: 'primary', zone: { name: APEX } },
        { name: APEX, role: 'additional', zone: { name: APEX } },
      ],
    },
    { name: 'hobby', domains: [] },
  ],
};

async function run(...argv: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runDomainsCommand([...argv, '--config', configPath], {
    out: (line) => lines.push(line),
    endpoint: store.store.endpoint,
    tableName: LOCAL_TABLE_NAMES.domains,
    configPath: 'unused.json',
    now: () => now,
    acm: new ACMClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
  });
  return { code, out: lines.join('\n') };
}

async function verdict(domain: string) {
  const { out } = await run('verify', domain, '--resolver', resolver, '--json');
  return JSON.parse(out) as { verdict: { kind: string }; summary: string; fix: string; state: string };
}

const savedConfig = () => JSON.parse(readFileSync(configPath, 'utf8')) as DomainsConfig;

beforeAll(async () => {
  store = await startTestStore();
  const { udp } = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  resolver = `127.0.0.1:${(udp as { port: number }).port}`;
  dir = mkdtempSync(path.join(os.tmpdir(), 'domains-tool-'));
  configPath = path.join(dir, 'domains.json');
  // The plans live in the projects table, as the projects tool stores them.
  const projects = new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects);
  for (const [name, plan] of [
    ['acme', 'pro'],
    ['hobby', 'free'],
  ] as const) {
    const now = new Date().toISOString();
    await projects.create({
      name,
      plan,
      createdAt: now,
      consoleTokenHash: issueConsoleToken(name).hash,
      consoleTokenIssuedAt: now,
      usageId: newUsageId(),
    });
  }
});

afterAll(async () => {
  await server.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  const { Items = [] } = await store.documents.send(
    new ScanCommand({ TableName: LOCAL_TABLE_NAMES.domains }),
  );
  for (const { id } of Items) {
    await store.documents.send(new DeleteCommand({ TableName: LOCAL_TABLE_NAMES.domains, Key: { id } }));
  }
  zone = new Map();
  acmMock.reset();
  now = new Date('2030-01-01T12:00:00Z');
  writeFileSync(configPath, JSON.stringify(CONFIG));
});

describe('domains verify against a DNS server on loopback', () => {
  test('verified subdomain: a CNAME to its platform target', async () => {
    zone.set(SHOP, [{ type: 'CNAME', domain: shopTarget }]);
    zone.set(shopTarget, [{ type: 'A', address: TARGET_IP }]);
    const { code, out } = await run('verify', SHOP, '--resolver', resolver);
    expect(code).toBe(0);
    expect(out).toContain(`Verified: ${SHOP} is a CNAME of ${shopTarget}.`);
    expect(out).toContain('State: active.');
  });

  test("verified apex: its addresses equal the target's, asked at the same moment", async () => {
    zone.set(APEX, [{ type: 'A', address: TARGET_IP }]);
    zone.set(apexTarget, [{ type: 'A', address: TARGET_IP }]);
    expect((await verdict(APEX)).verdict).toEqual({ kind: 'verified', via: 'apex-addresses' });
  });

  test('apex whose addresses differ from the target: both listed', async () => {
    zone.set(APEX, [{ type: 'A', address: '203.0.113.5' }]);
    zone.set(apexTarget, [{ type: 'A', address: TARGET_IP }]);
    const result = await verdict(APEX);
    expect(result.verdict).toEqual({ kind: 'apex-mismatch', found: ['203.0.113.5'], expected: [TARGET_IP] });
    expect(result.fix).toContain('ALIAS/ANAME');
  });

  test('a conflicting A record blocks the CNAME: the record is named', async () => {
    zone.set(SHOP, [{ type: 'A', address: '198.51.100.7' }]);
    const result = await verdict(SHOP);
    expect(result.verdict).toEqual({ kind: 'conflicting-record', records: [`${SHOP} A 198.51.100.7`] });
    expect(result.summary).toContain('blocks the CNAME');
    expect(result.state).toBe('failed');
  });

  test('a CNAME that points elsewhere: expected and found', async () => {
    zone.set(SHOP, [{ type: 'CNAME', domain: 'old-host.example.net' }]);
    zone.set('old-host.example.net', [{ type: 'A', address: '198.51.100.9' }]);
    const { code, out } = await run('verify', SHOP, '--resolver', resolver);
    expect(code).toBe(1);
    expect(out).toContain(`expected ${shopTarget}, found old-host.example.net`);
  });

  test('nothing found yet: says DNS can take up to 48 hours', async () => {
    const result = await verdict(SHOP);
    expect(result.verdict).toEqual({ kind: 'not-found' });
    expect(result.fix).toContain('up to 48 hours');
    expect(result.state).toBe('pending-dns');
  });

  test('a CAA record that forbids Amazon blocks: records listed, Amazon named', async () => {
    zone.set(SHOP, [{ type: 'CNAME', domain: shopTarget }]);
    zone.set(shopTarget, [{ type: 'A', address: TARGET_IP }]);
    zone.set(APEX, [{ type: 'CAA', flags: 0, tag: 'issue', value: 'letsencrypt.org' }]);
    const result = await verdict(SHOP);
    expect(result.verdict).toEqual({
      kind: 'caa-blocks',
      owner: APEX,
      records: ['0 issue "letsencrypt.org"'],
    });
    expect(result.fix).toContain('amazon.com, amazontrust.com, awstrust.com, amazonaws.com');
  });

  test('a CAA record that allows Amazon lets the domain verify', async () => {
    zone.set(SHOP, [{ type: 'CNAME', domain: shopTarget }]);
    zone.set(shopTarget, [{ type: 'A', address: TARGET_IP }]);
    zone.set(APEX, [{ type: 'CAA', flags: 0, tag: 'issue', value: 'amazon.com' }]);
    expect((await verdict(SHOP)).verdict.kind).toBe('verified');
  });

  test('a certificate pending in ACM for over 30 minutes prints the troubleshooting steps', async () => {
    const arn = 'arn:aws:acm:eu-west-1:123456789012:certificate/abc';
    await new DomainStateStore(store.documents, LOCAL_TABLE_NAMES.domains).put({
      id: SHOP,
      project: 'acme',
      state: 'pending-dns',
      since: now.toISOString(),
      certificateArn: arn,
    });
    acmMock.on(DescribeCertificateCommand, { CertificateArn: arn }).resolves({
      Certificate: {
        CertificateArn: arn,
        Status: 'PENDING_VALIDATION',
        CreatedAt: new Date(now.getTime() - 42 * 60_000),
        DomainValidationOptions: [
          {
            DomainName: SHOP,
            ResourceRecord: { Name: `_x1.${SHOP}.`, Type: 'CNAME', Value: '_y2.acm-validations.aws.' },
          },
        ],
      },
    });
    zone.set(SHOP, [{ type: 'CNAME', domain: shopTarget }]);
    zone.set(shopTarget, [{ type: 'A', address: TARGET_IP }]);
    const { out } = await run('reverify', SHOP, '--resolver', resolver);
    expect(out).toContain('pending for 42 minutes (more than 30)');
    expect(out).toContain('CAA records do not block the certificate authority');
    expect(out).toContain(`_x1.${SHOP}. CNAME _y2.acm-validations.aws.`);
    expect(out).toContain(`npm run domains -- reverify ${SHOP}`);
    expect(out).toContain('State: certificate pending.');

    acmMock
      .on(DescribeCertificateCommand)
      .resolves({ Certificate: { CertificateArn: arn, Status: 'ISSUED' } });
    expect((await verdict(SHOP)).state).toBe('active');
  });
});

describe('domains add, status, redirect, primary, remove', () => {
  test('add refuses on a Free plan, read from the projects table', async () => {
    await expect(run('add', 'hobby', 'pets.hobby.test')).rejects.toThrow(
      /Project hobby is on the free plan: custom domains need a paid plan \(pro, business, enterprise\)\. Upgrade it \(npm run projects -- set-plan hobby <plan>\)/,
    );
  });

  test("add refuses before the project's first successful deploy, then works once it is recorded", async () => {
    await expect(run('add', 'acme', 'api.acme.test')).rejects.toThrow(Refusal);
    await expect(run('add', 'acme', 'api.acme.test')).rejects.toThrow(/no successful deploy yet/);
    await run('deployed', 'acme');
    const { out } = await run('add', 'acme', 'api.acme.test');
    expect(out).toContain('Value  api.acme.test.tenants.animalstore.test');
    expect(out).toContain('TTL    3600');
    expect(out).toContain('Type   CNAME');
    expect(out).toContain(
      'npx cdk deploy -c domainsConfig=' + configPath + ' AnimalStore-production-domains-acme',
    );
    expect(savedConfig().projects[0]?.domains.at(-1)).toEqual({
      name: 'api.acme.test',
      role: 'additional',
      zone: { name: APEX },
    });
    const status = await run('status', 'acme');
    expect(status.out).toMatch(/acme {2}api\.acme\.test +additional {2}pending DNS +for less than a minute/);
  });

  test('status shows each state and how long it has been in it', async () => {
    zone.set(SHOP, [{ type: 'CNAME', domain: shopTarget }]);
    zone.set(shopTarget, [{ type: 'A', address: TARGET_IP }]);
    await run('verify', SHOP, '--resolver', resolver);
    now = new Date(now.getTime() + 125 * 60_000);
    const { out } = await run('status');
    expect(out).toMatch(/shop\.acme\.test +primary {5}active +for 2 h 5 min/);
  });

  test('remove asks for --yes when the domain still receives traffic and no redirect covers it', async () => {
    zone.set(APEX, [{ type: 'A', address: TARGET_IP }]);
    zone.set(apexTarget, [{ type: 'A', address: TARGET_IP }]);
    await run('verify', APEX, '--resolver', resolver);
    await expect(run('remove', APEX)).rejects.toThrow(/still receives traffic.*stops immediately/);
    expect(savedConfig().projects[0]?.domains.map((d) => d.name)).toContain(APEX);
    const { out } = await run('remove', APEX, '--yes');
    expect(out).toContain(`Removed ${APEX}`);
    expect(savedConfig().projects[0]?.domains.map((d) => d.name)).toEqual([SHOP]);
  });

  test('redirect --to-primary and primary change the roles in the configuration', async () => {
    const redirect = await run('redirect', APEX, '--to-primary');
    expect(redirect.out).toContain(`now answers 301 to https://${SHOP}`);
    await run('primary', APEX);
    expect(savedConfig().projects[0]?.domains.map((d) => [d.name, d.role])).toEqual([
      [SHOP, 'additional'],
      [APEX, 'primary'],
    ]);
  });
});
