import type { CustomDomain } from '../../lambda/core/custom-domains/custom-domain';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { CustomDomainRepository } from '../../lambda/store/custom-domain-repository';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type DomainsTestApi, startDomainsTestApi } from '../support/local-domains';

/**
 * The domains service's DNS verdicts against a real DNS server on loopback (local mode's
 * sandbox zone), one test per verdict, through the console's API as a tenant calls it.
 */

/** The shared target; each project's own is a name under it. */
const SHARED = 'domains.localhost';
let TARGET: string;
/** The project's ownership token, the TXT proof's value. */
let ownership: string;

let t: DomainsTestApi;
let token: string;
let projectName: string;

beforeAll(async () => {
  t = await startDomainsTestApi();
  const project = await t.createProject('business');
  token = project.consoleToken;
  projectName = project.name;
  TARGET = project.target;
  ownership = project.token;
});

afterAll(async () => {
  await t.close();
});

/** Adds the domain (once) and verifies it. */
async function verify(name: string): Promise<Record<string, unknown>> {
  const added = await t.console(token, 'POST', '/domains', { name });
  if (added.status !== 201 && added.body.code !== 'domain_taken') throw new Error(JSON.stringify(added.body));
  const verified = await t.console(token, 'POST', `/domains/${encodeURIComponent(name)}/verify`);
  expect(verified.status).toBe(200);
  return verified.body;
}

describe('DNS verdicts', () => {
  it('verifies a CNAME to the target, whatever the case and trailing dot the tenant typed', async () => {
    await t.record('mixed.case.test', 'CNAME', TARGET);

    expect(await verify('MiXeD.Case.TEST.')).toMatchObject({
      verified: true,
      verdict: 'verified',
      domain: { name: 'mixed.case.test', state: 'certificate-pending' },
    });
  });

  it('counts an A record beside the CNAME as a conflicting record', async () => {
    await t.record('beside.conflict.test', 'CNAME', TARGET);
    await t.record('beside.conflict.test', 'A', '192.0.2.7');

    expect(await verify('beside.conflict.test')).toMatchObject({
      verified: false,
      verdict: 'conflicting-record',
      summary:
        'Not verified: a conflicting record exists for beside.conflict.test and blocks the CNAME: beside.conflict.test A 192.0.2.7.',
      fix: `Delete this record at your DNS provider, then keep the CNAME beside.conflict.test → ${TARGET} (TTL 3600).`,
      domain: { state: 'failed', reason: expect.stringMatching(/^Not verified: a conflicting record/) },
    });
  });

  it.each([
    ["the target's own address", 'same-address', [['A', '127.0.0.1']], ['A 127.0.0.1']],
    ['an AAAA record', 'aaaa', [['AAAA', '::1']], ['AAAA ::1']],
    [
      'an extra A record (one of them with the target address)',
      'extra-a',
      [
        ['A', '127.0.0.1'],
        ['A', '192.0.2.8'],
      ],
      ['A 127.0.0.1', 'A 192.0.2.8'],
    ],
  ])(
    'counts %s beside the CNAME as a conflicting record, whatever the address',
    async (_, label, beside, listed) => {
      const name = `${label}.beside.test`;
      await t.record(name, 'CNAME', TARGET);
      for (const [type, value] of beside) await t.record(name, type ?? '', value ?? '');

      expect(await verify(name)).toMatchObject({
        verified: false,
        verdict: 'conflicting-record',
        summary: `Not verified: a conflicting record exists for ${name} and blocks the CNAME: ${listed.map((record) => `${name} ${record}`).join(', ')}.`,
        domain: { state: 'failed' },
      });
    },
  );

  it('refuses an A record instead of the CNAME', async () => {
    await t.record('a-only.conflict.test', 'A', '198.51.100.7');

    expect(await verify('a-only.conflict.test')).toMatchObject({
      verified: false,
      verdict: 'conflicting-record',
      fix: `Delete this record at your DNS provider, then add the CNAME a-only.conflict.test → ${TARGET} (TTL 3600).`,
    });
  });

  it('refuses a CNAME that points elsewhere, naming both values', async () => {
    await t.record('old.host.test', 'CNAME', 'old-host.example.net');

    expect(await verify('old.host.test')).toMatchObject({
      verified: false,
      verdict: 'cname-mismatch',
      summary: `Not verified: the CNAME of old.host.test points elsewhere: expected ${TARGET}, found old-host.example.net.`,
      domain: { state: 'failed' },
    });
  });

  it('keeps a domain with nothing yet pending for 48 hours, then fails it', async () => {
    expect(await verify('nothing.yet.test')).toMatchObject({
      verified: false,
      verdict: 'not-found',
      domain: { state: 'pending-dns', notices: ['DNS changes may take up to 48 hours to propagate.'] },
    });

    t.advance(48 * 60 * 60_000);
    expect(await verify('nothing.yet.test')).toMatchObject({
      verified: false,
      verdict: 'not-found',
      domain: {
        state: 'failed',
        notices: [],
        reason: expect.stringMatching(/^Not verified yet: no CNAME record found for nothing\.yet\.test\./),
      },
    });
  });

  it('refuses while CAA records forbid Amazon, and verifies once they allow it', async () => {
    await t.record('shop.caa.test', 'CNAME', TARGET);
    await t.record('caa.test', 'CAA', '0 issue "letsencrypt.org"');

    expect(await verify('shop.caa.test')).toMatchObject({
      verified: false,
      verdict: 'caa-blocks',
      summary:
        'Not verified: CAA records on caa.test forbid the certificate authority: 0 issue "letsencrypt.org".',
    });

    await t.record('caa.test', 'CAA', '0 issue "amazon.com"');
    expect(await verify('shop.caa.test')).toMatchObject({ verified: true, verdict: 'verified' });
  });

  it('refuses while a CAA record with the critical flag has a tag the authority does not know (RFC 8659 §4.1)', async () => {
    await t.record('shop.critical-caa.test', 'CNAME', TARGET);
    await t.record('critical-caa.test', 'CAA', '0 issue "amazon.com"');
    await t.record('critical-caa.test', 'CAA', '128 tbs "x"');

    expect(await verify('shop.critical-caa.test')).toMatchObject({
      verified: false,
      verdict: 'caa-blocks',
      summary:
        'Not verified: CAA records on critical-caa.test forbid the certificate authority: 0 issue "amazon.com", 128 tbs "x".',
    });

    // Without the critical flag an unknown tag is ignored.
    await t.removeRecord('critical-caa.test', 'CAA');
    await t.record('critical-caa.test', 'CAA', '0 tbs "x"');
    expect(await verify('shop.critical-caa.test')).toMatchObject({ verified: true, verdict: 'verified' });
  });

  it('reads the CAA set of a parent above the zone, up to the top-level domain (RFC 8659 §3)', async () => {
    await t.record('shop.example.caa-tld', 'CNAME', TARGET);
    await t.record('caa-tld', 'CAA', '0 issue "letsencrypt.org"');

    expect(await verify('shop.example.caa-tld')).toMatchObject({
      verified: false,
      verdict: 'caa-blocks',
      summary:
        'Not verified: CAA records on caa-tld forbid the certificate authority: 0 issue "letsencrypt.org".',
    });
  });

  it("shows an apex an ALIAS/ANAME and the TXT proof beside it, and verifies it on the target's addresses with the proof only", async () => {
    const added = await t.console(token, 'POST', '/domains', { name: 'apex.test' });
    expect(added.body).toMatchObject({
      record: { name: '@', zone: 'apex.test', type: 'ALIAS/ANAME', value: TARGET, ttl: 3600 },
      ownershipRecord: { name: '_animal-store', zone: 'apex.test', type: 'TXT', value: ownership, ttl: 3600 },
      apexFallback: expect.stringMatching(
        /^If your DNS provider has no ALIAS or ANAME record: add www\.apex\.test/,
      ),
    });
    // What an ALIAS/ANAME gives resolvers: the target's own addresses at the apex. Every
    // project's target has them, so the addresses alone prove nothing.
    await t.record('apex.test', 'A', '127.0.0.1');
    expect(await verify('apex.test')).toMatchObject({
      verified: false,
      verdict: 'ownership-unproven',
      fix: `Add the TXT record _animal-store.apex.test with the value ${ownership} (TTL 3600) beside the ALIAS/ANAME, wait for DNS to propagate, then verify again.`,
    });

    await t.record('_animal-store.apex.test', 'TXT', ownership);
    expect(await verify('apex.test')).toMatchObject({ verified: true, verdict: 'verified' });
  });

  it("verifies a flattened CNAME (addresses only) with the project's TXT proof, and not another project's", async () => {
    const other = await t.createProject('pro');
    await t.record('flat.cname.test', 'A', '127.0.0.1');
    await t.record('_animal-store.flat.cname.test', 'TXT', other.token);
    expect(await verify('flat.cname.test')).toMatchObject({ verified: false, verdict: 'conflicting-record' });

    await t.record('_animal-store.flat.cname.test', 'TXT', ownership);
    expect(await verify('flat.cname.test')).toMatchObject({ verified: true, verdict: 'verified' });
  });

  it("refuses an apex whose addresses are not the target's", async () => {
    await t.record('other-apex.test', 'A', '203.0.113.5');

    expect(await verify('other-apex.test')).toMatchObject({ verified: false, verdict: 'apex-mismatch' });
  });
});

describe('an imported domain, through its old per-domain target', () => {
  const DOMAIN = 'shop.migrated.test';
  const OLD_TARGET = `${DOMAIN}.tenants.old-platform.test`;

  beforeAll(async () => {
    // As `npm run domains -- import` stores it: live on the old target, its certificate pending.
    const documents = createDocumentClient(t.api.dynamodbEndpoint);
    const now = new Date().toISOString();
    const imported: CustomDomain = {
      name: DOMAIN,
      project: projectName,
      role: 'additional',
      state: 'certificate-pending',
      since: now,
      addedAt: now,
      attached: true,
      certificate: 'pending',
      servedAt: now,
      migratedFrom: OLD_TARGET,
      version: 1,
    };
    try {
      expect(
        await new CustomDomainRepository(documents, LOCAL_TABLE_NAMES.customDomains).create(imported),
      ).toBe(true);
    } finally {
      documents.destroy();
    }
    // The tenant's record, unchanged by the migration, and the old target as it is today.
    await t.record(DOMAIN, 'CNAME', OLD_TARGET);
    await t.record(OLD_TARGET, 'CNAME', 'd-abc123.execute-api.eu-west-1.amazonaws.com');
  });

  it('is pending, not failed, while the old target still points at the old custom domain', async () => {
    const verified = await t.console(token, 'POST', `/domains/${DOMAIN}/verify`);

    expect(verified.body).toMatchObject({
      verified: false,
      verdict: 'migration-pending',
      summary: `Not verified yet: ${DOMAIN} points at its old target ${OLD_TARGET}, which is a CNAME of d-abc123.execute-api.eu-west-1.amazonaws.com and does not reach ${SHARED} yet.`,
      domain: { state: 'certificate-pending' },
    });
  });

  it('verifies once the platform makes the old target a CNAME to the target', async () => {
    await t.removeRecord(OLD_TARGET, 'CNAME');
    await t.record(OLD_TARGET, 'CNAME', SHARED);

    expect(await t.console(token, 'POST', `/domains/${DOMAIN}/verify`)).toMatchObject({
      status: 200,
      body: {
        verified: true,
        verdict: 'verified',
        summary: `Verified: ${DOMAIN} reaches ${SHARED} through its old target ${OLD_TARGET}.`,
      },
    });
  });

  it('is no way round for a domain that was not imported: a CNAME to an old target points elsewhere', async () => {
    await t.record('fresh.migrated.test', 'CNAME', OLD_TARGET);

    expect(await verify('fresh.migrated.test')).toMatchObject({ verified: false, verdict: 'cname-mismatch' });
  });
});

describe('names the service refuses', () => {
  it.each([
    ['an IPv4 address', '192.0.2.10', /is an IP address/],
    ['an IPv6 address', '[2001:db8::1]', /is an IP address/],
    ['a number the URL parser reads as an address', '127.1', /is an IP address/],
    ["the platform's own domain", 'shop.localhost', /is the platform's own domain \(localhost\)/],
    ["the platform's target", 'domains.localhost', /is the platform's own domain/],
    ['a public suffix', 'co.uk', /is a public suffix/],
    ["a public suffix of the list's private section", 'github.io', /"github\.io" is a public suffix/],
    ["another of the private section's", 's3.amazonaws.com', /"s3\.amazonaws\.com" is a public suffix/],
    [
      'a label over 63 characters',
      `${'a'.repeat(64)}.example.test`,
      /is too long: its label a+… has 64 characters, and a label has at most 63\./,
    ],
    ['a name over 253 characters', `${'abcdefghi.'.repeat(25)}test`, /is too long: it has 254 characters/],
    ['a single label', 'intranet', /is a single label/],
    ['a wildcard', '*.example.test', /is a wildcard/],
    ['a URL', 'https://shop.example.test/', /is not a bare domain name/],
    ['an invalid label', 'shop_.example.test', /is not a domain name/],
  ])('refuses %s', async (_, name, message) => {
    const refused = await t.console(token, 'POST', '/domains', { name });

    expect(refused).toMatchObject({ status: 400, body: { code: 'invalid_domain', status: 400 } });
    expect(refused.body.message).toMatch(message);
  });

  it('takes a name under a private suffix as a zone of its own: www.myshop.github.io is a CNAME in myshop.github.io', async () => {
    const added = await t.console(token, 'POST', '/domains', { name: 'www.myshop.github.io' });

    expect(added).toMatchObject({
      status: 201,
      body: { record: { name: 'www', zone: 'myshop.github.io', type: 'CNAME' } },
    });
  });

  it('keeps an internationalized name in its ASCII form, and shows it as typed', async () => {
    const added = await t.console(token, 'POST', '/domains', { name: 'Bücher.example.test' });

    expect(added.body).toMatchObject({
      name: 'xn--bcher-kva.example.test',
      unicodeName: 'bücher.example.test',
    });
  });

  it('refuses a name the project has already, however it is typed', async () => {
    await t.console(token, 'POST', '/domains', { name: 'taken.example.test' });

    const refused = await t.console(token, 'POST', '/domains', { name: 'TAKEN.example.test' });

    expect(refused).toMatchObject({ status: 409, body: { code: 'domain_taken' } });
  });
});
