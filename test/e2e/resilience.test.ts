import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { issueApiKey } from '../../lambda/core/api-key';
import { PLANS } from '../../lambda/core/plans';
import { issueConsoleToken, newUsageId } from '../../lambda/core/project';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { ApiKeyRepository } from '../../lambda/store/api-key-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { PAGE_LIMIT } from '../../lambda/core/limits';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type LocalApi, startLocalApi } from '../../local/server';
import { type StartedProcess, startTsInProcess, timeoutWithStarts } from '../support/processes';
import { type StoreRelay, startStoreRelay } from '../support/store-relay';
import { expectError } from '../support/test-api';
import { waitUntil } from '../support/wait-until';

/**
 * The embedded store runs in its own process here, so that the test can kill it the way
 * a crash would (SIGKILL: no graceful close) and start it again on the same data.
 */
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-outage-'));
let relay: StoreRelay;
let store: StartedProcess;
let api: LocalApi;
let apiKey: string;

/**
 * The store's address as the API knows it, one for the whole file (test/support/store-relay.ts),
 * in front of a store that listens on a new system-picked port at each start: a port freed by a
 * crash could be taken by anyone before the restart.
 */
const startRelay = () => startStoreRelay(undefined);

const STORE_READY = /Embedded store listening at http:\/\/127\.0\.0\.1:(\d+)/;

async function startStoreProcess(): Promise<void> {
  store = await startTsInProcess('test/support/store-process.ts', { DATA_DIR: dataDir }, STORE_READY);
  relay.forwardTo(Number(STORE_READY.exec(store.output())?.[1]));
}

/** Resolves once the store process is dead: from then on every store call fails. */
async function killStoreProcess(): Promise<void> {
  relay.forwardTo(undefined);
  store.child.kill('SIGKILL');
  await store.exited;
}

beforeAll(async () => {
  relay = await startRelay();
  await startStoreProcess();
  api = await startLocalApi({ port: 0, dynamodbEndpoint: relay.endpoint });
  const documents = createDocumentClient(relay.endpoint);
  // The most generous allowance, so the load never runs into a limit.
  const project = 'resilience';
  const now = new Date().toISOString();
  await new ProjectRepository(documents, LOCAL_TABLE_NAMES.projects).create({
    name: project,
    plan: 'enterprise',
    agreedLimits: PLANS.enterprise.ceiling,
    createdAt: now,
    consoleTokenHash: issueConsoleToken(project).hash,
    consoleTokenIssuedAt: now,
    usageId: newUsageId(),
  });
  const issued = issueApiKey(project, 'resilience', new Date());
  await new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys).put(issued.record);
  documents.destroy();
  apiKey = issued.apiKey;
}, timeoutWithStarts(1));
afterAll(async () => {
  // Each part only if it started: a store process left running would keep jest from exiting.
  await api?.close();
  if (store) await killStoreProcess();
  await relay?.close();
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

/**
 * Every pet the API lists, by id (its name), read a page of the largest size at a time: what is
 * checked is that each acknowledged create was stored and is served, which a listing shows for
 * hundreds of pets in a few requests (reading each by id is the pets API tests' subject).
 */
async function listed(): Promise<Map<number, string>> {
  const pets = new Map<number, string>();
  let next: string | undefined = `${api.baseUrl}/pets?limit=${PAGE_LIMIT.max}`;
  while (next) {
    const page: Response = await fetch(next, { headers: auth() });
    expect(page.status).toBe(200);
    for (const pet of (await page.json()) as { id: number; name: string }[]) pets.set(pet.id, pet.name);
    next = /<([^>]+)>;\s*rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
  }
  return pets;
}

describe('the store crashing and restarting under a running server', () => {
  it('fails requests cleanly with 503 while the store is down, serves after it, and loses nothing acknowledged', async () => {
    /** Each create answered 201: its id and the name it was sent with. */
    const acknowledged = new Map<number, string>();
    const failures: { status: number; body: string }[] = [];
    for (let index = 0; index < 20; index++) {
      const response = await create(`before ${index}`);
      expect(response.status).toBe(201);
      acknowledged.set(((await response.json()) as { id: number }).id, `before ${index}`);
    }

    let running = true;
    let sent = 0;
    let restarted = false;
    let acknowledgedAfterRestart = 0;
    const worker = async (name: string) => {
      while (running) {
        sent += 1;
        const petName = `${name} ${sent}`;
        const response = await create(petName);
        const body = await response.text();
        if (response.status === 201) {
          acknowledged.set((JSON.parse(body) as { id: number }).id, petName);
          if (restarted) acknowledgedAfterRestart += 1;
        } else {
          failures.push({ status: response.status, body });
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    const load = Promise.all(['a', 'b', 'c', 'd'].map(worker));
    // Stops the workers even if a wait below fails, so that a failing run cannot spin on.
    const stopLoad = setTimeout(() => {
      running = false;
    }, 45_000);

    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await waitUntil(() => acknowledged.size >= 40, 'the load to be served before the crash');
      await killStoreProcess();

      // The store is dead: a read and a create sent now are each refused with 503.
      const during = await fetch(`${api.baseUrl}/pets?limit=5`, { headers: auth() });
      const duringBody = await expectError(during, 503, 'service_unavailable');
      expect(during.headers.get('retry-after')).toBe('1');
      expect(duringBody.message).not.toMatch(/ECONN|socket|127\.0\.0\.1|\n\s+at /);
      const refusedCreate = await create('while the store is down');
      await expectError(refusedCreate, 503, 'service_unavailable');
      expect(refusedCreate.headers.get('retry-after')).toBe('1');

      await startStoreProcess();
      restarted = true;
      await waitUntil(() => acknowledgedAfterRestart >= 20, 'the load to be served again after the restart');
    } finally {
      running = false;
      clearTimeout(stopLoad);
      await load;
      errors.mockRestore();
    }

    // The load's own failures (as many as its requests that met the outage): 503 each, nothing else.
    for (const failure of failures) {
      expect(failure.status).toBe(503);
      expect(JSON.parse(failure.body)).toMatchObject({ code: 'service_unavailable', status: 503 });
    }
    const after = await create('after the outage');
    expect(after.status).toBe(201);
    acknowledged.set(((await after.json()) as { id: number }).id, 'after the outage');

    const stored = await listed();
    const lost = [...acknowledged].filter(([id, name]) => stored.get(id) !== name);
    expect(lost).toEqual([]);
    // Figures for the closing note.
    console.info(
      `outage: ${sent} creates sent during the load, ${failures.length} refused with 503, ${acknowledged.size} acknowledged, each listed as sent`,
    );
  }, 180_000);
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
    // Each stored as created, and served: read back through the listing.
    const stored = await listed();
    expect(ids.map((id) => stored.get(id))).toEqual(ids.map((_, index) => `burst ${index}`));
  }, 180_000);
});
