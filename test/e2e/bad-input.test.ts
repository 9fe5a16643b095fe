// Warnings and errors are written (the suite is silent by default), so the test sees what is logged.
process.env.POWERTOOLS_LOG_LEVEL = 'WARN';

import { request as httpRequest } from 'node:http';
import { type CapturedOutput, captureOutput } from '../support/capture-output';
import { type ConsoleAnswer, type ConsoleTestApi, startConsoleTestApi } from '../support/local-console';
import { closeRawConnections, type RawResponse, rawRequest } from '../support/raw-http';

/**
 * Bad input is the caller's mistake, never a store outage. An identifier longer than any the
 * service has (DynamoDB refuses keys over 2,048 bytes) is refused where it enters, with a 4xx
 * Error body, before any lookup: nothing is logged as an error about the store. And every JSON
 * answer, whoever makes it, carries `X-Content-Type-Options: nosniff`.
 */

/** Over the store's 2,048-byte key limit. */
const LONG = 'a'.repeat(3_000);
const SECRET = 'A'.repeat(43);

let t: ConsoleTestApi;
let origin: string;
let owner: { name: string; consoleToken: string };
let session: { cookie: string; csrfToken: string };
let output: CapturedOutput | undefined;

beforeAll(async () => {
  t = await startConsoleTestApi();
  origin = `http://127.0.0.1:${t.port}`;
  owner = await t.createProject('pro');
  session = await t.signIn(owner.consoleToken);
});

afterAll(async () => {
  closeRawConnections();
  await t.close();
});

afterEach(() => {
  output?.restore();
  output = undefined;
});

/** A change from the console page with the owner's session. */
const change = (method: string, path: string) =>
  t.call(path, { method, cookie: session.cookie, origin: t.consoleOrigin, csrfToken: session.csrfToken });

/** The answer is the Error body of `status` and `code`, and nothing written names the store or is an ERROR. */
function expectRefused(
  answer: ConsoleAnswer | { status: number; body: unknown },
  status: number,
  code: string,
) {
  expect({ status: answer.status, body: answer.body }).toEqual({
    status,
    body: { code, message: expect.any(String), status },
  });
  const written = output?.lines() ?? [];
  expect(written.filter((line) => /"level":"ERROR"|store|ValidationException/i.test(line))).toEqual([]);
}

const parsed = (response: RawResponse) => ({
  status: response.status,
  body: JSON.parse(response.text) as unknown,
});

describe('over-long identifiers are refused where they enter, 4xx, with no store error logged', () => {
  beforeEach(() => {
    output = captureOutput();
  });

  it.each([
    ['POST /keys/<3,000 characters>/rotate', 'POST', `/keys/${LONG}/rotate`],
    ['DELETE /keys/<3,000 characters>', 'DELETE', `/keys/${LONG}`],
  ])('a key id in a console path (%s): 400 invalid_parameter', async (_, method, path) => {
    const answer = await change(method, path);
    expectRefused(answer, 400, 'invalid_parameter');
    expect(answer.body.message).toContain('3000 characters');
  });

  it.each([
    ['POST /domains/<3,000 characters>.example.com/verify', 'POST', `/domains/${LONG}.example.com/verify`],
    ['POST /domains/<1,500 labels>.com/primary', 'POST', `/domains/${'a.'.repeat(1_500)}com/primary`],
    ['POST /domains/<3,000 characters>/redirect', 'POST', `/domains/${LONG}/redirect`],
    ['DELETE /domains/<3,000 characters>', 'DELETE', `/domains/${LONG}`],
  ])('a domain name in a console path (%s): 400 invalid_domain', async (_, method, path) => {
    expectRefused(await change(method, path), 400, 'invalid_domain');
  });

  it('a console token as a bearer (the tools): 401 invalid_console_token, as any token that is not valid', async () => {
    expectRefused(await t.call('/usage', { bearer: `pct_${LONG}_${SECRET}` }), 401, 'invalid_console_token');
  });

  it('a console token at sign-in: 400 when over the body’s bound, 401 when its project cannot exist', async () => {
    const signIn = (token: string) =>
      t.call('/session', { method: 'POST', origin: t.consoleOrigin, body: { token } });
    expectRefused(await signIn(`pct_${LONG}_${SECRET}`), 400, 'invalid_body');
    expectRefused(await signIn(`pct_${'a'.repeat(64)}_${SECRET}`), 401, 'invalid_console_token');
  });

  it('an API key: 401 invalid_api_key, as any key that is not valid', async () => {
    const response = await rawRequest(origin, {
      method: 'GET',
      path: '/v1/pets',
      headers: [['Authorization', `Bearer ask_${LONG}_${SECRET}`]],
    });
    expectRefused(parsed(response), 401, 'invalid_api_key');
  });

  it.each([
    ['a label over 63 characters', `${'a'.repeat(64)}.localhost`],
    ['a label over the store’s key limit', `${LONG}.localhost`],
  ])('a Host with %s: 404 not_found, as an address no project has', async (_, host) => {
    const response = await rawRequest(origin, {
      method: 'GET',
      path: '/v1/pets',
      headers: [
        ['Host', `${host}:${t.port}`],
        ['Authorization', `Bearer ask_${'b'.repeat(16)}_${SECRET}`],
      ],
    });
    expectRefused(parsed(response), 404, 'not_found');
  });
});

describe('every JSON answer carries X-Content-Type-Options: nosniff', () => {
  const nosniff = (headers: Headers | Record<string, string>) =>
    headers instanceof Headers ? headers.get('x-content-type-options') : headers['x-content-type-options'];

  it('an operation’s success and its errors', async () => {
    const { apiKey } = await t.issueKey(owner.name);
    const listed = await fetch(`${t.apiBase}/pets`, { headers: { Authorization: `Bearer ${apiKey}` } });
    const refused = await fetch(`${t.apiBase}/pets`);
    const document = await fetch(`${t.apiBase}/openapi.json`);
    expect([listed.status, refused.status, document.status]).toEqual([200, 401, 200]);
    for (const response of [listed, refused, document]) expect(nosniff(response.headers)).toBe('nosniff');
  });

  it('the catch-all’s 404 and 405', async () => {
    const unknown = await fetch(`${t.apiBase}/no-such-path`);
    const method = await fetch(`${t.apiBase}/pets`, { method: 'PATCH' });
    expect([unknown.status, method.status]).toEqual([404, 405]);
    for (const response of [unknown, method]) expect(nosniff(response.headers)).toBe('nosniff');
  });

  it('the gateway’s own refusals: a path outside /v1, a body over the limit', async () => {
    const outside = await fetch(`${origin}/v2/pets`);
    const tooLarge = await fetch(`${t.apiBase}/pets`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(20_000) }),
    });
    expect([outside.status, tooLarge.status]).toEqual([404, 413]);
    for (const response of [outside, tooLarge]) expect(nosniff(response.headers)).toBe('nosniff');
  });

  it('the console’s API, signed in and not', async () => {
    const usage = await t.call('/usage', { cookie: session.cookie });
    const signedOut = await t.call('/usage');
    expect([usage.status, signedOut.status]).toEqual([200, 401]);
    for (const answer of [usage, signedOut]) expect(nosniff(answer.headers)).toBe('nosniff');
  });

  it('the HTTPS edge’s own refusal of a host it does not serve', async () => {
    const edge = t.api.domains?.edge;
    if (!edge) throw new Error('local mode started without its edge');
    const answer = await new Promise<{ status: number; headers: Record<string, string> }>(
      (resolve, reject) => {
        // Plain HTTP: the edge answers a host it has no route for before any redirect to HTTPS.
        const outgoing = httpRequest(
          { host: edge.host, port: edge.httpPort, path: '/', headers: { Host: 'unknown.example.test' } },
          (incoming) => {
            incoming.resume();
            incoming.on('end', () =>
              resolve({
                status: incoming.statusCode ?? 0,
                headers: incoming.headers as Record<string, string>,
              }),
            );
          },
        );
        outgoing.on('error', reject);
        outgoing.end();
      },
    );
    expect(answer.status).toBe(404);
    expect(nosniff(answer.headers)).toBe('nosniff');
  });
});
