import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { issueApiKey } from '../../lambda/domain/api-key';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { ensureLocalTables, LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type LocalApi, startLocalApi } from '../../local/server';
import { REPO_ROOT } from '../support/processes';
import { expectError } from '../support/test-api';

/**
 * The embedded store runs in its own process here, so that the test can kill it the way
 * a crash would (SIGKILL: no graceful close) and start it again on the same data.
 */
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-outage-'));
let storeProcess: ChildProcess;
let endpoint: string;
let port: number;
let api: LocalApi;
let apiKey: string;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as { port: number };
      probe.close(() => resolve(free));
    });
  });
}

async function startStoreProcess(): Promise<void> {
  storeProcess = spawn(process.execPath, [
    path.join(REPO_ROOT, 'node_modules', 'dynalite', 'cli.js'),
    ...['--port', String(port), '--host', '127.0.0.1', '--path', dataDir],
    ...['--createTableMs', '0', '--deleteTableMs', '0', '--updateTableMs', '0'],
  ]);
  const admin = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  for (let tries = 0; ; tries++) {
    try {
      await admin.send(new ListTablesCommand({}));
      break;
    } catch (error) {
      if (tries > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  await ensureLocalTables(admin);
  admin.destroy();
}

function killStoreProcess(): Promise<void> {
  return new Promise((resolve) => {
    storeProcess.once('exit', () => resolve());
    storeProcess.kill('SIGKILL');
  });
}

beforeAll(async () => {
  port = await freePort();
  endpoint = `http://127.0.0.1:${port}`;
  await startStoreProcess();
  api = await startLocalApi({ port: 0, dynamodbEndpoint: endpoint });
  const documents = createDocumentClient(endpoint);
  const issued = issueApiKey('enterprise:example-corp', 'resilience', new Date());
  await new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys).put(issued.record);
  documents.destroy();
  apiKey = issued.apiKey;
});
afterAll(async () => {
  await api.close();
  await killStoreProcess();
  rmSync(dataDir, { recursive: true, force: true });
});

const auth = () => ({ Authorization: `Bearer ${apiKey}` });

async function create(name: string): Promise<Response> {
  return fetch(`${api.baseUrl}/pets`, {
    method: 'POST',
    headers: { ...auth(), 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, categoryId: 1 }),
  });
}

describe('the store crashing and restarting under a running server', () => {
  it('fails requests cleanly with 503 while the store is down, serves after it, and loses nothing acknowledged', async () => {
    const acknowledged = new Set<number>();
    const failures: { status: number; body: string }[] = [];
    for (let index = 0; index < 20; index++) {
      const response = await create(`before ${index}`);
      expect(response.status).toBe(201);
      acknowledged.add(((await response.json()) as { id: number }).id);
    }

    let running = true;
    let sent = 0;
    const worker = async (name: string) => {
      while (running) {
        sent += 1;
        const response = await create(`${name} ${sent}`);
        const body = await response.text();
        if (response.status === 201) acknowledged.add((JSON.parse(body) as { id: number }).id);
        else {
          failures.push({ status: response.status, body });
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    const load = Promise.all(['a', 'b', 'c', 'd'].map(worker));
    const stopLoad = setTimeout(() => {
      running = false;
    }, 30_000);

    await new Promise((resolve) => setTimeout(resolve, 200));
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    await killStoreProcess();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const during = await fetch(`${api.baseUrl}/pets?limit=5`, { headers: auth() });
    const duringBody = await expectError(during, 503, 'service_unavailable');
    expect(during.headers.get('retry-after')).toBe('1');
    expect(duringBody.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|\n\s+at /);

    await startStoreProcess();
    await new Promise((resolve) => setTimeout(resolve, 300));
    running = false;
    clearTimeout(stopLoad);
    await load;
    errors.mockRestore();

    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure.status).toBe(503);
      expect(JSON.parse(failure.body)).toMatchObject({ code: 'service_unavailable', status: 503 });
    }
    const after = await create('after the outage');
    expect(after.status).toBe(201);
    acknowledged.add(((await after.json()) as { id: number }).id);

    for (const id of acknowledged) {
      const read = await fetch(`${api.baseUrl}/pets/${id}`, { headers: auth() });
      expect(read.status).toBe(200);
    }
    // Figures for the closing note.
    console.info(
      `outage: ${sent} creates sent during the load, ${failures.length} refused with 503, ${acknowledged.size} acknowledged and all readable`,
    );
  }, 60_000);
});

describe('concurrency', () => {
  it('500 creates all in flight at once yield 500 distinct ids, all readable', async () => {
    const responses = await Promise.all(Array.from({ length: 500 }, (_, index) => create(`burst ${index}`)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(500);
    const ids = await Promise.all(
      responses.map(async (response) => ((await response.json()) as { id: number }).id),
    );
    expect(new Set(ids).size).toBe(500);
    const reads = await Promise.all(ids.map((id) => fetch(`${api.baseUrl}/pets/${id}`, { headers: auth() })));
    expect(reads.every((read) => read.status === 200)).toBe(true);
  }, 60_000);
});
