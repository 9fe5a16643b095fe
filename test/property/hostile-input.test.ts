import { PLANS } from '../../lambda/core/plans';
import { METHODS } from 'node:http';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { ERROR_CATALOGUE } from '../../lambda/api/errors';
import { MAX_BODY_BYTES, MAX_SAFE_ID, NAME_MAX_LENGTH, PAGE_LIMIT } from '../../lambda/api/limits';
import { PET_STATUSES } from '../../lambda/core/pet';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { fakeClock } from '../support/fake-clock';
import {
  checkRawResponse,
  closeRawConnections,
  type RawRequest,
  type RawResponse,
  rawRequest,
} from '../support/raw-http';
import { startTestApi, type TestApi } from '../support/test-api';

// A fixed seed keeps CI reproducible; FAST_CHECK_SEED=random (or a number) explores further.
const seedSetting = process.env.FAST_CHECK_SEED;
if (seedSetting !== 'random') fc.configureGlobal({ seed: seedSetting ? Number(seedSetting) : 20261122 });

/**
 * Inputs per property. Each costs a request through the whole service (some 25 ms of CPU): 1,750
 * of them (500, 400, 300, 300, 250) made this the suite's heaviest file, past its 60 s per
 * property on a busy machine. With the fixed seed, every kind of answer a property met (status
 * and code) had come by its input 33 (bodies, of 500), 17 (headers, of 400), 12 (query strings),
 * 52 (path segments) and 85 (methods): the inputs after those checked the same rules on more
 * inputs of kinds already met. The sizes stay well above those points (850 inputs until the
 * fifth sitting of issue 25, now 620); another seed (above) is the way to explore further.
 */
const RUNS = { bodies: 150, headers: 100, queryStrings: 100, pathSegments: 120, methods: 150 } as const;

/**
 * Hostile input, property-based: arbitrary bodies, headers, query strings, path
 * segments and methods sent over real HTTP to the local API (real gateway emulation,
 * real handlers, real embedded store). Whatever arrives:
 *
 * - the answer is never a 5xx;
 * - every non-2xx answer is exactly the Error body `{code, message, status}`, as
 *   application/json, with `status` equal to the HTTP status and a catalogued code;
 * - every answer is one the OpenAPI document allows;
 * - where the README states the outcome (a valid NewPet is created, a valid key is
 *   accepted, a canonical id is read), the answer is that outcome;
 * - the stored pets change only through creates answered 201, each stored as answered;
 * - nothing leaks onto Object.prototype.
 *
 * Requests go through raw node:http (see raw-http.ts): fetch refuses much of this input.
 */

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

const HOUR = 3_600_000;
/** Far from getPet's sunset (2030-12-05) even after a few thousand simulated hours. */
const START = Date.UTC(2027, 0, 4);
const POSSIBLY_POLLUTED = ['polluted', 'isAdmin', 'status', 'name', 'categoryId'];

let t: TestApi;
let origin: string;
let apiKey: string;
let clock: ReturnType<typeof fakeClock>;
const seeded: Pet[] = [];
let snapshot: Map<number, Record<string, unknown>>;
let prototypeBefore: string[];
/** Every pet a create answered 201 with, by id. */
const acknowledged = new Map<number, Pet>();
/** Inputs tried and statuses seen, per property, for the closing note. */
const tried = new Map<string, Map<number, number>>();

async function scanPets(): Promise<Map<number, Record<string, unknown>>> {
  const documents = createDocumentClient(t.api.dynamodbEndpoint);
  const items = new Map<number, Record<string, unknown>>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({ TableName: LOCAL_TABLE_NAMES.pets, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    for (const item of page.Items ?? []) items.set(item.id as number, item);
    start = page.LastEvaluatedKey;
  } while (start);
  documents.destroy();
  return items;
}

/** The Error shape, checked on every non-2xx answer. */
function expectErrorShape(response: RawResponse, method: string): void {
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  if (method === 'HEAD') return; // no body on HEAD, by HTTP
  const body = JSON.parse(response.text) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status']);
  expect(body.status).toBe(response.status);
  expect(typeof body.message === 'string' && body.message.length > 0).toBe(true);
  expect(body.message).not.toMatch(/\n\s+at /);
  const catalogued = ERROR_CATALOGUE[body.code as keyof typeof ERROR_CATALOGUE];
  expect({ code: body.code, status: catalogued?.status }).toEqual({
    code: body.code,
    status: response.status,
  });
}

/**
 * Sends one hostile request an hour after the previous one on the service clock
 * (so no rate-limit window is shared), then checks what holds for every answer.
 */
async function send(property: string, request: RawRequest): Promise<RawResponse> {
  clock.advance(HOUR);
  const response = await rawRequest(origin, request);
  const statuses = tried.get(property) ?? new Map<number, number>();
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  tried.set(property, statuses);
  try {
    expect(response.status).toBeLessThan(500);
    if (response.status < 200 || response.status > 299) expectErrorShape(response, request.method);
    // A HEAD answer, and OPTIONS's 204, have no body and so no media type.
    else if (request.method !== 'HEAD' && response.status !== 204)
      expect(response.headers['content-type']).toMatch(/^application\/json/);
    // A HEAD answer has no body to validate against the document.
    if (request.method !== 'HEAD') await checkRawResponse(origin, request, response);
  } catch (error) {
    const sent = typeof request.body === 'string' ? request.body : request.body?.toString('utf8');
    throw new Error(
      `${request.method} ${request.path.slice(0, 300)} (headers ${JSON.stringify(request.headers)}, body ${JSON.stringify(sent?.slice(0, 300))}) answered ${response.status} ${response.text.slice(0, 300)}:\n${String(error)}`,
    );
  }
  if (response.status === 201) {
    const pet = JSON.parse(response.text) as Pet;
    acknowledged.set(pet.id, pet);
    expect(response.headers.location).toBe(`${t.baseUrl}/pets/${pet.id}`);
  }
  return response;
}

const auth = (): [string, string] => ['Authorization', `Bearer ${apiKey}`];
const JSON_TYPE: [string, string] = ['Content-Type', 'application/json'];

// ---------------------------------------------------------------------------------------------
// What the README says a createPet body must be: the oracle the answers are compared with.

const JSON_MEDIA_TYPE = /^application\/json\s*(;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/** The pet a body creates, or undefined when the README says it is refused. */
function expectedPet(bytes: Buffer): Omit<Pet, 'id'> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const fields = parsed as Record<string, unknown>;
  if (Object.keys(fields).some((name) => !['name', 'categoryId', 'status'].includes(name))) return undefined;
  const { name, categoryId, status } = fields;
  if (typeof name !== 'string') return undefined;
  const length = [...name].length;
  // A lone surrogate (JSON can escape one) could not be stored as UTF-8: the README says 400.
  if (length < 1 || length > NAME_MAX_LENGTH || !/\S/u.test(name) || !name.isWellFormed()) return undefined;
  if (typeof categoryId !== 'number' || !Number.isInteger(categoryId)) return undefined;
  if (categoryId < 1 || categoryId > MAX_SAFE_ID) return undefined;
  if ('status' in fields && !(PET_STATUSES as readonly unknown[]).includes(status)) return undefined;
  return { name, categoryId, status: (status as string | undefined) ?? 'available' };
}

// ---------------------------------------------------------------------------------------------
// Generators.

/** encodeURIComponent, but total: a lone surrogate goes out as the UTF-8 of U+FFFD, as any client's encoder sends it. */
function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-_.!~*'()]/.test(String.fromCharCode(byte)) && byte < 0x80
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

const ODD_STRINGS = [
  '',
  ' ',
  '\t\n\r',
  '\u0000',
  '\u0000\u0001\u001f\u007f',
  '\ud800',
  '\udc00x',
  'x\udbff',
  '\ud83d\udc08',
  'e\u0301',
  'a\u202eb',
  '\ufeff',
  '\u00a0\u2028\u2029\u3000',
  '\u200b',
  '\u0085',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '${jndi:ldap://x/a}',
  "'; DROP TABLE pets; --",
  '<script>alert(1)</script>',
  '%00',
  '../../etc/passwd',
  'null',
];

/** Strings a client might send: any code point (lone surrogates included), control characters, the odd ones above. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.constantFrom(...ODD_STRINGS),
  fc.string({
    unit: fc.constantFrom(
      'a',
      ' ',
      '\t',
      '\u0000',
      '\u001f',
      '\u007f',
      '\u00a0',
      '\u2028',
      '\ud800',
      '\udfff',
      '🐈',
    ),
    maxLength: 40,
  }),
  // Around the 100 code point limit, in one- and two-unit characters.
  fc
    .tuple(
      fc.integer({ min: NAME_MAX_LENGTH - 2, max: NAME_MAX_LENGTH + 2 }),
      fc.constantFrom('a', '🐈', 'é'),
    )
    .map(([count, unit]) => unit.repeat(count)),
);

/** Number literals exactly as sent: beyond 2^53, -0, 1e400, fractions, other notations. */
const numberText = fc.oneof(
  fc.constantFrom(
    '-0',
    '0',
    '1',
    '1.0',
    '1e0',
    '1E2',
    '0.5',
    '1e400',
    '-1e400',
    '9007199254740991',
    '9007199254740992',
    '9007199254740993',
    '18446744073709551616',
    '1e-400',
    '-1',
    '01',
    'NaN',
    'Infinity',
    '0x10',
    '"1"',
    'true',
    'null',
    '[]',
    '{}',
  ),
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.double().map((value) => JSON.stringify(value)),
  fc.integer({ min: 1, max: 1000 }).map(String),
);

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype'];

/** A JSON value that tries to pollute a prototype when merged or assigned carelessly. */
const pollutingValue = fc.constantFrom(
  '{"polluted":"yes","isAdmin":true}',
  '{"prototype":{"polluted":"yes"}}',
  '{"__proto__":{"polluted":"yes"}}',
  '{"status":"sold","name":"polluted"}',
);

const jsonText = fc.oneof(fc.json({ maxDepth: 3 }), pollutingValue);

/** Objects close to a NewPet, written by hand so that number literals reach the server as generated. */
const nearNewPet = fc
  .record({
    name: fc.option(
      fc.oneof(
        hostileText.map((text) => JSON.stringify(text)),
        jsonText,
      ),
      { nil: undefined },
    ),
    categoryId: fc.option(numberText, { nil: undefined }),
    status: fc.option(
      fc.oneof(
        fc.constantFrom(...PET_STATUSES).map((status) => JSON.stringify(status)),
        fc.constantFrom('"Sold"', '"AVAILABLE"', '""', 'null', '1', '["sold"]'),
        hostileText.map((text) => JSON.stringify(text)),
      ),
      { nil: undefined },
    ),
    extra: fc.array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom(...PROTOTYPE_KEYS, 'polluted', 'id', 'Name', 'name ', 'categoryid', 'status\u0000'),
          hostileText,
        ),
        fc.oneof(pollutingValue, jsonText),
      ),
      { maxLength: 2 },
    ),
    order: fc.integer({ min: 0, max: 5 }),
    prefix: fc.constantFrom('', '', '', ' ', '\n\t', '\ufeff'),
  })
  .map(({ name, categoryId, status, extra, order, prefix }) => {
    const entries: [string, string][] = [];
    if (name !== undefined) entries.push(['name', name]);
    if (categoryId !== undefined) entries.push(['categoryId', categoryId]);
    if (status !== undefined) entries.push(['status', status]);
    entries.push(...extra);
    const rotated = [
      ...entries.slice(order % (entries.length || 1)),
      ...entries.slice(0, order % (entries.length || 1)),
    ];
    return `${prefix}{${rotated.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
  });

const validNewPet = fc
  .record({
    name: hostileText.filter((text) => {
      const length = [...text].length;
      return length >= 1 && length <= NAME_MAX_LENGTH && /\S/u.test(text);
    }),
    categoryId: fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constant(MAX_SAFE_ID)),
    status: fc.option(fc.constantFrom(...PET_STATUSES), { nil: undefined }),
  })
  .map((pet) => JSON.stringify(pet));

/** A body of exactly `size` bytes that is otherwise a valid NewPet (so only its size can refuse it). */
function paddedPet(size: number, unit: 'a' | 'é'): string {
  const frame = JSON.stringify({ name: '', categoryId: 1, pad: '' });
  const room = Math.max(0, size - Buffer.byteLength(frame));
  const padding = unit === 'a' ? 'a'.repeat(room) : 'é'.repeat(Math.floor(room / 2)) + 'a'.repeat(room % 2);
  return JSON.stringify({ name: 'x', categoryId: 1, pad: padding }).replace('"x"', '""');
}

const hugeBody = fc.oneof(
  fc
    .tuple(
      fc.integer({ min: MAX_BODY_BYTES - 40, max: MAX_BODY_BYTES + 40 }),
      fc.constantFrom<'a' | 'é'>('a', 'é'),
    )
    .map(([size, unit]) => paddedPet(size, unit)),
  // A name that fills the limit: refused for its length, or for the size.
  fc
    .integer({ min: MAX_BODY_BYTES - 40, max: MAX_BODY_BYTES + 40 })
    .map((size) => `{"name":"${'n'.repeat(Math.max(0, size - 27))}","categoryId":1}`),
  fc.integer({ min: MAX_BODY_BYTES + 1, max: 200_000 }).map((size) => '"'.padEnd(size - 1, 'x') + '"'),
);

const deeplyNested = fc
  .tuple(fc.integer({ min: 1, max: 6_000 }), fc.constantFrom('[]', '{}', 'pet'))
  .map(([depth, kind]) => {
    if (kind === '[]') return `${'['.repeat(depth)}${']'.repeat(depth)}`;
    if (kind === '{}') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    return `{"name":"deep","categoryId":1,"nested":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  });

const anyBody = fc.oneof(
  { weight: 4, arbitrary: nearNewPet.map((text) => Buffer.from(text)) },
  { weight: 2, arbitrary: validNewPet.map((text) => Buffer.from(text)) },
  { weight: 2, arbitrary: jsonText.map((text) => Buffer.from(text)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map((text) => Buffer.from(text)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: hugeBody.map((text) => Buffer.from(text)) },
  { weight: 1, arbitrary: deeplyNested.map((text) => Buffer.from(text)) },
  // Invalid UTF-8 inside an otherwise valid NewPet (a lone surrogate encoded, an overlong, a stray byte).
  {
    weight: 1,
    arbitrary: fc
      .constantFrom([0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xff], [0xe2, 0x82])
      .map((bad) =>
        Buffer.concat([Buffer.from('{"name":"a'), Buffer.from(bad), Buffer.from('b","categoryId":1}')]),
      ),
  },
);

/** Header names: tokens of RFC 9110, plus ones a gateway treats specially. */
const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".split('');
/** Names that would break the framing of the test's own connection, or that Node answers itself (Expect: 417). */
const FRAMING = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'authorization',
]);
const headerName = fc
  .oneof(
    fc.string({ unit: fc.constantFrom(...TOKEN_CHARS), minLength: 1, maxLength: 20 }),
    fc.constantFrom(
      'X-Forwarded-Proto',
      'x-forwarded-proto',
      'X-Forwarded-For',
      'X-Forwarded-Host',
      'Forwarded',
      'X-Amzn-RequestId',
      'x-amzn-trace-id',
      'X-Api-Key',
      'Cookie',
      'Origin',
      'Content-Encoding',
      'Accept',
      'Accept-Charset',
      'X-HTTP-Method-Override',
      'Content-Type',
      'content-type',
    ),
  )
  .filter((name) => !FRAMING.has(name.toLowerCase()));
/** Header values: visible ASCII, spaces and tabs inside, and obs-text (bytes 0x80 to 0xff). */
const headerValue = fc
  .oneof(
    fc.string({
      unit: fc.oneof(
        fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
        fc.constantFrom('\t', '\u0080', '\u00ff', '\u00e9'),
      ),
      maxLength: 80,
    }),
    fc.constantFrom('javascript', 'https', 'evil.example', 'gzip', '*/*', '', 'true'),
  )
  .map((value) => value.trim());

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'APPLICATION/JSON',
  'application/json; charset="utf-8"',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; foo=bar',
  'application/json, text/plain',
  'application/jsonx',
  'application/problem+json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'text/plain',
  'text/json',
  '*/*',
  ';',
  'application/',
  'json',
];

// ---------------------------------------------------------------------------------------------

/**
 * Each property's deadline: a hang's, not a speed target. Some 2 to 10 s alone; two suites at once
 * beside other work (load 20) took the bodies' 250 requests past 60 s.
 */
const PROPERTY_DEADLINE_MS = 300_000;

beforeAll(async () => {
  t = await startTestApi();
  origin = new URL(t.baseUrl).origin;
  clock = fakeClock(START);
  // The most generous allowance a project can have, so the properties never run into a limit.
  const roomy = await t.createProject('enterprise', { agreedLimits: PLANS.enterprise.ceiling });
  apiKey = (await t.issueKey({ project: roomy.name })).apiKey;
  for (const name of ['Seed Rex', 'Seed Tom', 'Seed Polly']) {
    const response = await rawRequest(origin, {
      method: 'POST',
      path: '/v1/pets',
      headers: [auth(), JSON_TYPE],
      body: JSON.stringify({ name, categoryId: 3, status: 'sold' }),
    });
    expect(response.status).toBe(201);
    seeded.push(JSON.parse(response.text) as Pet);
  }
  snapshot = await scanPets();
  prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
}, 60_000);

afterAll(async () => {
  clock.restore();
  closeRawConnections();
  await t.close();
  for (const [property, statuses] of tried) {
    const total = [...statuses.values()].reduce((sum, count) => sum + count, 0);
    const byStatus = [...statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ');
    console.info(`hostile input, ${property}: ${total} inputs tried (${byStatus})`);
  }
});

describe('hostile input over HTTP', () => {
  it(
    'bodies: createPet answers exactly what the README rules say, never a 5xx, errors in the Error shape',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          anyBody,
          fc.constantFrom(...CONTENT_TYPES.slice(0, 5)),
          async (body, contentType) => {
            const response = await send('bodies', {
              method: 'POST',
              path: '/v1/pets',
              headers: [auth(), ['Content-Type', contentType]],
              body,
            });
            if (body.length > MAX_BODY_BYTES) {
              expect(response.status).toBe(413);
              return;
            }
            const pet = expectedPet(body);
            if (pet) {
              expect(response.status).toBe(201);
              expect(JSON.parse(response.text)).toEqual({ id: expect.any(Number), ...pet });
            } else {
              expect(response.status).toBe(400);
              // The service's 400 (API Gateway validates nothing), with its rate-limit headers.
              expect(response.headers['x-ratelimit-limit']).toBeDefined();
            }
          },
        ),
        { numRuns: RUNS.bodies },
      );
    },
    PROPERTY_DEADLINE_MS,
  );

  it(
    'headers: only one well-formed Bearer header with the key authenticates; odd headers never cause a 5xx',
    async () => {
      const authorizationValue = fc.oneof(
        fc.constantFrom(
          `Bearer ${apiKey}`,
          `bearer ${apiKey}`,
          `BEARER   ${apiKey}   `,
          `Bearer\t${apiKey}`,
          'Bearer',
          'Bearer ',
          `Basic ${Buffer.from(`user:${apiKey}`).toString('base64')}`,
          `Bearer ${apiKey}x`,
          `Bearer ${apiKey.slice(0, -1)}`,
          `Bearer ${apiKey.toUpperCase()}`,
          apiKey,
          `Bearer ${apiKey}, Bearer ${apiKey}`,
          `Bearer ${apiKey} ${apiKey}`,
          `Bearer "${apiKey}"`,
          `Bearer ${apiKey.replace(/_[^_]+$/, `_${'A'.repeat(43)}`)}`,
          `Bearer ask_${'a'.repeat(16)}_${'b'.repeat(43)}`,
          `Bearer ask_${'a'.repeat(16)}_${'b'.repeat(43)}==`,
          'Bearer ask___',
        ),
        headerValue.map((value) => `Bearer ${value}`),
        headerValue,
      );
      const authorizationName = fc.constantFrom('Authorization', 'authorization', 'AUTHORIZATION');
      const authorizationHeaders = fc.oneof(
        // Half the time exactly one valid header, so that the odd headers around it reach the operation.
        fc
          .tuple(authorizationName, fc.constantFrom(`Bearer ${apiKey}`, `bearer  ${apiKey}`))
          .map((header) => [header]),
        fc.array(fc.tuple(authorizationName, authorizationValue), { maxLength: 3 }),
      );
      const extraHeaders = fc.array(fc.tuple(headerName, headerValue), { maxLength: 5 });
      const contentType = fc.oneof(
        fc.constantFrom(...CONTENT_TYPES.slice(0, 5)),
        fc.option(fc.oneof(fc.constantFrom(...CONTENT_TYPES), headerValue), { nil: undefined }),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('list', 'create'),
          authorizationHeaders,
          extraHeaders,
          contentType,
          fc.integer({ min: 0, max: 10 }),
          async (operation, authorization, extra, type, position) => {
            const headers: [string, string][] = [...extra];
            headers.splice(position % (headers.length + 1), 0, ...authorization);
            if (operation === 'create' && type !== undefined) headers.push(['Content-Type', type]);
            const response = await send('headers', {
              method: operation === 'list' ? 'GET' : 'POST',
              path: operation === 'list' ? '/v1/pets?limit=1' : '/v1/pets',
              headers,
              ...(operation === 'create'
                ? { body: JSON.stringify({ name: 'Header Hound', categoryId: 5 }) }
                : {}),
            });
            const sentTypes = headers.filter(([name]) => name.toLowerCase() === 'content-type');
            // The scheme is case-insensitive, the key is not.
            const token = /^bearer +(\S+) *$/i.exec(authorization[0]?.[1].trim() ?? '')?.[1];
            const authenticated = authorization.length === 1 && token === apiKey;
            if (!authenticated) {
              // The authorizer lets the call through; the service answers 401 before it reads the body.
              expect(response.status).toBe(401);
              const { code } = JSON.parse(response.text) as { code: string };
              if (authorization.length === 0) expect(code).toBe('missing_api_key');
              else expect(['invalid_authorization', 'invalid_api_key']).toContain(code);
            } else if (operation === 'list') {
              expect(response.status).toBe(200);
            } else {
              // The gateway and the handler read the last Content-Type line.
              const effective = sentTypes.at(-1)?.[1].trim();
              const jsonType = effective !== undefined && JSON_MEDIA_TYPE.test(effective);
              expect(response.status).toBe(jsonType ? 201 : 415);
            }
          },
        ),
        { numRuns: RUNS.headers },
      );
    },
    PROPERTY_DEADLINE_MS,
  );

  it(
    'query strings: only the documented parameters, each once and valid, are accepted',
    async () => {
      const SAFE = "abcXYZ019-._~!$'()*,;:@/?".split('');
      const rawPart = fc.oneof(
        hostileText.map((text) => percentEncode(text)),
        fc.string({
          unit: fc.constantFrom(...SAFE, '%', '+', '%ZZ', '%2', '%00', '%E2%82', '%C0%AF', '='),
          maxLength: 12,
        }),
        fc.constantFrom(
          'limit',
          'status',
          'cursor',
          'LIMIT',
          'limit[]',
          'status%00',
          'cursor',
          '__proto__',
          'constructor',
        ),
      );
      const value = fc.oneof(
        rawPart,
        fc.constantFrom(
          '1',
          '20',
          '100',
          '0',
          '101',
          '-1',
          '1.5',
          '1e1',
          '007',
          '',
          '%201',
          '1%20',
          '+1',
          ...PET_STATUSES,
          'Sold',
          'sold%00',
        ),
        fc.integer({ min: -5, max: 200 }).map(String),
      );
      const pair = fc.oneof(
        fc.tuple(rawPart, value).map(([key, text]) => `${key}=${text}`),
        fc.tuple(fc.constantFrom('limit', 'status', 'cursor'), value).map(([key, text]) => `${key}=${text}`),
        rawPart,
        fc.constant(''),
      );
      const target = fc.constantFrom(
        '/v1/pets',
        '/v1/pets',
        `/v1/pets/${'1'.repeat(3)}`,
        '/v1/openapi.json',
        'POST /v1/pets',
      );
      await fc.assert(
        fc.asyncProperty(
          target,
          fc.array(pair, { maxLength: 4 }),
          fc.boolean(),
          async (where, pairs, question) => {
            const [method, path] = where.startsWith('POST ') ? ['POST', where.slice(5)] : ['GET', where];
            const query = pairs.join('&');
            const search = query === '' && !question ? '' : `?${query}`;
            const response = await send('query strings', {
              method,
              path: `${path}${search}`,
              headers: [auth(), JSON_TYPE],
              ...(method === 'POST' ? { body: JSON.stringify({ name: 'Query Quokka', categoryId: 2 }) } : {}),
            });
            const parameters = [...new URL(`${path}${search}`, 'http://localhost').searchParams];
            const names = parameters.map(([name]) => name);
            const once = new Set(names).size === names.length;
            if (path === '/v1/pets' && method === 'GET') {
              const valid =
                once &&
                parameters.every(
                  ([name, text]) =>
                    (name === 'limit' && /^[1-9][0-9]*$/.test(text) && Number(text) <= PAGE_LIMIT.max) ||
                    (name === 'status' && (PET_STATUSES as readonly string[]).includes(text)),
                );
              expect(response.status).toBe(valid ? 200 : 400);
            } else {
              const expectedOk = method === 'POST' ? 201 : path === '/v1/openapi.json' ? 200 : 404;
              expect(response.status).toBe(parameters.length === 0 ? expectedOk : 400);
            }
          },
        ),
        { numRuns: RUNS.queryStrings },
      );
    },
    PROPERTY_DEADLINE_MS,
  );

  it(
    'path segments: /v1/pets/<anything> is 200 for a stored id, 404 for another canonical id, else 400 or 404',
    async () => {
      const segment = fc.oneof(
        {
          weight: 3,
          arbitrary: hostileText
            .filter((text) => text !== '' && text !== '.' && text !== '..')
            .map((text) => percentEncode(text)),
        },
        {
          weight: 2,
          arbitrary: fc.oneof(
            fc.constantFrom(...seeded.map((pet) => String(pet.id))),
            fc.integer({ min: 1, max: 10_000 }).map(String),
            fc.constantFrom(
              '0',
              '-1',
              '01',
              '1.0',
              '1e3',
              '0x1',
              '+1',
              '%2B1',
              '%31',
              String(MAX_SAFE_ID),
              String(MAX_SAFE_ID + 1),
              '9'.repeat(17),
              '9'.repeat(400),
              '1%00',
              '1%20',
              '%20',
            ),
          ),
        },
        {
          weight: 2,
          arbitrary: fc.string({
            unit: fc.constantFrom('1', 'a', '%', '%2F', '%2e', '%ZZ', '%C0%AF', ';', '@', ':', '=', '~', '!'),
            minLength: 1,
            maxLength: 8,
          }),
        },
      );
      const prefix = fc.oneof(
        { weight: 6, arbitrary: fc.constant('/v1/pets/') },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '/v2/pets/',
            '/V1/pets/',
            '/v1//pets/',
            '/v1/Pets/',
            '/pets/',
            '/v1/pets/1/',
            '//v1/pets/',
            '//',
            '/v1/pets/..%2F',
          ),
        },
      );
      const suffix = fc.oneof(
        { weight: 6, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: fc.constantFrom('/', '/x', '//', '/%2F') },
      );
      const ids = new Set(seeded.map((pet) => pet.id));
      await fc.assert(
        fc.asyncProperty(prefix, segment, suffix, async (before, text, after) => {
          const response = await send('path segments', {
            method: 'GET',
            path: `${before}${text}${after}`,
            headers: [auth()],
          });
          // A trailing slash is the same resource; a dot segment (`.`, `%2e`) is resolved by URL parsing.
          const dotSegment = /^(\.|%2e){1,2}$/i.test(text);
          if (before === '/v1/pets/' && (after === '' || after === '/') && !dotSegment) {
            let decoded = text;
            try {
              decoded = decodeURIComponent(text);
            } catch {
              // the gateway keeps a segment it cannot decode as it is
            }
            const canonical = /^[1-9][0-9]*$/.test(decoded) && Number(decoded) <= MAX_SAFE_ID;
            const expected = canonical ? (ids.has(Number(decoded)) ? 200 : 404) : 400;
            expect(response.status).toBe(expected);
            if (expected === 200) expect(seeded).toContainEqual(JSON.parse(response.text));
          } else if (!dotSegment) {
            expect(response.status).not.toBe(200);
          }
        }),
        { numRuns: RUNS.pathSegments },
      );
    },
    PROPERTY_DEADLINE_MS,
  );

  it(
    'methods: a known path with another method is 405 with Allow (OPTIONS 204 with Allow); an unknown path is 404; under /v1 all are counted',
    async () => {
      // Every method Node's HTTP parser accepts (it answers any other itself, before the gateway runs).
      const methods = METHODS.filter((method) => method !== 'CONNECT');
      const PATHS: Record<string, string[] | undefined> = {
        '/v1/pets': ['GET', 'POST'],
        '/v1/pets/': ['GET', 'POST'],
        [`/v1/pets/${'7'.repeat(4)}`]: ['GET'],
        '/v1/openapi.json': ['GET'],
        '/v1': undefined,
        '/': undefined,
        '/v2/pets': undefined,
        '/v1/pets/1/x': undefined,
        '/v1/openapi.json/x': undefined,
      };
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...methods),
          fc.constantFrom(...Object.keys(PATHS)),
          fc.boolean(),
          fc.option(fc.oneof(validNewPet, jsonText), { nil: undefined }),
          async (method, path, withKey, body) => {
            const response = await send('methods', {
              method,
              path,
              headers: [...(withKey ? [auth()] : []), JSON_TYPE],
              ...(body !== undefined ? { body } : {}),
            });
            const allowed = PATHS[path];
            // Under /v1 the service answers (counted, with its headers); outside it only the gateway.
            const underPrefix = path === '/v1' || path.startsWith('/v1/');
            if (!allowed) {
              expect(response.status).toBe(404);
              expect(response.headers['x-ratelimit-limit'] !== undefined).toBe(underPrefix);
            } else if (method === 'OPTIONS') {
              // Answered, never 405: 204 with Allow (no Origin is sent, so no preflight).
              expect([response.status, response.headers.allow]).toEqual([204, allowed.join(', ')]);
              expect(response.headers['x-ratelimit-limit']).toBeDefined();
            } else if (!allowed.includes(method)) {
              expect(response.status).toBe(405);
              expect(response.headers.allow).toBe(allowed.join(', '));
              expect(response.headers['x-ratelimit-limit']).toBeDefined();
            } else {
              expect(response.status).not.toBe(405);
              if (!withKey && path !== '/v1/openapi.json') expect([400, 401]).toContain(response.status);
            }
          },
        ),
        { numRuns: RUNS.methods },
      );
    },
    PROPERTY_DEADLINE_MS,
  );
});

describe('after the hostile input', () => {
  it('the stored pets are the snapshot plus exactly the pets answered 201, each as answered', async () => {
    const after = await scanPets();
    for (const [id, item] of snapshot) expect(after.get(id)).toEqual(item);
    const added = [...after.values()]
      .filter((item) => !snapshot.has(item.id as number))
      .map(({ id, name, categoryId, status }) => ({ id, name, categoryId, status }));
    expect(added.sort((a, b) => Number(a.id) - Number(b.id))).toEqual(
      [...acknowledged.values()].sort((a, b) => a.id - b.id),
    );
    expect(after.size).toBe(snapshot.size + acknowledged.size);
    console.info(
      `hostile input: ${acknowledged.size} pets created (201) during the run, ${snapshot.size} seeded; the table holds exactly those`,
    );
  });

  it('nothing reached Object.prototype', () => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
    const probe = {} as Record<string, unknown>;
    for (const name of POSSIBLY_POLLUTED) expect(probe[name]).toBeUndefined();
    expect(Object.getOwnPropertyNames(Array.prototype)).not.toContain('polluted');
  });
});
