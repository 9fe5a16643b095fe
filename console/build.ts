import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build, type BuildOptions, buildSync, type Metafile } from 'esbuild';

/**
 * The console page, built by esbuild: one script and one style sheet (no inline script or
 * style, as its Content-Security-Policy demands), named by their content hash so that they can
 * be cached for ever, and the page that loads them, which is never cached. Local mode builds
 * it at start; the stack builds it at synth, in its own process (buildConsoleSync).
 */

const SOURCE = path.join(__dirname, 'src');

/** Where `npm start` builds the page (gitignored, as every `dist/`). */
export const CONSOLE_BUILD_DIR = path.join(__dirname, 'dist');

/** A built file, with the headers it is served with (besides CONSOLE_SECURITY_HEADERS). */
export interface ConsoleFile {
  /** Path relative to the build folder, and to the console's `/console/` path: `index.html`, `app-XXXX.js`. */
  readonly path: string;
  readonly contentType: string;
  readonly cacheControl: string;
}

export interface ConsoleBuild {
  readonly dir: string;
  /** The page first. */
  readonly files: readonly ConsoleFile[];
  /** The page's script(s), for the page-weight figure. */
  readonly scripts: readonly string[];
}

/** Hashed names change with their content: a year, never revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page names the current assets: always asked for again. */
const REVALIDATE = 'no-cache';

/** Browsers the page is written for (evergreen, a couple of years back). */
export const CONSOLE_TARGETS = ['chrome109', 'firefox115', 'safari15.6', 'edge109'];

/** How the page's script is bundled; the bench builds its Preact baseline the same way. */
export const CONSOLE_BUNDLE_OPTIONS = {
  bundle: true,
  minify: true,
  format: 'iife',
  target: CONSOLE_TARGETS,
  jsx: 'automatic',
  jsxImportSource: 'preact',
} satisfies BuildOptions;

/** The options of the page's build into `outDir`, which is emptied first. */
function pageBuildOptions(outDir: string) {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  return {
    // main.tsx imports app.css: esbuild writes it beside the script, with the same name.
    entryPoints: { app: path.join(SOURCE, 'main.tsx') },
    ...CONSOLE_BUNDLE_OPTIONS,
    entryNames: '[name]-[hash]',
    outdir: outDir,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    // The page has no source maps in production: nothing to hide, but nothing to serve either.
    sourcemap: false,
  } satisfies BuildOptions;
}

/** Writes the page that loads the built script and style sheet, and lists the files. */
function pageOf(outDir: string, metafile: Metafile): ConsoleBuild {
  const outputs = Object.keys(metafile.outputs).map((file) => path.basename(file));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  if (!script || !style) throw new Error('the console build made no script or no style sheet');
  const page = readFileSync(path.join(SOURCE, 'index.html'), 'utf8')
    .replace('{{app.js}}', script)
    .replace('{{app.css}}', style);
  writeFileSync(path.join(outDir, 'index.html'), page);
  return {
    dir: outDir,
    files: [
      { path: 'index.html', contentType: 'text/html; charset=utf-8', cacheControl: REVALIDATE },
      { path: script, contentType: 'text/javascript; charset=utf-8', cacheControl: IMMUTABLE },
      { path: style, contentType: 'text/css; charset=utf-8', cacheControl: IMMUTABLE },
    ],
    scripts: [script],
  };
}

/** Builds the page into `outDir`, which is emptied first. */
export async function buildConsole(outDir: string): Promise<ConsoleBuild> {
  const { metafile } = await build(pageBuildOptions(outDir));
  return pageOf(outDir, metafile);
}

/**
 * The same build, synchronously: the stack's bundling runs inside synth, in `tryBundle`, which
 * cannot wait (as the functions' bundling, lib/constructs/api-function.ts).
 */
export function buildConsoleSync(outDir: string): ConsoleBuild {
  const { metafile } = buildSync(pageBuildOptions(outDir));
  return pageOf(outDir, metafile);
}
