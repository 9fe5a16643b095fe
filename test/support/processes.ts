import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * How a child runs a TypeScript entry point: tsx's CommonJS hook (`--require tsx/cjs`), the
 * part of tsx that compiles this repo's sources (CommonJS: package.json has no "type"). tsx's
 * command also registers its ESM hooks, which run in a loader thread that every `require` of
 * the child consults: about 0.7 s of CPU per `npm start`, for files that are never ESM here
 * (ESM-only packages are imported from node_modules, which Node loads itself). A source that
 * needed those hooks would fail here rather than pass, so nothing passes that `npm run` breaks.
 */
export const TSX = ['--require', 'tsx/cjs'];

/**
 * Runs a TypeScript entry point of the repo with tsx, as `npm run` would, and collects its
 * output. tsx is loaded into the child itself (see {@link TSX}) rather than through its
 * command, which starts a second Node process to relay signals a short run never gets.
 */
export function runTs(script: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...TSX, script, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A long-running child: its output so far, and its exit code once it has exited and its output has been read. */
export interface StartedProcess {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts a long-running TypeScript entry point and resolves once its stdout matches `ready`.
 * The script runs in the child itself (tsx as a loader, as {@link runTs} runs it), without the
 * second process tsx's command starts to relay signals (about half a second of CPU per start).
 * A signal reaches the script directly.
 */
export function startTs(script: string, env: Record<string, string>, ready: RegExp): Promise<StartedProcess> {
  // SIGTERM first: the script stops as it does on a developer's Ctrl-C or a supervisor's stop.
  return startProcess(process.execPath, [...TSX, script], env, ready, 'SIGTERM');
}

/**
 * Like {@link startTs}, for a child a test crashes: one that never gets ready is killed with
 * SIGKILL, as the test would.
 */
export function startTsInProcess(
  script: string,
  env: Record<string, string>,
  ready: RegExp,
): Promise<StartedProcess> {
  return startProcess(process.execPath, [...TSX, script], env, ready, 'SIGKILL');
}

/** How long a started child may take to print that it is ready. */
const READY_DEADLINE_MS = 90_000;

/**
 * jest's timeout for a test or hook that starts `starts` children and then works with them for
 * up to `workMs`: each start may take its whole ready deadline on a busy machine, so a timeout
 * below it would cut a slow start short before its own deadline could name it.
 */
export function timeoutWithStarts(starts: number, workMs = 60_000): number {
  return starts * READY_DEADLINE_MS + workMs;
}

function startProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  /** How to stop a child that never gets ready. */
  stopSignal: NodeJS.Signals,
): Promise<StartedProcess> {
  const child = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env } });
  let output = '';
  // 'close', not 'exit': by then every byte the child wrote has been read.
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return new Promise((resolve, reject) => {
    // A deadline for a child that hangs, not a measure of speed: idle, it is ready in some 3 s,
    // and two suites at once on a machine already busy took more than 30.
    const timer = setTimeout(() => {
      child.kill(stopSignal);
      reject(new Error(`not ready after ${READY_DEADLINE_MS / 1000} s:\n${output}`));
    }, READY_DEADLINE_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output, exited });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready:\n${output}`));
    });
  });
}

const DEV_KEY_LINE = /Development API key [^:]*\(valid until the next start\): (ask_\S+)/;
/**
 * `npm start` is ready once it has printed its last start-up line, whole: the lines before
 * it may reach this process in chunks of their own, so the key line alone does not say
 * that the ones after it (or the key's end) have arrived.
 */
const LOCAL_MODE_READY = /^Try: curl .*\n/m;

/**
 * `npm start` on free ports with its data in `dataDir` and its own embedded store; resolves
 * once it has printed all its start-up lines. `env` adds or overrides variables. The sandbox
 * DNS, the local edge and the local OpenID provider are on free ports too: jest runs test
 * files side by side, and two local modes on the default ports (3053, 3443, 3080, 3900)
 * would refuse each other.
 */
export async function startLocalMode(dataDir: string, env: Record<string, string> = {}) {
  const started = await startTs(
    'tools/start.ts',
    {
      PORT: '0',
      DYNAMODB_PORT: '0',
      SANDBOX_DNS_PORT: '0',
      EDGE_HTTPS_PORT: '0',
      EDGE_HTTP_PORT: '0',
      OIDC_PORT: '0',
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: '',
      ...env,
    },
    LOCAL_MODE_READY,
  );
  const baseUrl = /listening at (http:\/\/\S+\/v1)/.exec(started.output())?.[1] ?? '';
  const apiKey = DEV_KEY_LINE.exec(started.output())?.[1] ?? '';
  return { ...started, baseUrl, apiKey };
}
