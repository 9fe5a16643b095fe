import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CONSOLE_PAGE_PATH } from '../../local/console-site';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { PetRepository } from '../../lambda/store/pet-repository';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { SMOKE_CHECKS } from '../../tools/smoke-checks';
import { UsageError } from '../../tools/failures';
import { runTool } from '../../tools/cli';
import { INTERRUPTED, runSmoke, SMOKE_TOOL } from '../../tools/smoke';
import {
  REPO_ROOT,
  runTs,
  type RunResult,
  startLocalMode,
  timeoutWithStarts,
  TSX,
} from '../support/processes';
import { waitUntil } from '../support/wait-until';

/**
 * `npm run smoke -- --url …` as an operator runs it, against `npm start` (tools/start.ts on free
 * ports): every check passes and the throwaway project is gone afterwards; behind a proxy that
 * drops one security header, that one check fails, the run exits 1, and it still cleans up; and
 * Ctrl-C during a check cleans up too. What is left is read from the store itself.
 */

/** What an operator must never see: exception names, stack lines, raw socket errors. */
const DEVELOPER_NOISE = /\b\w*(Error|Exception)\b|\n\s+at |ECONNREFUSED/;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'smoke-test-data-'));
let server: Awaited<ReturnType<typeof startLocalMode>>;
let storeEndpoint: string;
let documents: ReturnType<typeof createDocumentClient>;
let projects: ProjectRepository;
let keys: ApiKeyRepository;
let pets: PetRepository;

/** The smoke tool's environment: the store npm start runs, found by its port as an operator's shell would. */
const toolEnv = () => ({ DYNAMODB_PORT: new URL(storeEndpoint).port, DYNAMODB_ENDPOINT: '' });

const lines = (stdout: string) => stdout.trimEnd().split('\n');

/** The throwaway project a run named, and the pet it created. */
function throwawayOf(result: Pick<RunResult, 'stdout'>) {
  const project = /as throwaway project (smoke-[0-9a-f]+) \(free plan\)/.exec(result.stdout)?.[1];
  const pet = /pet (\d+) created/.exec(result.stdout)?.[1];
  if (!project) throw new Error(`no throwaway project in:\n${result.stdout}`);
  return { project, pet: pet === undefined ? undefined : Number(pet) };
}

/** Asserts nothing of the throwaway project is left in the store: project, keys, pets. */
async function expectGone({ project, pet }: { project: string; pet?: number }) {
  expect(await projects.get(project)).toBeUndefined();
  expect(await keys.listByProject(project)).toEqual([]);
  expect((await pets.list(project, { limit: 10 })).pets).toEqual([]);
  if (pet !== undefined) expect(await pets.get(project, pet)).toBeUndefined();
  expect(
    (await projects.list()).map((record) => record.name).filter((name) => name.startsWith('smoke-')),
  ).toEqual([]);
}

/**
 * A reverse proxy on a port of its own in front of npm start: `Host` names its port, so that
 * `<project>.localhost` and the console's hosts reach the service unchanged. `answer` may
 * change what goes back, or hold a request unanswered.
 */
async function startProxy(
  upstreamPort: number,
  answer: (path: string, upstream: IncomingMessage) => { headers: IncomingMessage['headers'] } | 'hold',
): Promise<{ base: string; held: () => number; close: () => Promise<void> }> {
  let held = 0;
  let port = 0;
  const proxy: Server = createServer((incoming, outgoing) => {
    const host = (incoming.headers.host ?? '').replace(`:${port}`, `:${upstreamPort}`);
    const forward = request(
      {
        host: '127.0.0.1',
        port: upstreamPort,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host },
      },
      (upstream) => {
        const changed = answer(incoming.url ?? '/', upstream);
        if (changed === 'hold') {
          held += 1;
          upstream.resume();
          return;
        }
        outgoing.writeHead(upstream.statusCode ?? 502, changed.headers);
        upstream.pipe(outgoing);
      },
    );
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  port = (proxy.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}/v1`,
    held: () => held,
    close: () =>
      new Promise((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

const upstreamPort = () => Number(new URL(server.baseUrl).port);
const isConsolePage = (url: string) => url.split('?')[0] === CONSOLE_PAGE_PATH;

describe('npm run smoke -- --url against npm start', () => {
  beforeAll(async () => {
    // Free ports for the sandbox DNS and the edge too, so parallel test files never collide.
    server = await startLocalMode(dataDir, {
      SANDBOX_DNS_PORT: '0',
      EDGE_HTTPS_PORT: '0',
      EDGE_HTTP_PORT: '0',
    });
    storeEndpoint =
      /DynamoDB-compatible store at (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1] ?? '';
    documents = createDocumentClient(storeEndpoint);
    projects = new ProjectRepository(documents, LOCAL_TABLE_NAMES.projects);
    keys = new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys);
    pets = new PetRepository(documents, LOCAL_TABLE_NAMES.pets);
  }, timeoutWithStarts(1));

  afterAll(async () => {
    documents?.destroy();
    server?.child.kill('SIGTERM');
    await server?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('passes every check, one line each, exits 0, and leaves nothing of its project behind', async () => {
    const result = await runTs('tools/smoke.ts', ['--url', server.baseUrl], toolEnv());
    expect(result.stderr).not.toMatch(DEVELOPER_NOISE);
    expect(result.code).toBe(0);
    const [header, ...rest] = lines(result.stdout);
    expect(header).toMatch(new RegExp(`^Smoke test of ${server.baseUrl} as throwaway project smoke-`));
    expect(rest).toEqual([
      ...SMOKE_CHECKS.map((check) => expect.stringMatching(new RegExp(`^PASS  ${check.name}: \\S`))),
      expect.stringMatching(/^Cleaned up: project smoke-[0-9a-f]+, its key and its pets are gone\.$/),
      `${SMOKE_CHECKS.length} passed, 0 failed, 0 skipped.`,
    ]);
    // It did make a project, a key and a pet: the cleanup had something to remove.
    const made = throwawayOf(result);
    expect(made.pet).toEqual(expect.any(Number));
    expect(result.stderr).toContain(`Creating throwaway project ${made.project}`);
    await expectGone(made);
  }, 90_000);

  it('fails the one check that sees something wrong, exits 1, and still cleans up', async () => {
    // The console page without its Content-Security-Policy; everything else as npm start answers it.
    const proxy = await startProxy(upstreamPort(), (url, upstream) => {
      const headers = { ...upstream.headers };
      if (isConsolePage(url)) delete headers['content-security-policy'];
      return { headers };
    });
    try {
      const result = await runTs('tools/smoke.ts', ['--url', proxy.base], toolEnv());
      expect(result.stderr).not.toMatch(DEVELOPER_NOISE);
      expect(result.code).toBe(1);
      const checkLines = lines(result.stdout).slice(1, 1 + SMOKE_CHECKS.length);
      expect(checkLines.filter((line) => line.startsWith('FAIL'))).toEqual([
        `FAIL  console page security headers: GET http://127.0.0.1:${new URL(proxy.base).port}/console/: Content-Security-Policy missing`,
      ]);
      expect(checkLines.filter((line) => line.startsWith('PASS'))).toHaveLength(SMOKE_CHECKS.length - 1);
      expect(result.stdout).toMatch(/^Cleaned up: project smoke-/m);
      expect(lines(result.stdout).at(-1)).toBe(`${SMOKE_CHECKS.length - 1} passed, 1 failed, 0 skipped.`);
      await expectGone(throwawayOf(result));
    } finally {
      await proxy.close();
    }
  }, 90_000);

  it('on Ctrl-C during a check: that check fails as interrupted, the rest do not run, it cleans up and exits 130', async () => {
    // The console page never answers, so the run is inside that check when Ctrl-C comes.
    const proxy = await startProxy(upstreamPort(), (url, upstream) =>
      isConsolePage(url) ? 'hold' : { headers: upstream.headers },
    );
    try {
      // The script in the child itself (tsx as a loader), so SIGINT reaches it as a terminal's Ctrl-C does.
      const child = spawn(process.execPath, [...TSX, 'tools/smoke.ts', '--url', proxy.base], {
        cwd: REPO_ROOT,
        env: { ...process.env, ...toolEnv() },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      await waitUntil(() => proxy.held() === 1, 'the console page request to be held', 60_000);
      child.kill('SIGINT');
      expect(await exited).toBe(INTERRUPTED);
      expect(stderr).toContain('Interrupted: cleaning up before exiting...');
      expect(stderr).not.toMatch(DEVELOPER_NOISE);
      expect(stdout).toContain('FAIL  console page security headers: interrupted\n');
      const after = SMOKE_CHECKS.slice(
        SMOKE_CHECKS.findIndex((check) => check.name === 'console page security headers') + 1,
      );
      for (const check of after) expect(stdout).not.toContain(`  ${check.name}:`);
      expect(stdout).toMatch(/^Cleaned up: project smoke-/m);
      expect(lines(stdout).at(-1)).toBe(
        `${SMOKE_CHECKS.length - after.length - 1} passed, 1 failed, 0 skipped, ${after.length} not run (interrupted).`,
      );
      await expectGone(throwawayOf({ stdout }));
    } finally {
      await proxy.close();
    }
  }, 90_000);
});

describe('npm run smoke: invocation', () => {
  const noStore = { DYNAMODB_PORT: '1', DYNAMODB_ENDPOINT: '' };

  /**
   * The program's exit-code and stream rules (runTool), in this process: a process start
   * costs about a second of CPU. The program itself runs in the other tests (exit 0, 1, 130).
   */
  async function smokeInProcess(argv: string[]): Promise<RunResult> {
    let stdout = '';
    let stderr = '';
    const run = (args: readonly string[]) =>
      runSmoke(args, {
        out: (line) => {
          stdout += `${line}\n`;
        },
        env: noStore,
      });
    const code = await runTool(SMOKE_TOOL, run, argv, (text) => {
      stderr += text;
    });
    return { code, stdout, stderr };
  }

  it('prints its usage, with every check, on stdout with --help: exit 0', async () => {
    const result = await smokeInProcess(['--help']);
    expect(result).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^Usage: npm run smoke -- \[--stage NAME\] \[--url BASE\]\n/),
      stderr: '',
    });
    for (const check of SMOKE_CHECKS) expect(result.stdout).toContain(`\n  ${check.name}\n`);
  });

  it('refuses a wrong invocation with a message on stderr: exit 2', async () => {
    const result = await smokeInProcess([]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'Give --stage staging|production or --url <base URL>, one of them.\nHelp: npm run smoke -- --help\n',
    });
  });

  it.each([
    [['--url', 'http://127.0.0.1:3000/v1', '--stage', 'staging'], /, not both\.\n/],
    [
      ['--url', 'http://127.0.0.1:3000/pets'],
      /^--url "http:\/\/127\.0\.0\.1:3000\/pets" is not a base URL: use http\(s\):\/\/<host>\[\/<stage>\]\/v1/,
    ],
    [['--url', 'not a url'], /^--url "not a url" is not a URL/],
    [['--stage', 'dev'], /^Unknown stage "dev": use staging or production\.$/],
    [['--bogus'], /^Unknown option --bogus\.\nHelp: npm run smoke -- --help$/],
    [['extra'], /^Unexpected argument "extra"/],
  ])('refuses %j before reaching any store', async (args, message) => {
    const out: string[] = [];
    const run = runSmoke(args, { out: (line) => out.push(line), env: noStore });
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(message);
    expect(out).toEqual([]);
  });

  it('says in one line when the local store is not there: exit 1, no check run', async () => {
    const result = await runTs('tools/smoke.ts', ['--url', 'http://127.0.0.1:1/v1'], noStore);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^smoke: Cannot reach the local store at http:\/\/127\.0\.0\.1:1: nothing listens there\./,
    );
    expect(result.stderr).not.toMatch(DEVELOPER_NOISE);
  }, 30_000);
});

describe('doc/deploying.md', () => {
  it("shows a smoke run whose lines are the checks', in order, and its summary", () => {
    const doc = readFileSync(path.join(REPO_ROOT, 'doc', 'deploying.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## The smoke test'));
    const sample = /```\n(Smoke test of [^]*?)```/.exec(section)?.[1] ?? '';
    const checkLines = lines(sample).filter((line) => /^(PASS|FAIL|SKIP) /.test(line));
    expect(checkLines.map((line) => /^PASS {2}([^:]+):/.exec(line)?.[1])).toEqual(
      SMOKE_CHECKS.map((check) => check.name),
    );
    expect(lines(sample).at(-1)).toBe(`${SMOKE_CHECKS.length} passed, 0 failed, 0 skipped.`);
  });
});
