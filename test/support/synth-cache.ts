import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  watch,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { SYNTH_CACHE_VARIABLE } from './global-setup';
import { REPO_ROOT } from './processes';

/**
 * Synthesis is the slowest part of the template tests, and many files synthesize the same
 * configurations. jest's global setup (test/support/global-setup.ts) names a folder for the
 * run in SYNTH_CACHE_VARIABLE; each configuration's template is written there by the first test
 * file that synthesizes it and read by the others. Without the variable (a file run by
 * other means), every file synthesizes its own.
 */

/** What a template is made from: the app's sources, its dependencies and how the tests build it. */
const SOURCES = [
  'bin',
  'lib',
  'lambda',
  'console',
  'cdk.json',
  'package-lock.json',
  'test/support/synth.ts',
  'test/support/nag-app.ts',
];
const SKIPPED = new Set(['node_modules', 'dist', 'cdk.out']);

/** Adds a file, or every file under a folder in a fixed order, names and contents, to `hash`. */
function addFiles(hash: ReturnType<typeof createHash>, file: string): void {
  const full = path.join(REPO_ROOT, file);
  if (!statSync(full).isDirectory()) {
    hash.update(file).update('\0').update(readFileSync(full)).update('\0');
    return;
  }
  for (const name of readdirSync(full).sort()) if (!SKIPPED.has(name)) addFiles(hash, path.join(file, name));
}

let sourcesHash: string | undefined;
/** A hash of every source file a template depends on, so a cached template is never a stale one. */
function hashOfSources(): string {
  if (sourcesHash === undefined) {
    const hash = createHash('sha256');
    for (const source of SOURCES) if (existsSync(path.join(REPO_ROOT, source))) addFiles(hash, source);
    sourcesHash = hash.digest('hex');
  }
  return sourcesHash;
}

/**
 * The key as text: a property set to undefined (`{ platformAddress: undefined }`, which takes
 * a default away) stays apart from one left out; anything but plain data is refused.
 */
function keyText(key: unknown): string {
  return JSON.stringify(key, (_name, value: unknown) => {
    if (value === undefined) return { undefined: true };
    if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
      throw new Error(`a template's configuration must be plain data to be cached, not a ${typeof value}`);
    }
    return value;
  });
}

const inProcess = new Map<string, Template>();

/** The cache's name for a configuration: the sources' hash and the key. */
const idOf = (key: unknown) =>
  createHash('sha256').update(hashOfSources()).update(keyText(key)).digest('hex');

/**
 * The template `synthesize` makes for the configuration `key` describes (plain JSON data):
 * from this process's memory, else from the run's cache folder, else synthesized and stored
 * in both. Templates are immutable, so sharing one is sound.
 */
export function cachedTemplate(key: unknown, synthesize: () => Template): Template {
  const id = idOf(key);
  const known = inProcess.get(id);
  if (known) return known;
  const folder = process.env[SYNTH_CACHE_VARIABLE];
  const file = folder ? path.join(folder, `${id}.json`) : undefined;
  let template: Template;
  if (file && existsSync(file)) {
    template = Template.fromJSON(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
  } else {
    template = synthesize();
    if (file) {
      // Written whole, then renamed: a file another worker reads is never half-written.
      const partial = `${file}.${process.pid}.partial`;
      writeFileSync(partial, JSON.stringify(template.toJSON()));
      renameSync(partial, file);
    }
  }
  inProcess.set(id, template);
  return template;
}

/** A synthesis kept as files: the cloud assembly's folder, and plain data read from the app's tree. */
export interface CachedSynthesis<T> {
  /** The assembly's folder: template files are named relative to it. */
  readonly outdir: string;
  readonly result: T;
}

const RESULT_FILE = 'synthesis.json';

/** Creates `file` if no one has: the lock of whoever synthesizes. */
function tryLock(file: string): boolean {
  try {
    closeSync(openSync(file, 'wx'));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Resolves once `file` is gone, on the folder's change events. */
function removal(file: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(path.dirname(file), () => {
      if (existsSync(file)) return;
      watcher.close();
      resolve();
    });
    // Gone before the watch began: no event will come.
    if (!existsSync(file)) {
      watcher.close();
      resolve();
    }
  });
}

/**
 * A whole app synthesized once per run, for the test files that read it all (the nag, cfn-lint
 * and IAM checks): `synthesize` writes the assembly to the folder it is given and returns
 * plain data (JSON) of what the files read of the construct tree. The first file to ask
 * synthesizes under a lock; one that asks meanwhile waits for it instead of synthesizing the
 * same app beside it (when it gives up, the next one synthesizes). Without the run's folder,
 * every call synthesizes into a folder of its own.
 */
export async function cachedSynthesis<T>(
  key: unknown,
  synthesize: (outdir: string) => T,
): Promise<CachedSynthesis<T>> {
  const folder = process.env[SYNTH_CACHE_VARIABLE];
  if (!folder) {
    const outdir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-synth-'));
    return { outdir, result: synthesize(outdir) };
  }
  const id = idOf(key);
  const outdir = path.join(folder, id);
  const lock = `${outdir}.lock`;
  for (;;) {
    if (existsSync(path.join(outdir, RESULT_FILE))) {
      return { outdir, result: JSON.parse(readFileSync(path.join(outdir, RESULT_FILE), 'utf8')) as T };
    }
    if (tryLock(lock)) {
      try {
        const partial = `${outdir}.${process.pid}.partial`;
        const result = synthesize(partial);
        writeFileSync(path.join(partial, RESULT_FILE), JSON.stringify(result));
        // The folder appears whole, result last: a reader never sees half an assembly.
        renameSync(partial, outdir);
        return { outdir, result };
      } finally {
        rmSync(lock, { force: true });
      }
    }
    await removal(lock);
  }
}
