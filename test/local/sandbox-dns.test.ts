import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Resolver } from 'node:dns/promises';
import dns2 from 'dns2';
import { InvalidSandboxRecord, type SandboxDns, startSandboxDns } from '../../local/sandbox-dns';
import { resolverLookup } from '../../tools/domains-dns';

let dns: SandboxDns;
let resolver: Resolver;

/** The error code node:dns gives, or 'answered' when the lookup succeeded. */
const codeOf = (lookup: Promise<unknown>) =>
  lookup.then(
    () => 'answered',
    (error: NodeJS.ErrnoException) => error.code,
  );

beforeAll(async () => {
  dns = await startSandboxDns();
});

afterAll(async () => {
  await dns.close();
});

beforeEach(() => {
  for (const record of dns.records()) dns.removeRecord(record);
  resolver = new Resolver({ timeout: 5_000, tries: 1 });
  resolver.setServers([dns.address]);
});

describe('the sandbox DNS answers node:dns', () => {
  it('listens on loopback at a free port, in the form resolverLookup takes', () => {
    expect(dns.address).toBe(`127.0.0.1:${dns.port}`);
    expect(dns.port).toBeGreaterThan(0);
  });

  it('answers each record type it holds', async () => {
    dns.setRecord({ name: 'edge.animalstore.test', type: 'A', value: '127.0.0.1', ttl: 60 });
    dns.setRecord({ name: 'edge.animalstore.test', type: 'AAAA', value: '::1' });
    dns.setRecord({ name: 'shop.example.test', type: 'CNAME', value: 'edge.animalstore.test' });
    dns.setRecord({ name: 'example.test', type: 'CAA', value: '0 issue "amazon.com"' });
    dns.setRecord({ name: 'example.test', type: 'TXT', value: 'v=spf1 -all' });

    expect(await resolver.resolve4('edge.animalstore.test', { ttl: true })).toEqual([
      { address: '127.0.0.1', ttl: 60 },
    ]);
    expect(await resolver.resolve6('edge.animalstore.test', { ttl: true })).toEqual([
      { address: '::1', ttl: 3600 },
    ]);
    expect(await resolver.resolveCname('shop.example.test')).toEqual(['edge.animalstore.test']);
    expect(await resolver.resolveCaa('example.test')).toEqual([{ critical: 0, issue: 'amazon.com' }]);
    expect(await resolver.resolveTxt('example.test')).toEqual([['v=spf1 -all']]);
  });

  it('follows a CNAME as a resolver expects: an A question for it answers the target’s address', async () => {
    dns.setRecord({ name: 'shop.example.test', type: 'CNAME', value: 'edge.animalstore.test' });
    dns.setRecord({ name: 'edge.animalstore.test', type: 'A', value: '127.0.0.1' });
    dns.setRecord({ name: 'edge.animalstore.test', type: 'AAAA', value: '::1' });

    expect(await resolver.resolve4('shop.example.test')).toEqual(['127.0.0.1']);
    expect(await resolver.resolve6('shop.example.test')).toEqual(['::1']);
    const lookup = resolverLookup(dns.address);
    expect(await lookup.cname('shop.example.test')).toEqual(['edge.animalstore.test']);
    expect(await lookup.a('shop.example.test')).toEqual(['127.0.0.1']);
    expect(await lookup.aaaa('shop.example.test')).toEqual(['::1']);
  });

  it("answers a wildcard for any name one label below that does not exist: every project's target reaches the edge", async () => {
    dns.setRecord({ name: '*.domains.localhost', type: 'A', value: '127.0.0.1' });
    dns.setRecord({
      name: 'shop.example.test',
      type: 'CNAME',
      value: 'k3v7qmx2hzt7wprd5c4a.domains.localhost',
    });
    dns.setRecord({ name: 'own.domains.localhost', type: 'TXT', value: 'its own data' });

    expect(await resolver.resolve4('k3v7qmx2hzt7wprd5c4a.domains.localhost')).toEqual(['127.0.0.1']);
    expect(await resolver.resolve4('shop.example.test')).toEqual(['127.0.0.1']);
    // A name that exists answers its own records only (RFC 4592), and the wildcard covers one label.
    expect(await codeOf(resolver.resolve4('own.domains.localhost'))).toBe('ENODATA');
    expect(await codeOf(resolver.resolve4('a.b.domains.localhost'))).toBe('ENOTFOUND');
  });

  it('matches names in any case and with a trailing dot, and stores them normalized', async () => {
    const stored = dns.setRecord({
      name: 'Shop.Example.TEST.',
      type: 'CNAME',
      value: 'Edge.AnimalStore.Test.',
    });
    dns.setRecord({ name: 'EDGE.animalstore.test', type: 'A', value: '127.0.0.1' });

    expect(stored).toEqual({
      name: 'shop.example.test',
      type: 'CNAME',
      value: 'edge.animalstore.test',
      ttl: 3600,
    });
    expect(await resolver.resolveCname('sHoP.eXaMpLe.TeSt')).toEqual(['edge.animalstore.test']);
    expect(await resolver.resolve4('SHOP.EXAMPLE.TEST')).toEqual(['127.0.0.1']);
    expect(await resolverLookup(dns.address).a('Shop.Example.Test.')).toEqual(['127.0.0.1']);
  });

  it('keeps a CNAME beside an A record, so the conflict is visible to the verdicts', async () => {
    dns.setRecord({ name: 'shop.example.test', type: 'CNAME', value: 'edge.animalstore.test' });
    dns.setRecord({ name: 'shop.example.test', type: 'A', value: '192.0.2.7' });
    dns.setRecord({ name: 'edge.animalstore.test', type: 'A', value: '127.0.0.1' });

    const lookup = resolverLookup(dns.address);
    expect(await lookup.cname('shop.example.test')).toEqual(['edge.animalstore.test']);
    // The name's own A answers, not the target's: the A beside the CNAME shows.
    expect(await lookup.a('shop.example.test')).toEqual(['192.0.2.7']);
    expect(await lookup.a('edge.animalstore.test')).toEqual(['127.0.0.1']);
    expect(dns.records('shop.example.test').map((record) => record.type)).toEqual(['A', 'CNAME']);
  });

  it('answers NXDOMAIN for a name that does not exist and NODATA for one that exists without that type', async () => {
    dns.setRecord({ name: 'mail.example.test', type: 'TXT', value: 'hello' });

    expect(await codeOf(resolver.resolve4('nothing.example.test'))).toBe('ENOTFOUND');
    expect(await codeOf(resolver.resolve4('mail.example.test'))).toBe('ENODATA');
    // A name with records only below it exists (RFC 8020): NODATA, not NXDOMAIN.
    expect(await codeOf(resolver.resolveCaa('example.test'))).toBe('ENODATA');
    expect(await codeOf(resolver.resolveCname('mail.example.test'))).toBe('ENODATA');
    // resolverLookup reads both as "no such record".
    const lookup = resolverLookup(dns.address);
    expect(await lookup.a('nothing.example.test')).toEqual([]);
    expect(await lookup.caa('mail.example.test')).toEqual([]);
  });

  it('answers NXDOMAIN for a CNAME whose target does not exist, and still gives the CNAME', async () => {
    dns.setRecord({ name: 'shop.example.test', type: 'CNAME', value: 'gone.example.test' });

    expect(await codeOf(resolver.resolve4('shop.example.test'))).toBe('ENOTFOUND');
    expect(await resolver.resolveCname('shop.example.test')).toEqual(['gone.example.test']);
  });

  it('holds one CNAME per name: a new one replaces it', async () => {
    dns.setRecord({ name: 'shop.example.test', type: 'CNAME', value: 'old.example.test' });
    dns.setRecord({ name: 'shop.example.test', type: 'CNAME', value: 'edge.animalstore.test' });

    expect(await resolver.resolveCname('shop.example.test')).toEqual(['edge.animalstore.test']);
    expect(dns.records()).toHaveLength(1);
  });

  it('stops answering a removed record at the next question', async () => {
    dns.setRecord({ name: 'shop.example.test', type: 'A', value: '127.0.0.1' });
    dns.setRecord({ name: 'shop.example.test', type: 'A', value: '127.0.0.2' });
    dns.setRecord({ name: 'shop.example.test', type: 'TXT', value: 'kept' });
    expect(await resolver.resolve4('shop.example.test')).toEqual(['127.0.0.1', '127.0.0.2']);

    expect(dns.removeRecord({ name: 'SHOP.example.test.', type: 'A', value: '127.0.0.2' })).toBe(1);
    expect(await resolver.resolve4('shop.example.test')).toEqual(['127.0.0.1']);

    expect(dns.removeRecord({ name: 'shop.example.test', type: 'A' })).toBe(1);
    expect(await codeOf(resolver.resolve4('shop.example.test'))).toBe('ENODATA');

    expect(dns.removeRecord({ name: 'shop.example.test', type: 'TXT' })).toBe(1);
    expect(await codeOf(resolver.resolve4('shop.example.test'))).toBe('ENOTFOUND');
    expect(dns.removeRecord({ name: 'shop.example.test', type: 'TXT' })).toBe(0);
  });

  it('answers over TCP when the answer is too long for UDP (the resolver retries there)', async () => {
    const long = 'x'.repeat(3000);
    dns.setRecord({ name: 'long.example.test', type: 'TXT', value: long });

    const [strings] = await resolver.resolveTxt('long.example.test');
    expect(strings?.join('')).toBe(long);
  });

  it('answers a question sent over TCP on the same port', async () => {
    dns.setRecord({ name: 'shop.example.test', type: 'CNAME', value: 'edge.animalstore.test' });
    dns.setRecord({ name: 'edge.animalstore.test', type: 'A', value: '127.0.0.1' });

    const resolve = dns2.TCPClient({ dns: '127.0.0.1', port: dns.port });
    const response = await resolve('Shop.Example.Test', 'A');
    // Names compare case-insensitively (dns2 compresses suffixes regardless of case).
    const answers = response.answers.map((answer) => [answer.name, answer.domain ?? answer.address]);
    expect(answers.map((pair) => pair.map((part) => part?.toLowerCase()))).toEqual([
      ['shop.example.test', 'edge.animalstore.test'],
      ['edge.animalstore.test', '127.0.0.1'],
    ]);
  });

  it('lists records sorted, and only one name’s when asked', () => {
    dns.setRecord({ name: 'b.example.test', type: 'TXT', value: 'two' });
    dns.setRecord({ name: 'a.example.test', type: 'A', value: '127.0.0.1', ttl: 300 });
    dns.setRecord({ name: 'a.example.test', type: 'A', value: '127.0.0.1', ttl: 60 });

    expect(dns.records()).toEqual([
      { name: 'a.example.test', type: 'A', value: '127.0.0.1', ttl: 60 },
      { name: 'b.example.test', type: 'TXT', value: 'two', ttl: 3600 },
    ]);
    expect(dns.records('B.Example.Test.')).toEqual([
      { name: 'b.example.test', type: 'TXT', value: 'two', ttl: 3600 },
    ]);
  });
});

describe('the sandbox DNS refuses what is not a record', () => {
  it.each([
    [{ name: 'shop..example.test', type: 'A', value: '127.0.0.1' }, /not a DNS name/],
    [{ name: '-shop.example.test', type: 'A', value: '127.0.0.1' }, /not a DNS name/],
    [{ name: 'shop.example.test', type: 'A', value: '::1' }, /not an IPv4 address/],
    [{ name: 'shop.example.test', type: 'AAAA', value: '127.0.0.1' }, /not an IPv6 address/],
    [{ name: 'shop.example.test', type: 'CNAME', value: 'not a name' }, /not a DNS name/],
    [{ name: 'shop.example.test', type: 'CAA', value: 'issue amazon.com' }, /flags tag "value"/],
    [
      { name: 'shop.example.test', type: 'MX', value: '10 mail.example.test' },
      /use one of A, AAAA, CNAME, CAA, TXT/,
    ],
    [{ name: 'shop.example.test', type: 'A', value: '127.0.0.1', ttl: -1 }, /TTL -1/],
  ])('%j', (record, message) => {
    expect(() => dns.setRecord(record as never)).toThrow(InvalidSandboxRecord);
    expect(() => dns.setRecord(record as never)).toThrow(message);
    expect(dns.records()).toEqual([]);
  });
});

describe('the sandbox DNS with a file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'sandbox-dns-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps its records across a restart', async () => {
    const file = path.join(dir, 'data', 'sandbox-dns.json');
    const first = await startSandboxDns({ file });
    first.setRecord({ name: 'shop.example.test', type: 'CNAME', value: 'edge.animalstore.test' });
    first.setRecord({ name: 'example.test', type: 'CAA', value: '0 issue "amazon.com"' });
    first.removeRecord({ name: 'example.test', type: 'CAA' });
    first.setRecord({ name: 'edge.animalstore.test', type: 'A', value: '127.0.0.1' });
    await first.close();

    const second = await startSandboxDns({ file });
    try {
      expect(second.records()).toEqual(first.records());
      expect(second.records()).toHaveLength(2);
      const lookup = resolverLookup(second.address);
      expect(await lookup.a('shop.example.test')).toEqual(['127.0.0.1']);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ records: expect.any(Array) });
    } finally {
      await second.close();
    }
  });

  it('refuses to start on an unreadable file, naming it and the fix', async () => {
    const file = path.join(dir, 'sandbox-dns.json');
    writeFileSync(file, '{"records": [');
    await expect(startSandboxDns({ file })).rejects.toThrow(/sandbox-dns\.json is unreadable .*delete it/);
  });

  it('refuses to start on a file holding a record it would refuse', async () => {
    const file = path.join(dir, 'sandbox-dns.json');
    writeFileSync(
      file,
      JSON.stringify({ records: [{ name: 'shop.example.test', type: 'A', value: 'nope' }] }),
    );
    await expect(startSandboxDns({ file })).rejects.toThrow(/not an IPv4 address/);
  });
});
