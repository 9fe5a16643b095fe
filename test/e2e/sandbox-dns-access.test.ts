import { resolverLookup } from '../../lambda/store/dns-resolver';
import type { LocalDomains } from '../../local/local-domains';
import { type ConsoleTestApi, expectError, startConsoleTestApi } from '../support/local-console';

/**
 * Who may write local mode's sandbox DNS (`/console/api/sandbox/records`), over real HTTP and
 * the real DNS server on loopback. The sandbox answers for every name, so a write rewrites DNS:
 * it took writes from anyone (no credential, no Origin check, a `text/plain` body), so any web
 * page a developer visited could point `domains.localhost`, or a tenant's name, elsewhere.
 */

const PATH = '/sandbox/records';

let t: ConsoleTestApi;
let dns: LocalDomains['dns'];
let acme: { name: string; consoleToken: string };
let globex: { name: string; consoleToken: string };

beforeAll(async () => {
  t = await startConsoleTestApi();
  if (!t.api.domains) throw new Error('local mode started without custom domains');
  dns = t.api.domains.dns;
  acme = await t.createProject('pro');
  globex = await t.createProject('pro');
});

afterAll(async () => {
  await t.close();
});

/** What the sandbox answers for `name`, asked as the domains service asks it. */
const answered = (name: string) => resolverLookup(dns.address).a(name);

describe('a write that does not come from the project', () => {
  it('is refused without credentials, and DNS is unchanged', async () => {
    const answer = await t.call(PATH, {
      method: 'POST',
      body: { name: 'domains.localhost', type: 'A', value: '203.0.113.66' },
    });

    expectError(answer, 401, 'not_signed_in');
    expect(await answered('domains.localhost')).toEqual(['127.0.0.1']);
  });

  it("is refused as a web page sends it: another site's Origin, a text/plain body, no credential", async () => {
    const answer = await t.call(PATH, {
      method: 'POST',
      origin: 'https://evil.example',
      headers: { 'Content-Type': 'text/plain' },
      body: { name: 'shop.page-forged.test', type: 'CNAME', value: 'evil.example' },
    });

    expectError(answer, 401, 'not_signed_in');
    expect(await answered('shop.page-forged.test')).toEqual([]);
  });

  it("is refused with the developer's session cookie from another site's Origin, or without the CSRF token", async () => {
    const { cookie, csrfToken } = await t.signIn(acme.consoleToken);
    const write = (request: { origin?: string; csrfToken?: string; contentType?: string }) =>
      t.call(PATH, {
        method: 'POST',
        cookie,
        ...request,
        ...(request.contentType ? { headers: { 'Content-Type': request.contentType } } : {}),
        body: { name: 'shop.cookie-forged.test', type: 'A', value: '203.0.113.66' },
      });

    expectError(
      await write({ origin: 'https://evil.example', csrfToken, contentType: 'text/plain' }),
      403,
      'csrf_origin_refused',
    );
    expectError(await write({ origin: 'https://evil.example', csrfToken }), 403, 'csrf_origin_refused');
    expectError(await write({}), 403, 'csrf_origin_refused');
    expectError(await write({ origin: t.consoleOrigin }), 403, 'csrf_token_invalid');
    expectError(
      await write({ origin: t.consoleOrigin, csrfToken, contentType: 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    expect(await answered('shop.cookie-forged.test')).toEqual([]);

    // The console's own page: its Origin, the CSRF token, JSON.
    expect(await write({ origin: t.consoleOrigin, csrfToken })).toMatchObject({
      status: 201,
      body: { name: 'shop.cookie-forged.test', type: 'A', value: '203.0.113.66', ttl: 3600 },
    });
    expect(await answered('shop.cookie-forged.test')).toEqual(['203.0.113.66']);
  });

  it('is refused with a wrong console token', async () => {
    const answer = await t.call(PATH, {
      method: 'POST',
      bearer: `pct_${acme.name}_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
      body: { name: 'shop.wrong-token.test', type: 'A', value: '203.0.113.66' },
    });

    expectError(answer, 401, 'invalid_console_token');
  });
});

describe("each project's records", () => {
  beforeAll(async () => {
    const created = await t.call(PATH, {
      method: 'POST',
      bearer: acme.consoleToken,
      body: { name: 'shop.acme-zone.test', type: 'CNAME', value: 'domains.localhost' },
    });
    expect(created.status).toBe(201);
  });

  it("lists only the caller's records", async () => {
    const own = await t.call(PATH, { bearer: acme.consoleToken });
    const other = await t.call(PATH, { bearer: globex.consoleToken });

    expect(own.body.records).toContainEqual({
      name: 'shop.acme-zone.test',
      type: 'CNAME',
      value: 'domains.localhost',
      ttl: 3600,
    });
    expect(other).toMatchObject({ status: 200, body: { records: [] } });
    expectError(
      await t.call(`${PATH}?name=not_a..name`, { bearer: globex.consoleToken }),
      400,
      'invalid_parameter',
    );
    expect(await t.call(`${PATH}?name=shop.acme-zone.test`, { bearer: globex.consoleToken })).toMatchObject({
      body: { records: [] },
    });
  });

  it("refuses another project's writes and removals in the zone, CAA on its parent included", async () => {
    const asGlobex = (method: string, request: { body?: unknown; query?: string }) =>
      t.call(`${PATH}${request.query ?? ''}`, { method, bearer: globex.consoleToken, body: request.body });

    expectError(
      await asGlobex('POST', { body: { name: 'shop.acme-zone.test', type: 'A', value: '203.0.113.66' } }),
      409,
      'sandbox_zone_taken',
    );
    expectError(
      await asGlobex('POST', {
        body: { name: 'acme-zone.test', type: 'CAA', value: '0 issue "letsencrypt.org"' },
      }),
      409,
      'sandbox_zone_taken',
    );
    expectError(
      await asGlobex('DELETE', { query: '?name=shop.acme-zone.test&type=CNAME' }),
      409,
      'sandbox_zone_taken',
    );

    expect(dns.records('shop.acme-zone.test')).toEqual([
      { name: 'shop.acme-zone.test', type: 'CNAME', value: 'domains.localhost', ttl: 3600, owner: acme.name },
    ]);
    expect(dns.records('acme-zone.test')).toEqual([]);
  });

  it("refuses every project local mode's own names: the target keeps the edge's address", async () => {
    expectError(
      await t.call(PATH, {
        method: 'POST',
        bearer: acme.consoleToken,
        body: { name: 'domains.localhost', type: 'A', value: '203.0.113.66' },
      }),
      409,
      'sandbox_zone_taken',
    );
    expect(await answered('domains.localhost')).toEqual(['127.0.0.1']);
  });

  it('removes the records of their owner', async () => {
    const removed = await t.call(`${PATH}?name=shop.acme-zone.test&type=CNAME`, {
      method: 'DELETE',
      bearer: acme.consoleToken,
    });

    expect(removed).toMatchObject({ status: 200, body: { removed: 1 } });
    expect(dns.records('shop.acme-zone.test')).toEqual([]);
  });
});
