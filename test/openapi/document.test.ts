import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ERROR_CATALOGUE } from '../../lambda/api/errors';
import { MAX_BODY_BYTES, NAME_MAX_LENGTH, PAGE_LIMIT } from '../../lambda/api/limits';
import { API_VERSION_PREFIX, ROUTES } from '../../lambda/api/routes';
import { buildOpenApiDocument, INTERFACE_VERSION } from '../../tools/openapi-document';
import { REDOCLY_ENV } from './redocly-env';

const ROOT = path.join(__dirname, '..', '..');
const run = promisify(execFile);
const REDOCLY_CLI = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const checkedIn = JSON.parse(readFileSync(path.join(ROOT, 'openapi.json'), 'utf8')) as Doc;

/** A response's header, through its reference to the document's header components if it has one. */
function headerOf(response: Response | undefined, name: string): Header | undefined {
  const header = response?.headers?.[name];
  if (!header || !('$ref' in header)) return header;
  const component = header.$ref.replace('#/components/headers/', '');
  return checkedIn.components.headers[component];
}

interface Header {
  required?: boolean;
  schema: Record<string, unknown>;
}
interface Response {
  headers?: Record<string, Header | { $ref: string }>;
  content: Record<string, { schema: Record<string, unknown> }>;
}
interface Operation {
  operationId: string;
  security: Record<string, string[]>[];
  deprecated?: boolean;
  'x-sunset'?: string;
  parameters?: { $ref: string }[];
  responses: Record<string, Response>;
}
interface Doc {
  openapi: string;
  info: { version: string; description: string };
  servers: { url: string; description: string; variables?: Record<string, { default: string }> }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, { properties: Record<string, Record<string, unknown>> }>;
    parameters: Record<string, { name: string; schema: Record<string, unknown> }>;
    responses: Record<string, Response>;
    headers: Record<string, Header>;
  };
}

const operations = Object.entries(checkedIn.paths).flatMap(([p, item]) =>
  Object.entries(item).map(([method, operation]) => ({ path: p, method, operation })),
);
const operation = (id: string) => {
  const found = operations.find((o) => o.operation.operationId === id)?.operation;
  if (!found) throw new Error(`No operation ${id}`);
  return found;
};
const codesOf = (response: Response) =>
  (response.content['application/json']?.schema.properties as { code: { enum: string[] } }).code.enum ?? [];

describe('openapi.json', () => {
  it('is what the source generates (run `npm run openapi` after changing routes, schemas, errors or plans)', () => {
    expect(checkedIn).toEqual(buildOpenApiDocument());
  });

  it('and the generated client types are up to date and formatted', async () => {
    // A process (openapi-typescript's dependencies are ES modules jest does not load), run by this
    // Node with tsx's loader: `npx tsx` first started npm, then tsx's second process.
    await expect(
      run(process.execPath, ['--import', 'tsx', 'tools/openapi.ts', '--check'], { cwd: ROOT }),
    ).resolves.toBeDefined();
  }, 60_000);

  it('passes Redocly lint without errors or warnings', async () => {
    // Redocly's own command, run by this Node: npx would first start npm to find it.
    const { stdout, stderr } = await run(process.execPath, [REDOCLY_CLI, 'lint', 'openapi.json'], {
      cwd: ROOT,
      env: { ...process.env, ...REDOCLY_ENV },
    });
    expect(`${stdout}${stderr}`).toMatch(/Your API description is valid/);
    expect(`${stdout}${stderr}`).not.toMatch(/You have \d+ warnings?|error/i);
  }, 60_000);

  it('is OpenAPI 3.1 of interface version 1.0.0 with both environments and local mode as servers', () => {
    expect(checkedIn.openapi).toBe('3.1.0');
    expect(checkedIn.info.version).toBe(INTERFACE_VERSION);
    expect(INTERFACE_VERSION).toBe('1.0.0');
    expect(checkedIn.servers.map((s) => s.url)).toEqual([
      `https://{apiId}.execute-api.{region}.amazonaws.com/production${API_VERSION_PREFIX}`,
      `https://{apiId}.execute-api.{region}.amazonaws.com/staging${API_VERSION_PREFIX}`,
      `http://127.0.0.1:3000${API_VERSION_PREFIX}`,
    ]);
    expect(checkedIn.servers[2]?.description).toMatch(/^Local mode/);
    // Redoc shows server descriptions as plain text.
    for (const server of checkedIn.servers) expect(server.description).not.toMatch(/[`*_[\]]/);
  });

  it('has one operation per route, each with the bearer scheme (optional only for the public document)', () => {
    expect(
      operations.map((o) => `${o.method.toUpperCase()} ${o.path} ${o.operation.operationId}`).sort(),
    ).toEqual(ROUTES.map((r) => `${r.method} ${r.path} ${r.operationId}`).sort());
    for (const route of ROUTES) {
      expect(operation(route.operationId).security).toEqual(
        route.public ? [{}, { bearerAuth: [] }] : [{ bearerAuth: [] }],
      );
    }
  });

  it('documents the spec’s responses and every status the service and the gateway emit, with Error bodies', () => {
    const statuses = (id: string) => Object.keys(operation(id).responses);
    const always = ['401', '403', '413', '429', '500', '502', '503', '504'];
    expect(statuses('listPets')).toEqual(['200', '400', ...always]);
    expect(statuses('createPet')).toEqual([
      '201',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '502',
      '503',
      '504',
    ]);
    expect(statuses('getPet')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '410',
      '413',
      '429',
      '500',
      '502',
      '503',
      '504',
    ]);
    for (const { operation: op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        expect(response.content['application/json']?.schema).toMatchObject({
          allOf: [{ $ref: '#/components/schemas/Error' }],
        });
        for (const code of codesOf(response))
          expect(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].status).toBe(Number(status));
      }
    }
    const documented = new Set([
      ...operations.flatMap(({ operation: op }) =>
        Object.entries(op.responses).flatMap(([status, r]) => (Number(status) >= 400 ? codesOf(r) : [])),
      ),
      ...Object.values(checkedIn.components.responses).flatMap(codesOf),
    ]);
    expect([...documented].sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
  });

  it('puts the rate-limit headers on every response the service can produce, Retry-After on 429 and 503', () => {
    const rateHeaders = [
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'RateLimit-Policy',
      'RateLimit',
    ];
    for (const { operation: op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (['403', '502', '504'].includes(status)) continue;
        expect(Object.keys(response.headers ?? {})).toEqual(expect.arrayContaining(rateHeaders));
      }
      const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))?.[1];
      expect(headerOf(success, 'X-RateLimit-Limit')?.required).toBe(true);
      expect(headerOf(op.responses['429'], 'Retry-After')?.required).toBe(true);
      expect(headerOf(op.responses['503'], 'Retry-After')?.required).toBe(true);
    }
    expect(headerOf(operation('createPet').responses['201'], 'Location')?.required).toBe(true);
    expect(headerOf(operation('listPets').responses['200'], 'Link')?.required).toBe(false);
  });

  it('has the service answer invalid bodies, unknown paths and wrong methods, with the rate-limit headers', () => {
    const limit = (response?: Response) => headerOf(response, 'X-RateLimit-Limit')?.required;
    expect(limit(operation('createPet').responses['400'])).toBe(true);
    expect(limit(checkedIn.components.responses.MethodNotAllowed)).toBe(true);
    expect(headerOf(checkedIn.components.responses.MethodNotAllowed, 'Allow')?.required).toBe(true);
    // Under /v1 the catch-all answers 404 with them; outside /v1 API Gateway, without.
    expect(limit(checkedIn.components.responses.NotFound)).toBe(false);
  });

  it('marks getPet deprecated with its sunset and documents Deprecation, Sunset and Link', () => {
    const getPet = operation('getPet');
    expect(getPet.deprecated).toBe(true);
    expect(getPet['x-sunset']).toBe('2030-12-05');
    expect(getPet.responses['200']?.headers).toMatchObject({
      Deprecation: { required: true, schema: { const: '@1767225600' } },
      Sunset: { required: true, schema: { const: 'Thu, 05 Dec 2030 00:00:00 GMT' } },
      Link: { required: true },
    });
  });

  it('states the limits doc/api.md chose', () => {
    expect(checkedIn.components.parameters.Limit?.schema).toMatchObject({
      type: 'integer',
      minimum: PAGE_LIMIT.min,
      maximum: PAGE_LIMIT.max,
      default: PAGE_LIMIT.default,
    });
    expect(checkedIn.components.schemas.NewPet?.properties.name).toMatchObject({
      maxLength: NAME_MAX_LENGTH,
    });
    expect(JSON.stringify(operation('createPet'))).toContain(`at most ${MAX_BODY_BYTES} bytes`);
    expect(checkedIn.info.description).toContain('8 KiB');
  });
});
