import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../support/processes';

/**
 * `cdk synth` as a platform engineer runs it, with real esbuild bundling, and with
 * no AWS credentials, account or region in the environment.
 */
describe('npx cdk synth', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'animal-store-cdk-out-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('works offline without credentials and bundles every function with esbuild', () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(AWS_|CDK_DEFAULT_)/.test(name)),
    );
    const result = spawnSync(
      path.join(REPO_ROOT, 'node_modules', '.bin', 'cdk'),
      ['synth', '--quiet', '--output', out],
      {
        cwd: REPO_ROOT,
        env: { ...env, HOME: out },
        encoding: 'utf8',
        timeout: 180_000,
      },
    );
    expect({ status: result.status, stderr: result.status === 0 ? '' : result.stderr }).toEqual({
      status: 0,
      stderr: '',
    });
    for (const stack of ['AnimalStore-staging', 'AnimalStore-production']) {
      expect(existsSync(path.join(out, `${stack}.template.json`))).toBe(true);
    }
    const bundles = readdirSync(out)
      .filter((entry) => entry.startsWith('asset.') && statSync(path.join(out, entry)).isDirectory())
      .map((entry) => path.join(out, entry, 'index.js'))
      .filter((file) => existsSync(file));
    // Five functions per stack (four operations and the authorizer); both stacks share the same five assets.
    expect(bundles).toHaveLength(5);
    // The OpenAPI document is bundled into its function, never read from disk at run time.
    const withDocument = bundles.filter((bundle) =>
      readFileSync(bundle, 'utf8').includes('jsonSchemaDialect'),
    );
    expect(withDocument).toHaveLength(1);
    expect(readFileSync(withDocument[0] ?? '', 'utf8')).not.toMatch(/readFileSync\([^)]*openapi/);
    for (const bundle of bundles) {
      const code = readFileSync(bundle, 'utf8');
      expect(code).toContain('DynamoDBClient');
      // The SDK is bundled; only its optional CRT signer stays a guarded dynamic require.
      expect(code).not.toMatch(/require\("@aws-sdk\/(client|lib)-/);
    }
  }, 180_000);
});
