import { ANONYMOUS_LIMITS } from '../../lambda/core/plans';
import { connectLocal } from '../../tools/local-store';
import { ProjectAdmin } from '../../tools/project-admin';
import { Refusal } from '../../tools/failures';
import { type DomainsTestApi, startDomainsTestApi } from '../support/local-domains';

/**
 * The domains service end to end in local mode, over real HTTP and HTTPS: a tenant adds a
 * domain, creates its record in the sandbox DNS, verifies, gets a certificate from the local CA,
 * and its project is served on it through the local edge.
 */

const SHOP = 'shop.acme-pets.test';
const WWW = 'www.acme-pets.test';
const PATIENCE_MS = 60 * 60_000;

let t: DomainsTestApi;
type TestProject = Awaited<ReturnType<DomainsTestApi['createProject']>>;
let acme: TestProject;
let globex: TestProject;
let acmeKey: string;
let globexKey: string;

const HANDSHAKE_REFUSED = { code: 'EPROTO', message: expect.stringMatching(/alert handshake failure/) };

function expectErrorBody(
  response: { status: number; body: Record<string, unknown> },
  status: number,
  code: string,
): void {
  expect(response.status).toBe(status);
  expect(Object.keys(response.body).sort()).toEqual(['code', 'message', 'status']);
  expect(response.body).toMatchObject({ code, status });
}

beforeAll(async () => {
  t = await startDomainsTestApi({ certificatePatienceMs: PATIENCE_MS });
  acme = await t.createProject('pro');
  globex = await t.createProject('business');
  acmeKey = await t.issueKey(acme.name);
  globexKey = await t.issueKey(globex.name);
});

afterAll(async () => {
  await t.close();
});

describe('the flow: add → sandbox record → verify → certificate → active', () => {
  it("adds the first domain as the primary, pending DNS, with the CNAME to the project's own target", async () => {
    const added = await t.console(acme.consoleToken, 'POST', '/domains', { name: 'Shop.ACME-pets.test.' });

    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      name: SHOP,
      role: 'primary',
      state: 'pending-dns',
      certificate: 'none',
      record: { name: 'shop', zone: 'acme-pets.test', type: 'CNAME', value: acme.target, ttl: 3600 },
      notices: ['DNS changes may take up to 48 hours to propagate.'],
      secondsInState: 0,
    });
  });

  it('stays pending until the record exists, then verifies and requests the certificate', async () => {
    const early = await t.console(acme.consoleToken, 'POST', `/domains/${SHOP}/verify`);
    expect(early.body).toMatchObject({
      verified: false,
      verdict: 'not-found',
      domain: { state: 'pending-dns' },
    });

    await t.record(SHOP, 'CNAME', acme.target);
    const verified = await t.console(acme.consoleToken, 'POST', `/domains/${SHOP}/verify`);

    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      verified: true,
      verdict: 'verified',
      summary: `Verified: ${SHOP} is a CNAME of ${acme.target}.`,
      domain: { state: 'certificate-pending', certificate: 'pending', notices: [] },
    });
  });

  it('lists it active once the local CA has validated over HTTP through the edge', async () => {
    const listed = await t.console(acme.consoleToken, 'GET', '/domains');

    expect(listed.status).toBe(200);
    expect(listed.body.domains).toEqual([
      expect.objectContaining({ name: SHOP, role: 'primary', state: 'active', certificate: 'issued' }),
    ]);
  });

  it("serves the project over HTTPS on the domain: 200 with its key, another project's key refused", async () => {
    const served = await t.viaEdge(SHOP, '/v1/pets', acmeKey);
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body)).toEqual([]);

    const other = await t.viaEdge(SHOP, '/v1/pets', globexKey);
    expect(other.status).toBe(401);
    expect(JSON.parse(other.body)).toMatchObject({ code: 'invalid_api_key', status: 401 });
  });

  it('answers 301 to the primary on a redirect domain, keeping path and query', async () => {
    const added = await t.console(acme.consoleToken, 'POST', '/domains', { name: WWW, redirect: true });
    expect(added.body).toMatchObject({ role: 'redirect', state: 'pending-dns' });
    await t.record(WWW, 'CNAME', acme.target);
    await t.console(acme.consoleToken, 'POST', `/domains/${WWW}/verify`);

    const listed = await t.console(acme.consoleToken, 'GET', '/domains');
    expect(listed.body.domains).toEqual([
      expect.objectContaining({ name: SHOP, state: 'active' }),
      expect.objectContaining({ name: WWW, role: 'redirect', state: 'redirect' }),
    ]);
    const answer = await t.viaEdge(WWW, '/v1/pets?status=sold&limit=2');
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe(
      `https://${SHOP}:${t.domains.edge.httpsPort}/v1/pets?status=sold&limit=2`,
    );
  });
});

describe("two projects cannot see or touch each other's domains", () => {
  it("lists none of the other project's domains", async () => {
    const listed = await t.console(globex.consoleToken, 'GET', '/domains');
    expect(listed.body).toEqual({ domains: [] });
  });

  it.each([
    ['verify', 'POST', `/domains/${SHOP}/verify`],
    ['make primary', 'POST', `/domains/${WWW}/primary`],
    ['make redirect', 'POST', `/domains/${SHOP}/redirect`],
    ['remove', 'DELETE', `/domains/${SHOP}?confirm=traffic-stops`],
  ])("answers 404 to %s of another project's domain, as for a name no one has", async (_, method, path) => {
    const theirs = await t.console(globex.consoleToken, method, path);
    const nobodys = await t.console(globex.consoleToken, method, path.replace('acme-pets', 'nobody'));

    expectErrorBody(theirs, 404, 'domain_not_found');
    expectErrorBody(nobodys, 404, 'domain_not_found');
    expect((await t.viaEdge(SHOP, '/v1/pets', acmeKey)).status).toBe(200);
  });

  it('lets another project claim the name, but not take it without its own proof in DNS', async () => {
    const claimed = await t.console(globex.consoleToken, 'POST', '/domains', { name: SHOP });
    expect(claimed.status).toBe(201);
    expect(claimed.body).toMatchObject({ state: 'pending-dns', record: { value: globex.target } });

    const refused = await t.console(globex.consoleToken, 'POST', `/domains/${SHOP}/verify`);
    expect(refused.body).toMatchObject({
      verified: false,
      verdict: 'cname-mismatch',
      domain: { state: 'failed' },
    });
    expect(refused.body.summary).toMatch(/serves another project now/);
    expect(JSON.stringify(refused.body)).not.toContain(acme.name);
    expect((await t.viaEdge(SHOP, '/v1/pets', acmeKey)).status).toBe(200);
    expect((await t.console(globex.consoleToken, 'DELETE', `/domains/${SHOP}`)).status).toBe(200);
  });
});

describe('refusals', () => {
  it("refuses custom domains on the free plan, with the spec's reason", async () => {
    const free = await t.createProject('free');
    const refused = await t.console(free.consoleToken, 'POST', '/domains', { name: 'hobby.example.test' });
    expectErrorBody(refused, 403, 'plan_without_custom_domains');
    expect(refused.body.message).toMatch(/^Custom domains are available on any paid plan \(Pro or above\)/);
  });

  it('refuses set-plan free while the project has domains', async () => {
    const connection = await connectLocal(t.api.dynamodbEndpoint);
    try {
      const admin = new ProjectAdmin(connection);
      await expect(admin.setPlan(acme.name, 'free')).rejects.toThrow(Refusal);
      await expect(admin.setPlan(acme.name, 'free')).rejects.toThrow(
        `Project ${acme.name} has 2 custom domains, which the free plan does not allow`,
      );
    } finally {
      connection.close();
    }
  });

  it.each([
    [undefined, 'not_signed_in'],
    ['pct_nobody_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'invalid_console_token'],
    ['not-a-token', 'invalid_console_token'],
  ])('answers 401 to token %s, counted per client IP with anonymous API calls', async (token, code) => {
    const refused = await t.console(token, 'GET', '/domains');
    expectErrorBody(refused, 401, code);
    expect(refused.headers.get('x-ratelimit-limit')).toBe(String(ANONYMOUS_LIMITS.perMinute));
  });

  it('refuses an API key as a console token', async () => {
    expectErrorBody(await t.console(acmeKey, 'GET', '/domains'), 401, 'invalid_console_token');
  });

  it('answers 404 for an unknown console path and 405 with Allow for another method', async () => {
    expectErrorBody(await t.console(acme.consoleToken, 'GET', '/nothing'), 404, 'not_found');
    const wrong = await t.console(acme.consoleToken, 'PUT', '/domains');
    expectErrorBody(wrong, 405, 'method_not_allowed');
    expect(wrong.headers.get('allow')).toBe('GET, POST');
  });
});

describe('a certificate that does not come', () => {
  const LATE = 'late.acme-pets.test';

  it('shows the troubleshooting steps after 30 minutes, times out, and is requested again on re-verify', async () => {
    await t.console(acme.consoleToken, 'POST', '/domains', { name: LATE });
    await t.record(LATE, 'CNAME', acme.target);
    await t.console(acme.consoleToken, 'POST', `/domains/${LATE}/verify`);
    // The CNAME is gone before the authority's first try: validation cannot pass.
    await t.removeRecord(LATE, 'CNAME');

    const late = async () =>
      ((await t.console(acme.consoleToken, 'GET', '/domains')).body.domains as { name: string }[]).find(
        (domain) => domain.name === LATE,
      );
    expect(await late()).toMatchObject({ state: 'certificate-pending' });
    expect(await late()).not.toHaveProperty('troubleshooting');

    t.advance(31 * 60_000);
    expect(await late()).toMatchObject({
      state: 'certificate-pending',
      secondsInState: 31 * 60,
      troubleshooting: [
        'Confirm that the domain still verifies.',
        expect.stringMatching(/^Check that CAA records do not block the certificate authority/),
        'Choose Re-verify.',
      ],
    });

    t.advance(PATIENCE_MS);
    expect(await late()).toMatchObject({ state: 'failed', certificate: 'timed-out' });

    await t.record(LATE, 'CNAME', acme.target);
    const again = await t.console(acme.consoleToken, 'POST', `/domains/${LATE}/verify`);
    expect(again.body).toMatchObject({
      verified: true,
      domain: { state: 'certificate-pending', secondsInState: 0 },
    });
    expect(await late()).toMatchObject({ state: 'active', certificate: 'issued' });
  });
});

describe('primary, redirect and removal', () => {
  it('moves the primary: the former becomes additional, and the redirect points at the new one', async () => {
    const moved = await t.console(acme.consoleToken, 'POST', '/domains/late.acme-pets.test/primary');
    expect(moved.status).toBe(200);
    expect(moved.body.domains).toEqual([
      expect.objectContaining({ name: 'late.acme-pets.test', role: 'primary' }),
      expect.objectContaining({ name: SHOP, role: 'additional' }),
      expect.objectContaining({ name: WWW, role: 'redirect' }),
    ]);
    const answer = await t.viaEdge(WWW, '/v1/pets');
    expect(answer.headers.location).toBe(`https://late.acme-pets.test:${t.domains.edge.httpsPort}/v1/pets`);
  });

  it('refuses to remove a domain that has served traffic without the confirmation', async () => {
    const refused = await t.console(acme.consoleToken, 'DELETE', `/domains/${SHOP}`);
    expectErrorBody(refused, 409, 'confirmation_required');
    expect(refused.body.message).toMatch(/confirm=traffic-stops/);
    expect((await t.viaEdge(SHOP, '/v1/pets', acmeKey)).status).toBe(200);
  });

  it('removes a redirect without confirmation (its visitors were sent on already)', async () => {
    const removed = await t.console(acme.consoleToken, 'DELETE', `/domains/${WWW}`);
    expect(removed).toMatchObject({ status: 200, body: { name: WWW, tenant: 'deleted' } });
  });

  it('removes with the confirmation, and the host is refused at once', async () => {
    const removed = await t.console(acme.consoleToken, 'DELETE', `/domains/${SHOP}?confirm=traffic-stops`);
    expect(removed).toMatchObject({ status: 200, body: { name: SHOP, tenant: 'deleted' } });

    await expect(t.viaEdge(SHOP, '/v1/pets', acmeKey)).rejects.toMatchObject(HANDSHAKE_REFUSED);
    const listed = await t.console(acme.consoleToken, 'GET', '/domains');
    expect((listed.body.domains as { name: string }[]).map((domain) => domain.name)).toEqual([
      'late.acme-pets.test',
    ]);
  });
});
