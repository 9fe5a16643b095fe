import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
const TSX = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript entry point of the repo with tsx, as `npm run` would, and collects its output. */
export function runTs(script: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, [script, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env } });
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

/** Starts a long-running TypeScript entry point and resolves once its stdout matches `ready`. */
export function startTs(
  script: string,
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcessWithoutNullStreams; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(TSX, [script], { cwd: REPO_ROOT, env: { ...process.env, ...env } });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output, exited });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready:\n${output}`));
    });
  });
}

const DEV_KEY_LINE = /Development API key \(valid until the next start\): (ask_\S+)/;

/** `npm start` on free ports with its data in `dataDir`; resolves once it has printed its base URL and key. */
export async function startLocalMode(dataDir: string) {
  const started = await startTs(
    'local/start.ts',
    { PORT: '0', DYNAMODB_PORT: '0', DATA_DIR: dataDir },
    DEV_KEY_LINE,
  );
  const baseUrl = /listening at (http:\/\/\S+\/v1)/.exec(started.output())?.[1] ?? '';
  const apiKey = DEV_KEY_LINE.exec(started.output())?.[1] ?? '';
  return { ...started, baseUrl, apiKey };
}
