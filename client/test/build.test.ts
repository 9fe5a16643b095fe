import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { errorStep, scriptedServer } from './support/scripted-server';

/**
 * The package as users get it: `npm run build` (tsc) emits what package.json's `exports`
 * names, plain Node imports it by name as ES modules and makes a call with a retry, and a
 * TypeScript project (NodeNext) type-checks against the emitted declarations.
 */
const run = promisify(execFile);
const ROOT = path.join(__dirname, '..', '..');
const CLIENT = path.join(ROOT, 'client');
const TSC = path.join(ROOT, 'node_modules', '.bin', 'tsc');
const manifest = JSON.parse(readFileSync(path.join(CLIENT, 'package.json'), 'utf8')) as {
  name: string;
  type: string;
  scripts: { build: string };
  exports: { '.': { types: string; default: string } };
};

describe('the built package', () => {
  const consumer = mkdtempSync(path.join(os.tmpdir(), 'animal-store-client-'));
  const installed = path.join(consumer, 'node_modules', ...manifest.name.split('/'));
  afterAll(() => rmSync(consumer, { recursive: true, force: true }));

  beforeAll(async () => {
    expect(manifest.scripts.build).toBe('tsc -p tsconfig.json');
    mkdirSync(installed, { recursive: true });
    copyFileSync(path.join(CLIENT, 'package.json'), path.join(installed, 'package.json'));
    await run(TSC, ['-p', path.join(CLIENT, 'tsconfig.json'), '--outDir', path.join(installed, 'dist')]);
    writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ type: 'module' }));
  }, 60_000);

  it('is ESM whose exports point at the emitted files', () => {
    expect(manifest.type).toBe('module');
    for (const file of Object.values(manifest.exports['.'])) {
      expect(readFileSync(path.join(installed, file), 'utf8')).not.toBe('');
    }
  });

  it('runs in plain Node, imported by name: a call retried after a 503', async () => {
    const api = await scriptedServer([
      errorStep(503, 'service_unavailable', { 'Retry-After': '0' }),
      { status: 200, body: [{ id: 1, name: 'Rex', categoryId: 1, status: 'sold' }] },
    ]);
    try {
      const script = [
        `import { createClient } from '${manifest.name}';`,
        `const client = createClient({ baseUrl: process.argv[1] });`,
        `const page = await client.listPets({ status: 'sold' });`,
        `console.log(JSON.stringify(page));`,
      ].join('\n');
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, api.baseUrl], {
        cwd: consumer,
      });
      expect(JSON.parse(stdout)).toEqual({ pets: [{ id: 1, name: 'Rex', categoryId: 1, status: 'sold' }] });
      expect(api.requests.map((r) => r.url)).toEqual(['/v1/pets?status=sold', '/v1/pets?status=sold']);
    } finally {
      await api.close();
    }
  }, 30_000);

  it('type-checks a NodeNext project against the emitted declarations', async () => {
    writeFileSync(
      path.join(consumer, 'main.ts'),
      [
        `import { ApiError, createClient, type Pet, type RateLimitState } from '${manifest.name}';`,
        `const client = createClient({ baseUrl: 'http://127.0.0.1:3000/v1', retry: { maxRetryAfterMs: 5000 } });`,
        `const pets: Pet[] = (await client.listPets({ status: 'sold' })).pets;`,
        `const state: RateLimitState | undefined = client.rateLimit;`,
        `// @ts-expect-error: not a PetStatus`,
        `await client.listPets({ status: 'lost' });`,
        `const failure: unknown = undefined;`,
        `if (failure instanceof ApiError) console.log(failure.code, failure.retry.retryAfterMs);`,
        `console.log(pets, state);`,
      ].join('\n'),
    );
    const config = {
      compilerOptions: {
        noEmit: true,
        strict: true,
        target: 'ES2022',
        lib: ['ES2022', 'DOM'],
        types: [],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
      },
      files: ['main.ts'],
    };
    writeFileSync(path.join(consumer, 'tsconfig.json'), JSON.stringify(config));
    await expect(run(TSC, ['-p', consumer])).resolves.toBeDefined();
  }, 60_000);
});
