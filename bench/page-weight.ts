import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildConsole, CONSOLE_BUNDLE_OPTIONS } from '../console/build';
import { figure, type Figure } from './figures';

/** The target for the console page: under 100 KiB of JavaScript, gzipped. */
export const CONSOLE_JS_TARGET_KIB = 100;

/** Gzipped size in KiB (level 9, as a CDN compresses static files ahead of time). */
function gzippedKiB(files: readonly string[]): number {
  return files.reduce((total, file) => total + gzipSync(readFileSync(file), { level: 9 }).length, 0) / 1024;
}

/**
 * The baseline: Preact rendering one element, bundled with the console's own options, so the
 * ratio shows what the console adds to its library.
 */
async function baselineKiB(workDir: string): Promise<number> {
  const entry = path.join(workDir, 'baseline.tsx');
  writeFileSync(entry, "import { render } from 'preact';\nrender(<p>Hello</p>, document.body);\n");
  const outfile = path.join(workDir, 'baseline.js');
  await build({
    entryPoints: [entry],
    outfile,
    ...CONSOLE_BUNDLE_OPTIONS,
    // The entry sits outside the repository: Preact is resolved from its node_modules.
    nodePaths: [path.resolve(__dirname, '..', 'node_modules')],
    logLevel: 'warning',
  });
  return gzippedKiB([outfile]);
}

/** The console page's JavaScript as served (built as local mode and the stack build it), gzipped. */
export async function measurePageWeight(workDir: string): Promise<Figure> {
  const dir = mkdtempSync(path.join(workDir, 'console-'));
  try {
    const site = await buildConsole(path.join(dir, 'site'));
    const value = gzippedKiB(site.scripts.map((script) => path.join(site.dir, script)));
    return figure({
      name: 'page.consoleJs',
      description: "the console page's JavaScript, gzipped",
      value,
      unit: 'KiB',
      baseline: { value: await baselineKiB(dir), name: 'Preact rendering one element' },
      target: { of: 'value', op: '<=', limit: CONSOLE_JS_TARGET_KIB },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
