import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { AUTHORIZER_MODULE, CATCH_ALL, ROUTES } from '../lambda/api/routes';
import { BUNDLE_OPTIONS } from '../lib/constructs/api-function';
import { figure, type Figure } from './figures';

export const REPO_ROOT = path.resolve(__dirname, '..');

/** A Lambda bundle the bench measures: every function on the API's request path, and the baseline. */
export interface Bundle {
  /** Operation id, the catch-all's name, `authorizer` or `baseline`. */
  readonly name: string;
  readonly kind: 'operation' | 'authorizer' | 'baseline';
  readonly file: string;
  readonly bytes: number;
  /** Bytes in the output per top-level package (`(service)` for this repository's code). */
  readonly bytesByPackage: Record<string, number>;
}

/**
 * The functions on the API's request path, read from the route table so that new ones are picked
 * up: each operation's, the catch-all (an operation here: same stack, same targets) and the
 * authorizer. The console's function and the scheduled stale-tenant sweep are off that path and
 * carry the CloudFront client: they have no target here.
 */
export function functionEntries(): { name: string; kind: Bundle['kind']; entry: string }[] {
  const handlers = path.join(REPO_ROOT, 'lambda', 'handlers');
  return [
    ...ROUTES.map((route) => ({
      name: route.operationId as string,
      kind: 'operation' as const,
      entry: path.join(handlers, `${route.handlerModule}.ts`),
    })),
    { name: CATCH_ALL.name, kind: 'operation', entry: path.join(handlers, `${CATCH_ALL.handlerModule}.ts`) },
    { name: 'authorizer', kind: 'authorizer', entry: path.join(handlers, `${AUTHORIZER_MODULE}.ts`) },
    { name: 'baseline', kind: 'baseline', entry: path.join(__dirname, 'baseline-handler.ts') },
  ];
}

function packageOf(input: string): string {
  const parts = input.split('node_modules/');
  if (parts.length < 2) return '(service)';
  const [first = '', second = ''] = (parts.at(-1) ?? '').split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

function bytesByPackage(metafile: Metafile, output: string): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const [input, { bytesInOutput }] of Object.entries(metafile.outputs[output]?.inputs ?? {})) {
    const name = packageOf(input);
    totals[name] = (totals[name] ?? 0) + bytesInOutput;
  }
  return Object.fromEntries(Object.entries(totals).sort(([, a], [, b]) => b - a));
}

/**
 * Builds every function with exactly the esbuild options the CDK stack bundles it with
 * (BUNDLE_OPTIONS of lib/constructs/api-function.ts); the metafile only reports.
 */
export async function buildBundles(outDir: string): Promise<Bundle[]> {
  const bundles: Bundle[] = [];
  for (const { name, kind, entry } of functionEntries()) {
    if (!existsSync(entry)) {
      // A route whose handler is not written yet: synth would fail on it too.
      process.stderr.write(`bench: skipping ${name}: ${path.relative(REPO_ROOT, entry)} does not exist\n`);
      continue;
    }
    const outfile = path.join(outDir, name, 'index.js');
    const { metafile } = await build({
      ...BUNDLE_OPTIONS,
      external: [...BUNDLE_OPTIONS.external],
      entryPoints: [entry],
      outfile,
      metafile: true,
      logLevel: 'warning',
      absWorkingDir: REPO_ROOT,
    });
    const output = path.relative(REPO_ROOT, outfile).split(path.sep).join('/');
    bundles.push({
      name,
      kind,
      file: outfile,
      bytes: statSync(outfile).size,
      bytesByPackage: bytesByPackage(metafile, output),
    });
  }
  return bundles;
}

/** Bundle size of each function against the baseline: operations ≤ 1.3×, the authorizer ≤ 1.1×. */
export function bundleFigures(bundles: readonly Bundle[]): Figure[] {
  const baseline = bundles.find((bundle) => bundle.kind === 'baseline');
  if (!baseline) throw new Error('no baseline bundle');
  return bundles
    .filter((bundle) => bundle.kind !== 'baseline')
    .map((bundle) =>
      figure({
        name: `bundle.${bundle.name}`,
        description: `bundle size of ${bundle.name}`,
        value: bundle.bytes / 1024,
        unit: 'KiB',
        baseline: { value: baseline.bytes / 1024, name: 'DocumentClient + one GetCommand' },
        target: { of: 'ratio', op: '<=', limit: bundle.kind === 'authorizer' ? 1.1 : 1.3 },
      }),
    );
}
