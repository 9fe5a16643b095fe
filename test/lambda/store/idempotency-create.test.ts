/**
 * createPetIdempotently against the real embedded store: the rules of a key's life, then
 * exactly-once under an injected store failure before or after every call of every path,
 * with the clock moved past the lease or 25 hours ahead, and under concurrent attempts.
 */
import { StoreUnavailableError } from '../../../lambda/core/errors';
import {
  createPetIdempotently,
  IDEMPOTENCY_KEY_TTL_SECONDS,
  IDEMPOTENCY_LEASE_MS,
  type IdempotencyStore,
  type IdempotentCreate,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  IN_FLIGHT_TTL_SECONDS,
  type ReservedPetWriter,
} from '../../../lambda/core/idempotency';
import type { NewPet, Pet } from '../../../lambda/core/pet';
import { createDocumentClient } from '../../../lambda/store/dynamodb-client';
import { IdempotencyRepository } from '../../../lambda/store/idempotency-repository';
import { PetRepository } from '../../../lambda/store/pet-repository';
import { IDEMPOTENCY_TABLE } from '../../../lambda/store/table-schema';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';

const TABLE = 'test-idempotency-keys';
const START = Date.UTC(2026, 5, 1, 12, 0, 0);
const HOUR_MS = 3_600_000;
const AFTER_LEASE_MS = IDEMPOTENCY_LEASE_MS + 1_000;
const KEY = '8e03978e-40d5-43e8-bc93-6894a57f9324';
const BODY: NewPet = { name: 'Rex', categoryId: 3 };

let store: TestStore;
let records: IdempotencyRepository;
let pets: PetRepository;
let now = START;
let projectNumber = 0;
let nextId = 1_000_000;

/** A project of its own per scenario, so its pets are counted alone. */
const nextProject = () => `p${++projectNumber}`;

type Step = keyof IdempotencyStore | keyof ReservedPetWriter;
type Hook = (step: Step, index: number) => void | Promise<void>;

/** The repositories seen through hooks that run before and after each call (1-based across both). */
function instrumented(hooks: { before?: Hook; after?: Hook } = {}) {
  const calls: Step[] = [];
  const wrap =
    <A extends unknown[], R>(step: Step, call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      calls.push(step);
      const index = calls.length;
      await hooks.before?.(step, index);
      const result = await call(...args);
      await hooks.after?.(step, index);
      return result;
    };
  const wrappedStore: IdempotencyStore = {
    read: wrap('read', (...args) => records.read(...args)),
    reserve: wrap('reserve', (...args) => records.reserve(...args)),
    takeOver: wrap('takeOver', (...args) => records.takeOver(...args)),
    reassign: wrap('reassign', (...args) => records.reassign(...args)),
    complete: wrap('complete', (...args) => records.complete(...args)),
  };
  const wrappedPets: ReservedPetWriter = {
    writeReserved: wrap('writeReserved', (...args) => pets.writeReserved(...args)),
  };
  return { calls, store: wrappedStore, pets: wrappedPets };
}

type When = 'before' | 'after';

/** Hooks that fail the `index`-th call, before it reaches the store or after it landed (its answer lost). */
function failing(index: number, when: When, alsoAt?: Hook) {
  const fail: (phase: When) => Hook = (phase) => async (step, at) => {
    if (at === index && phase === when) {
      await alsoAt?.(step, at);
      throw new StoreUnavailableError(new Error(`injected failure ${when} ${step}`));
    }
  };
  return { before: fail('before'), after: fail('after') };
}

/** Pet ids in a set order, so that collisions happen exactly where a test puts them. */
function ids(...first: number[]) {
  return () => first.shift() ?? nextId++;
}

function attempt(
  project: string,
  hooks: { before?: Hook; after?: Hook } = {},
  options: { body?: NewPet; newPetId?: () => number } = {},
) {
  const parts = instrumented(hooks);
  const run = createPetIdempotently(project, KEY, options.body ?? BODY, {
    store: parts.store,
    pets: parts.pets,
    clock: () => now,
    newPetId: options.newPetId ?? ids(),
  });
  return Object.assign(run, { calls: parts.calls });
}

async function outcomeOf(run: Promise<IdempotentCreate>): Promise<IdempotentCreate | string> {
  try {
    return await run;
  } catch (error) {
    if (error instanceof IdempotencyKeyInUseError) return `in use, retry after ${error.retryAfterSeconds} s`;
    if (error instanceof IdempotencyKeyReusedError) return 'reused';
    if (error instanceof StoreUnavailableError) return 'store unavailable';
    throw error;
  }
}

async function petsOf(project: string): Promise<Pet[]> {
  return (await pets.list(project, { limit: 10 })).pets;
}

beforeAll(async () => {
  store = await startTestStore();
  await store.createTable(IDEMPOTENCY_TABLE, TABLE);
  records = new IdempotencyRepository(store.documents, TABLE);
  pets = new PetRepository(store.documents, LOCAL_TABLE_NAMES.pets);
});
afterAll(() => store.close());
beforeEach(() => {
  now = START;
});

describe('an idempotent create', () => {
  it('creates with three conditional writes, then replays without writing', async () => {
    const project = nextProject();
    const first = attempt(project);
    const created = await first;
    expect(created).toEqual({
      outcome: 'created',
      pet: { ...BODY, id: expect.any(Number), status: 'available' },
    });
    expect(first.calls).toEqual(['reserve', 'writeReserved', 'complete']);
    now += 23 * HOUR_MS;
    const again = attempt(project);
    expect(await again).toEqual({ outcome: 'replayed', pet: created.pet });
    expect(again.calls).toEqual(['reserve']);
    expect(await petsOf(project)).toEqual([created.pet]);
  });

  it('replays a body that differs only in key order, and refuses another body with the same key', async () => {
    const project = nextProject();
    const { pet } = await attempt(project, {}, { body: { name: 'Rex', categoryId: 3, status: 'sold' } });
    const reordered = JSON.parse('{"status":"sold","categoryId":3,"name":"Rex"}') as NewPet;
    expect(await attempt(project, {}, { body: reordered })).toEqual({ outcome: 'replayed', pet });
    expect(await outcomeOf(attempt(project, {}, { body: { name: 'Rex', categoryId: 4 } }))).toBe('reused');
    expect(await petsOf(project)).toEqual([pet]);
  });

  it('refuses another body while the key is in flight too (the reuse, not the wait, is the problem)', async () => {
    const project = nextProject();
    await outcomeOf(attempt(project, failing(2, 'before')));
    expect(await outcomeOf(attempt(project, {}, { body: { name: 'Other', categoryId: 3 } }))).toBe('reused');
  });

  it('keys are per project', async () => {
    const [a, b] = [nextProject(), nextProject()];
    const inA = await attempt(a);
    const inB = await attempt(b);
    expect([inA.outcome, inB.outcome]).toEqual(['created', 'created']);
    expect(inA.pet.id).not.toBe(inB.pet.id);
  });

  it('answers "in use" with the seconds left on the lease, then takes the lease over once it passed', async () => {
    const project = nextProject();
    expect(await outcomeOf(attempt(project, failing(1, 'after')))).toBe('store unavailable');
    expect(await outcomeOf(attempt(project))).toBe('in use, retry after 10 s');
    now = START + 3_500;
    expect(await outcomeOf(attempt(project))).toBe('in use, retry after 7 s');
    now = START + IDEMPOTENCY_LEASE_MS - 1;
    expect(await outcomeOf(attempt(project))).toBe('in use, retry after 1 s');
    now = START + IDEMPOTENCY_LEASE_MS;
    const resumed = attempt(project);
    expect(await outcomeOf(resumed)).toEqual({ outcome: 'created', pet: expect.any(Object) });
    expect(resumed.calls).toEqual(['reserve', 'takeOver', 'writeReserved', 'complete']);
  });

  it(`is remembered ${IDEMPOTENCY_KEY_TTL_SECONDS / 3600} h after it completed, then the key starts afresh (any body)`, async () => {
    const project = nextProject();
    const { pet } = await attempt(project);
    now = START + IDEMPOTENCY_KEY_TTL_SECONDS * 1000 - 1_000;
    expect(await attempt(project)).toEqual({ outcome: 'replayed', pet });
    now = START + IDEMPOTENCY_KEY_TTL_SECONDS * 1000;
    const other = await attempt(project, {}, { body: { name: 'Later', categoryId: 9 } });
    expect(other.outcome).toBe('created');
    expect(await petsOf(project)).toEqual([pet, other.pet]);
  });

  it(`stays resumable ${IN_FLIGHT_TTL_SECONDS / 86_400} days after an attempt died mid-way, then the key starts afresh`, async () => {
    const project = nextProject();
    const died = attempt(project, failing(2, 'after'));
    expect(await outcomeOf(died)).toBe('store unavailable');
    const [written] = await petsOf(project);
    now = START + IN_FLIGHT_TTL_SECONDS * 1000 - 1_000;
    expect(await attempt(project)).toEqual({ outcome: 'created', pet: written });
    expect(await petsOf(project)).toEqual([written]);

    const later = nextProject();
    now = START;
    await outcomeOf(attempt(later, failing(2, 'after')));
    now = START + IN_FLIGHT_TTL_SECONDS * 1000;
    const afresh = await attempt(later);
    expect(afresh.outcome).toBe('created');
    expect(await petsOf(later)).toHaveLength(2);
  });

  it('reserves another id when the reserved one turns out to be another pet, which stays untouched', async () => {
    const project = nextProject();
    const taken = { id: 77, name: 'Taken', categoryId: 1, status: 'sold' } as const;
    expect(await pets.writeReserved(project, taken, 'someone-else', START)).toBe(true);
    const run = attempt(project, {}, { newPetId: ids(taken.id, 78) });
    expect(await run).toEqual({ outcome: 'created', pet: { ...BODY, id: 78, status: 'available' } });
    expect(run.calls).toEqual(['reserve', 'writeReserved', 'reassign', 'writeReserved', 'complete']);
    expect(await petsOf(project)).toEqual([taken, { ...BODY, id: 78, status: 'available' }]);
  });

  it('survives every write reaching the store twice (an SDK retry of a write that had landed)', async () => {
    const duplicating = createDocumentClient(store.store.endpoint);
    duplicating.middlewareStack.add(
      (next, context) => async (args) => {
        if (/^(PutItem|UpdateItem)Command$/.test(context.commandName ?? '')) await next(args);
        return next(args);
      },
      { step: 'finalizeRequest' },
    );
    try {
      const project = nextProject();
      const deps = {
        store: new IdempotencyRepository(duplicating, TABLE),
        pets: new PetRepository(duplicating, LOCAL_TABLE_NAMES.pets),
        clock: () => now,
        newPetId: ids(),
      };
      const created = await createPetIdempotently(project, KEY, BODY, deps);
      expect(created.outcome).toBe('created');
      expect(await createPetIdempotently(project, KEY, BODY, deps)).toEqual({
        ...created,
        outcome: 'replayed',
      });
      expect(await petsOf(project)).toEqual([created.pet]);
    } finally {
      duplicating.destroy();
    }
  });
});

/** The calls of each clean path, in order; a failure is injected before and after each. */
const PATHS = {
  'a new key': { calls: ['reserve', 'writeReserved', 'complete'], newIds: () => ids() },
  'a reserved id that is taken': {
    calls: ['reserve', 'writeReserved', 'reassign', 'writeReserved', 'complete'],
    newIds: () => ids(TAKEN_ID),
  },
} as const;
const TAKEN_ID = 42;

const DELAYS = { 'past the lease': AFTER_LEASE_MS, '25 h later': 25 * HOUR_MS } as const;

type PathName = keyof typeof PATHS;

/** Every (path, call, before/after) with what the retry must answer. */
const FAILURES = (Object.keys(PATHS) as PathName[]).flatMap((path) =>
  PATHS[path].calls.flatMap((step, position) =>
    (['before', 'after'] as const).map((when) => {
      // Only a completion that landed leaves a completed record: the retry replays it.
      const replays = step === 'complete' && when === 'after';
      return { path, index: position + 1, step, when, retry: replays ? 'replayed' : 'created' } as const;
    }),
  ),
);

async function setUpPath(path: PathName, project: string): Promise<Pet | undefined> {
  if (path !== 'a reserved id that is taken') return undefined;
  const taken: Pet = { id: TAKEN_ID, name: 'Taken', categoryId: 1, status: 'sold' };
  await pets.writeReserved(project, taken, 'someone-else', START);
  return taken;
}

describe.each(Object.entries(DELAYS))('exactly once, retrying %s', (_, delay) => {
  it.each(
    FAILURES.filter(
      (failure) => !(delay > IDEMPOTENCY_KEY_TTL_SECONDS * 1000 && failure.retry === 'replayed'),
    ),
  )(
    '$path: a failure $when call $index ($step), then a retry that answers "$retry"',
    async ({ path, index, when, retry }) => {
      const project = nextProject();
      const taken = await setUpPath(path, project);
      const newPetId = PATHS[path].newIds();
      expect(await outcomeOf(attempt(project, failing(index, when), { newPetId }))).toBe('store unavailable');
      const reserved = await records.read(project, KEY);

      now += delay;
      const answer = await attempt(project, {}, { newPetId });
      expect(answer.outcome).toBe(retry);
      // A retry that resumes keeps the reservation; the taken pet's id is never the answer.
      if (reserved && reserved.petId !== TAKEN_ID) expect(answer.pet.id).toBe(reserved.petId);
      expect(answer.pet.id).not.toBe(TAKEN_ID);
      expect(await attempt(project, {}, { newPetId })).toEqual({ outcome: 'replayed', pet: answer.pet });
      const stored = await petsOf(project);
      expect(stored).toEqual([...(taken ? [taken] : []), answer.pet].sort((a, b) => a.id - b.id));
    },
  );
});

describe('exactly once, with the clock 25 h ahead in the middle of the failing attempt', () => {
  it.each(FAILURES.filter((failure) => failure.retry === 'created'))(
    '$path: 25 h pass at call $index ($step), which fails $when; the retry answers "$retry"',
    async ({ path, index, when, retry }) => {
      const project = nextProject();
      const taken = await setUpPath(path, project);
      const newPetId = PATHS[path].newIds();
      const jump = () => {
        now += 25 * HOUR_MS;
      };
      expect(await outcomeOf(attempt(project, failing(index, when, jump), { newPetId }))).toBe(
        'store unavailable',
      );
      now += AFTER_LEASE_MS;
      const answer = await attempt(project, {}, { newPetId });
      expect(answer.outcome).toBe(retry);
      expect(await attempt(project, {}, { newPetId })).toEqual({ outcome: 'replayed', pet: answer.pet });
      expect(await petsOf(project)).toEqual(
        [...(taken ? [taken] : []), answer.pet].sort((a, b) => a.id - b.id),
      );
    },
  );
});

describe('exactly once, when the retry fails too', () => {
  /** More calls than any retry makes: a retry that reaches this many never ends. */
  const MOST_CALLS_OF_A_RETRY = 12;

  /** One first failure, then the retry failing `when` its call `index`; false if the retry never made that call. */
  async function failTwice(
    path: PathName,
    first: { index: number; when: When },
    second: { index: number; when: When },
  ): Promise<boolean> {
    now = START;
    const project = nextProject();
    const taken = await setUpPath(path, project);
    const newPetId = PATHS[path].newIds();
    const answers: (IdempotentCreate | string)[] = [];
    answers.push(await outcomeOf(attempt(project, failing(first.index, first.when), { newPetId })));
    now += AFTER_LEASE_MS;
    const retry = attempt(project, failing(second.index, second.when), { newPetId });
    answers.push(await outcomeOf(retry));
    now += AFTER_LEASE_MS;
    const last = await attempt(project, {}, { newPetId });
    answers.push(last);
    try {
      const created = answers.filter((answer) => typeof answer !== 'string' && answer.outcome === 'created');
      expect(created.length).toBeLessThanOrEqual(1);
      for (const answer of answers) {
        if (typeof answer === 'string') expect(answer).toBe('store unavailable');
        else expect(answer.pet).toEqual(last.pet);
      }
      expect(await petsOf(project)).toEqual(
        [...(taken ? [taken] : []), last.pet].sort((a, b) => a.id - b.id),
      );
      expect(await records.read(project, KEY)).toMatchObject({ state: 'completed', pet: last.pet });
    } catch (error) {
      if (error instanceof Error)
        error.message = `the retry failing ${second.when} call ${second.index}: ${error.message}`;
      throw error;
    }
    return retry.calls.length >= second.index;
  }

  // Each first failure, then a failure before and after each call the retry makes, up to the
  // first call it no longer reaches: that run is the retry that did not fail, and every later
  // call number would repeat it. Whatever happens: one pet, every answer is that pet, and at
  // most one "created".
  it.each(FAILURES)(
    '$path: fails $when call $index, then the retry fails before or after each call it makes',
    async ({ path, index, when }) => {
      for (let second = 1; ; second++) {
        expect(second).toBeLessThan(MOST_CALLS_OF_A_RETRY);
        if (!(await failTwice(path, { index, when }, { index: second, when: 'before' }))) break;
        await failTwice(path, { index, when }, { index: second, when: 'after' });
      }
    },
  );
});

describe('concurrent attempts with one key', () => {
  /** A promise a hook waits on, and the function that lets it go on. */
  function gate() {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  }

  it('the second, while the first is between its reservation and its write, is told to wait; the first creates', async () => {
    const project = nextProject();
    const paused = gate();
    const reached = gate();
    const first = attempt(project, {
      after: async (step) => {
        if (step !== 'reserve') return;
        reached.open();
        await paused.opened;
      },
    });
    await reached.opened;
    expect(await outcomeOf(attempt(project))).toBe('in use, retry after 10 s');
    paused.open();
    const created = await first;
    expect(created.outcome).toBe('created');
    expect(await petsOf(project)).toEqual([created.pet]);
  });

  it('a stalled first attempt whose lease passed: the second creates the same pet, the first then replays it', async () => {
    const project = nextProject();
    const paused = gate();
    const reached = gate();
    const first = attempt(project, {
      after: async (step) => {
        if (step !== 'writeReserved') return;
        reached.open();
        await paused.opened;
      },
    });
    await reached.opened;
    now += AFTER_LEASE_MS;
    const second = attempt(project);
    const created = await second;
    expect(created.outcome).toBe('created');
    expect(second.calls).toEqual(['reserve', 'takeOver', 'writeReserved', 'complete']);
    paused.open();
    expect(await first).toEqual({ outcome: 'replayed', pet: created.pet });
    expect(first.calls).toEqual(['reserve', 'writeReserved', 'complete', 'read']);
    expect(await petsOf(project)).toEqual([created.pet]);
  });

  it('a stalled first attempt completes while the second, which took its lease over, writes: one creates, the other replays', async () => {
    const project = nextProject();
    const firstPaused = gate();
    const firstReached = gate();
    const secondPaused = gate();
    const secondReached = gate();
    const first = attempt(project, {
      before: async (step) => {
        if (step !== 'complete') return;
        firstReached.open();
        await firstPaused.opened;
      },
    });
    await firstReached.opened;
    now += AFTER_LEASE_MS;
    const second = attempt(project, {
      after: async (step) => {
        if (step !== 'takeOver') return;
        secondReached.open();
        await secondPaused.opened;
      },
    });
    await secondReached.opened;
    firstPaused.open();
    const created = await first;
    expect(created.outcome).toBe('created');
    secondPaused.open();
    expect(await second).toEqual({ outcome: 'replayed', pet: created.pet });
    expect(second.calls).toEqual(['reserve', 'takeOver', 'writeReserved', 'complete', 'read']);
    expect(await petsOf(project)).toEqual([created.pet]);
  });

  it('20 at once: exactly one creates; each other one replays that pet or is told to wait', async () => {
    const project = nextProject();
    const answers = await Promise.all(Array.from({ length: 20 }, () => outcomeOf(attempt(project))));
    const created = answers.filter(
      (answer): answer is IdempotentCreate => typeof answer !== 'string' && answer.outcome === 'created',
    );
    expect(created).toHaveLength(1);
    const pet = created[0]?.pet;
    for (const answer of answers) {
      if (typeof answer === 'string') expect(answer).toBe('in use, retry after 10 s');
      else expect(answer.pet).toEqual(pet);
    }
    expect(await petsOf(project)).toEqual([pet]);
  });
});
