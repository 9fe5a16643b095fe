import { USAGE_OPERATIONS } from '../../lambda/api/routes';
import { PLANS } from '../../lambda/core/plans';
import { keySubject, projectIdentity, RateLimiter } from '../../lambda/core/rate-limiter';
import type { UsageHistory } from '../../lambda/core/usage-history';
import { RateLimitStore } from '../../lambda/store/rate-limit-store';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { UsageError } from '../../tools/failures';
import { runProjectsCommand } from '../../tools/projects';
import { startTestStore, type TestStore } from '../support/embedded-store';
import { fakeClock } from '../support/fake-clock';
import { withLocalTablesChecked } from '../../tools/local-store';

/** `npm run projects -- usage`: exactly the calls the limiter admitted, per operation, hour and day. */
let t: TestStore;
beforeAll(async () => {
  t = await startTestStore();
});
afterAll(() => t.close());

async function projectsTool(...argv: string[]): Promise<string[]> {
  const lines: string[] = [];
  // startTestStore made the store's tables: each command's check of them is left out.
  await withLocalTablesChecked([t.store.endpoint], () =>
    runProjectsCommand(argv, { out: (line) => lines.push(line), endpoint: t.store.endpoint, env: {} }),
  );
  return lines;
}

test('shows the admitted calls of each operation across an hour boundary, and another project apart', async () => {
  const clock = fakeClock(Date.UTC(2026, 10, 26, 7, 59, 40));
  try {
    await projectsTool('create', 'usage-tool');
    await projectsTool('create', 'usage-other');
    const counters = new RateLimitStore(t.documents, LOCAL_TABLE_NAMES.rateLimits);
    const limiter = new RateLimiter(counters, clock.now, { operations: USAGE_OPERATIONS, writer: counters });
    const send = async (project: string, operation: string, times: number) => {
      for (let index = 0; index < times; index++) {
        await limiter.admit(projectIdentity(project), PLANS.free.limits, keySubject('k'), operation);
      }
    };
    await send('usage-tool', 'listPets', 3);
    await send('usage-tool', 'catchAll', 2);
    await send('usage-other', 'getPet', 9);
    clock.set(Date.UTC(2026, 10, 26, 8, 0, 20));
    await send('usage-tool', 'createPet', 4);

    const [line = ''] = await projectsTool('usage', 'usage-tool', '--json', '--days', '2');
    const history = JSON.parse(line) as UsageHistory & { project: string };
    expect(history.project).toBe('usage-tool');
    expect(history.days).toHaveLength(2);
    expect(history.hours.at(-2)?.admitted).toEqual({ listPets: 3, catchAll: 2 });
    expect(history.hours.at(-1)?.admitted).toEqual({ createPet: 4 });
    expect(history.days.at(-1)?.admitted).toEqual({ listPets: 3, catchAll: 2, createPet: 4 });
    expect(history.limits).toEqual(PLANS.free.limits);
    // The other project's getPet calls are its own.
    expect([...history.hours, ...history.days].some((bucket) => 'getPet' in bucket.admitted)).toBe(false);

    const text = await projectsTool('usage', 'usage-tool');
    expect(text[0]).toBe('Project usage-tool: 60 per minute, 1000 per day; read 2026-11-26T08:00:20.000Z.');
    expect(text.find((row) => row.startsWith('2026-11-26 07:00'))).toMatch(
      /^2026-11-26 07:00\s+3\s+0\s+0\s+0\s+2\s+5\s+0$/,
    );
    expect(text.find((row) => row.startsWith('2026-11-26 '))).toBeDefined();
  } finally {
    clock.restore();
  }
});

test('refuses a number of days out of range before connecting, and a project that does not exist', async () => {
  await expect(projectsTool('usage', 'usage-tool', '--days', '0')).rejects.toBeInstanceOf(UsageError);
  await expect(projectsTool('usage', 'usage-tool', '--days', '36')).rejects.toThrow('from 1 to 35');
  await expect(projectsTool('usage', 'no-such-project')).rejects.toThrow(/no-such-project/);
});
