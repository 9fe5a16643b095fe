import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  type CertificateStatus,
  createLocalCertificateAuthority,
  DEFAULT_PATIENCE_MS,
  type LocalCertificateAuthority,
} from '../../local/local-certificate-authority';
import { type SandboxDns, startSandboxDns } from '../../local/sandbox-dns';
import { type DnsLookup, resolverLookup } from '../../tools/domains-dns';

const TARGET = 'edge.animalstore.test';
const SHOP = 'shop.example.test';
const START = Date.UTC(2030, 0, 1, 12);
const DAY = 24 * 60 * 60_000;

let dns: SandboxDns;
/** Stands in for the edge's plain HTTP: answers what `served` holds for a host and path. */
let tokenServer: Server;
let served: Map<string, { status: number; body: string }>;
let fetched: { host: string | undefined; path: string | undefined }[];
let time: number;
let ca: LocalCertificateAuthority;

/** Serves a pending request's token, as the edge would. */
function serve(status: CertificateStatus): void {
  if (status.state !== 'pending-validation')
    throw new Error(`expected a pending request, got ${status.state}`);
  served.set(`${status.domain} ${status.validation.path}`, {
    status: 200,
    body: `${status.validation.content}\n`,
  });
}

const pointAtEdge = (name = SHOP) => dns.setRecord({ name, type: 'CNAME', value: TARGET });

async function newAuthority(options: { patienceMs?: number; dataDir?: string; lookup?: DnsLookup } = {}) {
  return createLocalCertificateAuthority({
    dns: options.lookup ?? resolverLookup(dns.address),
    target: TARGET,
    httpPort: (tokenServer.address() as AddressInfo).port,
    clock: () => time,
    ...(options.patienceMs === undefined ? {} : { patienceMs: options.patienceMs }),
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
  });
}

beforeAll(async () => {
  dns = await startSandboxDns();
  tokenServer = createServer((request, response) => {
    const host = request.headers.host?.replace(/:\d+$/, '');
    fetched.push({ host: request.headers.host, path: request.url });
    const answer = served.get(`${host} ${request.url}`) ?? { status: 404, body: 'not here' };
    response.writeHead(answer.status, { 'Content-Type': 'text/plain' }).end(answer.body);
  });
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await dns.close();
  await new Promise((resolve) => tokenServer.close(resolve));
});

beforeEach(async () => {
  for (const record of dns.records()) dns.removeRecord(record);
  dns.setRecord({ name: TARGET, type: 'A', value: '127.0.0.1' });
  served = new Map();
  fetched = [];
  time = START;
  ca = await newAuthority();
});

describe('the local CA issues after validating over HTTP, as CloudFront does', () => {
  it('requests a certificate: pending, with a token at the well-known pki-validation path', () => {
    const status = ca.request('Shop.Example.Test.');

    expect(status).toMatchObject({
      state: 'pending-validation',
      domain: SHOP,
      requestedAt: START,
      attempts: 0,
    });
    if (status.state !== 'pending-validation') throw new Error('not pending');
    expect(status.validation.path).toMatch(/^\/\.well-known\/pki-validation\/[0-9a-f]{32}\.txt$/);
    expect(status.validation.content).toMatch(/^[0-9a-f]{64}$/);
    expect(status.validation.url).toBe(`http://${SHOP}${status.validation.path}`);
    expect(status).not.toHaveProperty('reason');
    expect(ca.status(SHOP)).toEqual(status);
  });

  it('issues an ECDSA P-256 leaf for the domain, serverAuth, 90 days, signed by its root', async () => {
    pointAtEdge();
    serve(ca.request(SHOP));

    const status = await ca.attempt(SHOP);

    expect(status).toMatchObject({ state: 'issued', domain: SHOP, attempts: 1, issuedAt: START });
    if (status.state !== 'issued') throw new Error('not issued');
    const leaf = new X509Certificate(status.certificate.certificatePem);
    const root = new X509Certificate(ca.rootCertificatePem);
    expect(leaf.subjectAltName).toBe(`DNS:${SHOP}`);
    expect(leaf.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(leaf.ca).toBe(false);
    expect(leaf.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(Date.parse(leaf.validTo) - Date.parse(leaf.validFrom)).toBe(90 * DAY);
    expect(Date.parse(leaf.validFrom)).toBeLessThanOrEqual(START);
    expect(leaf.checkIssued(root)).toBe(true);
    expect(leaf.verify(root.publicKey)).toBe(true);
    expect(leaf.checkPrivateKey(createPrivateKey(status.certificate.privateKeyPem))).toBe(true);
    expect(status.certificate.notAfter).toBe(new Date(Date.parse(leaf.validTo)).toISOString());
    expect(leaf.serialNumber.toLowerCase()).toBe(status.certificate.serialNumber);
    // Fetched once, from the edge's address, with the domain as Host.
    expect(fetched).toEqual([
      { host: `${SHOP}:${(tokenServer.address() as AddressInfo).port}`, path: expect.any(String) },
    ]);
  });

  it('issues for an apex whose addresses are the edge’s (an ALIAS/ANAME)', async () => {
    dns.setRecord({ name: 'example.test', type: 'A', value: '127.0.0.1' });
    serve(ca.request('example.test'));

    expect(await ca.attempt('example.test')).toMatchObject({ state: 'issued' });
  });

  it('stays pending while the domain has no record, and says so', async () => {
    serve(ca.request(SHOP));

    const status = await ca.attempt(SHOP);

    expect(status).toMatchObject({
      state: 'pending-validation',
      attempts: 1,
      reason: {
        kind: 'dns-not-pointing',
        message: `${SHOP} has no CNAME to ${TARGET} yet (nor any address).`,
      },
    });
    expect(fetched).toEqual([]);
  });

  it('stays pending while the CNAME leads elsewhere', async () => {
    dns.setRecord({ name: SHOP, type: 'CNAME', value: 'other.example.test' });
    dns.setRecord({ name: 'other.example.test', type: 'A', value: '127.0.0.1' });
    serve(ca.request(SHOP));

    expect(await ca.attempt(SHOP)).toMatchObject({
      state: 'pending-validation',
      reason: {
        kind: 'dns-not-pointing',
        message: `The CNAME of ${SHOP} leads to other.example.test, not to ${TARGET}.`,
      },
    });
  });

  it('stays pending while an A record beside the CNAME sends the name elsewhere, and contacts nobody', async () => {
    pointAtEdge();
    dns.setRecord({ name: SHOP, type: 'A', value: '192.0.2.7' });
    serve(ca.request(SHOP));

    expect(await ca.attempt(SHOP)).toMatchObject({
      state: 'pending-validation',
      reason: { kind: 'dns-not-pointing', message: expect.stringContaining('resolves to 192.0.2.7') },
    });
    expect(fetched).toEqual([]);
  });

  it('stays pending while CAA records forbid Amazon, and issues once they allow it', async () => {
    pointAtEdge();
    dns.setRecord({ name: 'example.test', type: 'CAA', value: '0 issue "letsencrypt.org"' });
    serve(ca.request(SHOP));

    expect(await ca.attempt(SHOP)).toMatchObject({
      state: 'pending-validation',
      reason: {
        kind: 'caa-blocks',
        message: expect.stringContaining('example.test CAA 0 issue "amazon.com"'),
      },
    });

    dns.setRecord({ name: 'example.test', type: 'CAA', value: '0 issue "amazon.com"' });
    expect(await ca.attempt(SHOP)).toMatchObject({ state: 'issued', attempts: 2 });
  });

  it('stays pending while the token is not served, or is not the token', async () => {
    pointAtEdge();
    const status = ca.request(SHOP);
    if (status.state !== 'pending-validation') throw new Error('not pending');

    expect(await ca.attempt(SHOP)).toMatchObject({
      state: 'pending-validation',
      reason: { kind: 'token-not-served', message: `GET ${status.validation.url} answered 404.` },
    });

    served.set(`${SHOP} ${status.validation.path}`, { status: 200, body: 'something else' });
    expect(await ca.attempt(SHOP)).toMatchObject({
      state: 'pending-validation',
      attempts: 2,
      reason: {
        kind: 'token-not-served',
        message: expect.stringContaining('other than the validation token'),
      },
    });
  });

  it('stays pending with the lookup’s failure when DNS cannot be asked', async () => {
    const failing: DnsLookup = {
      cname: () => Promise.reject(new Error('DNS lookup of CNAME failed (ECONNREFUSED)')),
      a: () => Promise.resolve([]),
      aaaa: () => Promise.resolve([]),
      caa: () => Promise.resolve([]),
    };
    const authority = await newAuthority({ lookup: failing });
    authority.request(SHOP);

    expect(await authority.attempt(SHOP)).toMatchObject({
      state: 'pending-validation',
      reason: { kind: 'dns-lookup-failed', message: 'DNS lookup of CNAME failed (ECONNREFUSED)' },
    });
  });

  it('times out after its patience; a new request can then issue', async () => {
    const patienceMs = 30 * 60_000;
    const authority = await newAuthority({ patienceMs });
    const first = authority.request(SHOP);
    time = START + patienceMs - 1;
    expect(await authority.attempt(SHOP)).toMatchObject({ state: 'pending-validation', attempts: 1 });

    time = START + patienceMs;
    const timedOut = await authority.attempt(SHOP);
    expect(timedOut).toMatchObject({
      state: 'validation-timed-out',
      requestedAt: START,
      timedOutAt: START + patienceMs,
      attempts: 1,
      reason: { kind: 'dns-not-pointing' },
    });
    // Timed out for good: no more tries, even once DNS is right.
    pointAtEdge();
    expect(await authority.attempt(SHOP)).toEqual(timedOut);
    expect(fetched).toEqual([]);

    const second = authority.request(SHOP);
    expect(second).toMatchObject({
      state: 'pending-validation',
      requestedAt: START + patienceMs,
      attempts: 0,
    });
    if (second.state !== 'pending-validation' || first.state !== 'pending-validation')
      throw new Error('not pending');
    expect(second.validation.path).not.toBe(first.validation.path);
    serve(second);
    expect(await authority.attempt(SHOP)).toMatchObject({ state: 'issued' });
  });

  it('waits 72 hours by default, as ACM does', async () => {
    ca.request(SHOP);
    time = START + 72 * 60 * 60_000 - 1;
    expect(await ca.attempt(SHOP)).toMatchObject({ state: 'pending-validation' });
    time = START + DEFAULT_PATIENCE_MS;
    expect(DEFAULT_PATIENCE_MS).toBe(72 * 60 * 60_000);
    expect(await ca.attempt(SHOP)).toMatchObject({ state: 'validation-timed-out' });
  });

  it('lets a request made during a try win over that try’s result', async () => {
    pointAtEdge();
    serve(ca.request(SHOP));

    const trying = ca.attempt(SHOP);
    const renewed = ca.request(SHOP);

    expect(await trying).toEqual(renewed);
    expect(ca.status(SHOP)).toEqual(renewed);
  });

  it('forgets a removed domain', async () => {
    ca.request(SHOP);
    ca.forget('SHOP.example.test');

    expect(ca.status(SHOP)).toBeUndefined();
    await expect(ca.attempt(SHOP)).rejects.toThrow(
      `No certificate was requested for ${SHOP}: request one first.`,
    );
  });

  it.each(['127.0.0.1', '*.example.test', 'localhost'])('refuses to request a certificate for %s', (name) => {
    expect(() => ca.request(name)).toThrow(/cannot have a certificate/);
  });
});

describe('the local CA’s root', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'local-ca-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is made once in the data folder, key readable by its owner only, and reused on restart', async () => {
    const first = await newAuthority({ dataDir: dir });
    const rootPath = path.join(dir, 'local-ca', 'root.pem');

    expect(first.rootCertificatePath).toBe(rootPath);
    expect(readFileSync(rootPath, 'utf8')).toBe(first.rootCertificatePem);
    expect(statSync(path.join(dir, 'local-ca', 'root-key.pem')).mode & 0o777).toBe(0o600);
    const root = new X509Certificate(first.rootCertificatePem);
    expect(root.ca).toBe(true);
    expect(root.checkIssued(root)).toBe(true);
    expect(root.subject).toContain('CN=Animal Store local CA');

    const second = await newAuthority({ dataDir: dir });
    expect(second.rootCertificatePem).toBe(first.rootCertificatePem);
    // The reused key signs: a leaf from the second verifies against the first's root.
    pointAtEdge();
    serve(second.request(SHOP));
    const issued = await second.attempt(SHOP);
    if (issued.state !== 'issued') throw new Error(`not issued: ${JSON.stringify(issued)}`);
    expect(new X509Certificate(issued.certificate.certificatePem).verify(root.publicKey)).toBe(true);
  });

  it('is new each time in memory, written nowhere', async () => {
    const other = await newAuthority();
    expect(other.rootCertificatePath).toBeUndefined();
    expect(other.rootCertificatePem).not.toBe(ca.rootCertificatePem);
  });
});
