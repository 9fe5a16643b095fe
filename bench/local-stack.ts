import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { issueApiKey } from '../lambda/core/api-key';
import { PET_STATUSES, type PetStatus } from '../lambda/core/pet';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { PetRepository } from '../lambda/store/pet-repository';
import { ProjectRepository } from '../lambda/store/project-repository';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { REPO_ROOT } from '../test/support/processes';
import { ProjectAdmin } from '../tools/project-admin';
import { BENCH_PLAN, type BenchKey } from './events';

/** A local API (`startLocalApi`) running in a child process, with its own embedded store. */
export interface ServerChild {
  readonly baseUrl: string;
  readonly dynamodbEndpoint: string;
  /** A document client and a low-level client on the child's store. */
  readonly documents: DynamoDBDocumentClient;
  readonly raw: DynamoDBClient;
  close(): Promise<void>;
}

/**
 * How long a server child may take to print its addresses: a guard against a child that
 * hangs, not a wait. Five start at once, each compiling with tsx; on a 2-core machine that
 * runs other test files too, 30 s was not enough.
 */
const READY_TIMEOUT_MS = 120_000;

/**
 * Starts `bench/server-child.ts`. The server gets a process (and so a core) of its
 * own, so the load the bench generates does not share its event loop. Its request log
 * (a JSON line per request, as in Lambda) goes to a file: were it piped back, this
 * process, which times the requests, would be woken to read a line for each of them.
 */
export async function startServerChild(limiter: 'on' | 'off'): Promise<ServerChild> {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-bench-log-'));
  const logFd = openSync(path.join(logDir, 'requests.log'), 'w');
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/server-child.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, BENCH_LIMITER: limiter, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', logFd, 'pipe'],
  });
  closeSync(logFd);
  const removeLog = () => rmSync(logDir, { recursive: true, force: true });
  let addresses: { baseUrl: string; dynamodbEndpoint: string };
  try {
    addresses = await readAddresses(child);
  } catch (error) {
    await stopChild(child);
    removeLog();
    throw error;
  }
  const { baseUrl, dynamodbEndpoint } = addresses;
  const documents = createDocumentClient(dynamodbEndpoint);
  const raw = new DynamoDBClient({
    endpoint: dynamodbEndpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return {
    baseUrl,
    dynamodbEndpoint,
    documents,
    raw,
    close: async () => {
      documents.destroy();
      raw.destroy();
      await stopChild(child);
      removeLog();
    },
  };
}

/** The addresses the child prints on stderr once it listens (its stdout is the request log). */
function readAddresses(child: ChildProcess): Promise<{ baseUrl: string; dynamodbEndpoint: string }> {
  return new Promise((resolve, reject) => {
    let errors = '';
    const timer = setTimeout(
      () => reject(new Error(`server child not ready after ${READY_TIMEOUT_MS / 1000} s:\n${errors}`)),
      READY_TIMEOUT_MS,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
      const line = /^\{"baseUrl".*\}$/m.exec(errors)?.[0];
      if (!line) return;
      clearTimeout(timer);
      resolve(JSON.parse(line) as { baseUrl: string; dynamodbEndpoint: string });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`server child exited with ${code} before it was ready:\n${errors}`));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Pets every seeded project has at least: one of each status, created through the repository. */
export const TEMPLATE_PETS = PET_STATUSES.length;

type PetItem = Record<string, unknown>;

/** A project the bench has made: its one key and its pets as the repository stores them. */
export interface SeededProject {
  readonly key: BenchKey;
  /** The project's newest pet (getPet's target), raw. */
  readonly newest: PetItem;
  /** One item of each status exactly as the repository stores it (the raw calls' partition values). */
  readonly byStatus: Readonly<Record<PetStatus, PetItem>>;
}

/**
 * Makes a project on the bench's plan as the projects tool does, with one key in it as the
 * keys tool does. Names have one length (`bench-000`), so that every project's pet items
 * weigh the same and their read units compare.
 */
async function createProject(documents: DynamoDBDocumentClient, index: number): Promise<BenchKey> {
  const keys = new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys);
  const projects = new ProjectAdmin({
    projects: new ProjectRepository(documents, LOCAL_TABLE_NAMES.projects),
    keys,
  });
  const name = `bench-${String(index).padStart(3, '0')}`;
  await projects.create(name, BENCH_PLAN.plan, BENCH_PLAN.limits);
  const { apiKey, record } = issueApiKey(name, 'bench key', new Date());
  await keys.put(record);
  return { apiKey, keyId: record.keyId, project: name };
}

/** One pet of each status created in the project through the repository, read back raw; the last is the newest. */
async function templatePets(documents: DynamoDBDocumentClient, project: string) {
  const pets = new PetRepository(documents, LOCAL_TABLE_NAMES.pets);
  const byStatus: Partial<Record<PetStatus, PetItem>> = {};
  let newest: PetItem = {};
  for (const status of PET_STATUSES) {
    const pet = await pets.create(project, { name: 'Template', categoryId: 1, status });
    const { Item } = await documents.send(
      new GetCommand({ TableName: LOCAL_TABLE_NAMES.pets, Key: { id: pet.id }, ConsistentRead: true }),
    );
    if (!Item) throw new Error('a template pet was not stored');
    byStatus[status] = Item;
    newest = Item;
  }
  return { newest, byStatus: byStatus as Record<PetStatus, PetItem> };
}

/**
 * Makes one project per entry of `sizes`, each with one key and that many pets (at least
 * {@link TEMPLATE_PETS}). Beyond the templates, pets are loaded with parallel BatchWrites,
 * shaped like the repository's items: projects interleaved in id order (as pets of many
 * customers are created), statuses in turn within each project, ids ascending and older
 * than every template's, unique across the table.
 */
export async function seedProjects(
  documents: DynamoDBDocumentClient,
  sizes: readonly number[],
  parallel = 8,
): Promise<SeededProject[]> {
  const seeded: SeededProject[] = [];
  for (const [index, size] of sizes.entries()) {
    if (size < TEMPLATE_PETS) throw new Error(`a project holds at least ${TEMPLATE_PETS} pets`);
    const key = await createProject(documents, index);
    seeded.push({ key, ...(await templatePets(documents, key.project)) });
  }
  // Round-robin over the projects until each has its size.
  const owners: { project: SeededProject; nth: number }[] = [];
  const loadedOf = (index: number) => (sizes[index] ?? 0) - TEMPLATE_PETS;
  const rounds = Math.max(0, ...sizes.map((_, index) => loadedOf(index)));
  for (let nth = 0; nth < rounds; nth++) {
    for (const [index, project] of seeded.entries()) if (nth < loadedOf(index)) owners.push({ project, nth });
  }
  const oldestTemplate = Math.min(
    ...seeded.flatMap(({ byStatus }) => Object.values(byStatus).map((item) => Number(item.id))),
  );
  // A pet id is its creation time in ms × 4096 plus random bits: one apart per millisecond.
  const idOf = (position: number) => oldestTemplate - (owners.length - position) * 4096;
  let next = 0;
  const worker = async () => {
    while (next < owners.length) {
      const start = next;
      next += 25;
      let requests = owners.slice(start, start + 25).map(({ project, nth }, offset) => {
        const id = idOf(start + offset);
        const status = PET_STATUSES[nth % PET_STATUSES.length] as PetStatus;
        return {
          PutRequest: {
            Item: { ...project.byStatus[status], id, name: `Pet ${id}`, categoryId: 1 + (id % 7) },
          },
        };
      });
      while (requests.length > 0) {
        const { UnprocessedItems } = await documents.send(
          new BatchWriteCommand({ RequestItems: { [LOCAL_TABLE_NAMES.pets]: requests } }),
        );
        requests = (UnprocessedItems?.[LOCAL_TABLE_NAMES.pets] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return seeded;
}
