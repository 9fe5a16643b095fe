import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { contractFetch as fetch } from '../support/contract';
import { runTs, startLocalMode, timeoutWithStarts } from '../support/processes';

// Each test starts npm start, twice at most.
jest.setTimeout(timeoutWithStarts(2));

describe('npm start (local mode)', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-data-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints the base URL and a working key, stops cleanly on SIGTERM, and keeps its data across a restart', async () => {
    const first = await startLocalMode(dataDir);
    expect(first.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const created = await fetch(`${first.baseUrl}/pets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${first.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Persistent Polly', categoryId: 4, status: 'pending' }),
    });
    expect(created.status).toBe(201);
    const pet = (await created.json()) as { id: number };
    // The project's own address, dev.localhost (resolved to loopback), serves it too.
    expect(first.output()).toMatch(/Project dev \(pro plan\) at http:\/\/dev\.localhost:\d+\/v1/);
    expect(first.output()).toMatch(
      /Console token of project dev \(valid until the next start\): pct_dev_\S{43}/,
    );
    const port = new URL(first.baseUrl).port;
    const atAddress = await fetch(`http://127.0.0.1:${port}/v1/pets/${pet.id}`, {
      headers: { Authorization: `Bearer ${first.apiKey}`, Host: `dev.localhost:${port}` },
    });
    expect(atAddress.status).toBe(200);

    // The tools find the store where npm start put it, from the same DYNAMODB_PORT.
    const storePort =
      /DynamoDB-compatible store at http:\/\/127\.0\.0\.1:(\d+)/.exec(first.output())?.[1] ?? '';
    const listed = await runTs('tools/keys.ts', ['list', '--json'], {
      DYNAMODB_PORT: storePort,
      DYNAMODB_ENDPOINT: '',
    });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ name: 'local development key', project: 'dev' }),
    ]);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await startLocalMode(dataDir);
    try {
      const read = await fetch(`${second.baseUrl}/pets/${pet.id}`, {
        headers: { Authorization: `Bearer ${second.apiKey}` },
      });
      expect(read.status).toBe(200);
      expect(await read.json()).toEqual({
        id: pet.id,
        name: 'Persistent Polly',
        categoryId: 4,
        status: 'pending',
      });
      // Each start revokes the previous development key: only the newest works.
      const stale = await fetch(`${second.baseUrl}/pets`, {
        headers: { Authorization: `Bearer ${first.apiKey}` },
      });
      expect(stale.status).toBe(401);
    } finally {
      second.child.kill('SIGINT');
      expect(await second.exited).toBe(0);
    }
  });

  it('refuses a FUNCTION_TIMEOUT_SECONDS that is not a whole number of seconds, saying what to set', async () => {
    const refusedDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-refused-'));
    try {
      const run = await runTs('tools/start.ts', [], {
        FUNCTION_TIMEOUT_SECONDS: 'ten',
        DATA_DIR: refusedDir,
        PORT: '0',
        DYNAMODB_PORT: '0',
        SANDBOX_DNS_PORT: '0',
        EDGE_HTTPS_PORT: '0',
        EDGE_HTTP_PORT: '0',
        OIDC_PORT: '0',
      });
      expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'Could not start the local API: FUNCTION_TIMEOUT_SECONDS="ten": set it to a whole number of seconds from 1 to 3600.\n',
      });
    } finally {
      rmSync(refusedDir, { recursive: true, force: true });
    }
  });
});
