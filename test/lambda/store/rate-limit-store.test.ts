import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { PLANS } from '../../../lambda/core/plans';
import { createDocumentClient } from '../../../lambda/store/dynamodb-client';
import { RateLimitStore } from '../../../lambda/store/rate-limit-store';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/**
 * The counter store on the embedded store: a ban is one write on the counter, refuses its own
 * subject's counts only, and any subject is an attribute name, never read as a document path.
 */

const NOW = Date.UTC(2026, 10, 26, 9, 30, 0);
const MINUTE = Math.floor(NOW / 60_000);
const EXPIRES = Math.ceil(Date.UTC(2026, 10, 28) / 1000);
const LIMITS = PLANS.free.limits;

let store: TestStore;
let counters: RateLimitStore;
/** The commands the store sent, by name, in order. */
const sent: string[] = [];
let counter = 0;
const nextCounter = () => `project:store-${++counter}#2026-11-26`;

beforeAll(async () => {
  store = await startTestStore();
  const recording = createDocumentClient(store.store.endpoint);
  recording.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(context.commandName ?? '?');
      return next(args);
    },
    { step: 'initialize' },
  );
  counters = new RateLimitStore(recording, LOCAL_TABLE_NAMES.rateLimits);
});
afterAll(() => store.close());
beforeEach(() => {
  sent.length = 0;
});

const count = (counterId: string, subject: string) =>
  counters.countInNewMinute(counterId, subject, MINUTE, LIMITS, NOW, EXPIRES);

describe('RateLimitStore bans', () => {
  it('writes a ban in one update, on a counter that does not exist yet and on one that does', async () => {
    const fresh = nextCounter();
    await counters.ban(fresh, 'key:aaaaaaaaaaaaaaaa', NOW + 300_000, 1, EXPIRES);
    expect(sent).toEqual(['UpdateItemCommand']);

    const counted = nextCounter();
    expect(await count(counted, 'key:bbbbbbbbbbbbbbbb')).toMatchObject({ counted: true });
    sent.length = 0;
    await counters.ban(counted, 'key:aaaaaaaaaaaaaaaa', NOW + 300_000, 1, EXPIRES);
    await counters.ban(counted, 'key:bbbbbbbbbbbbbbbb', NOW + 600_000, 2, EXPIRES);
    expect(sent).toEqual(['UpdateItemCommand', 'UpdateItemCommand']);
    expect(await counters.read(counted, 'key:bbbbbbbbbbbbbbbb')).toEqual({
      minute: MINUTE,
      minuteCount: 1,
      dayCount: 1,
      bannedUntil: NOW + 600_000,
      banCount: 2,
    });
  });

  it("refuses the banned subject's count with its ban, and counts every other subject on the shared counts", async () => {
    const counterId = nextCounter();
    await counters.ban(counterId, 'key:aaaaaaaaaaaaaaaa', NOW + 300_000, 1, EXPIRES);
    expect(await count(counterId, 'key:aaaaaaaaaaaaaaaa')).toEqual({
      counted: false,
      current: { minute: 0, minuteCount: 0, dayCount: 0, bannedUntil: NOW + 300_000, banCount: 1 },
    });
    expect(await count(counterId, 'key:cccccccccccccccc')).toEqual({
      counted: true,
      state: { minute: MINUTE, minuteCount: 1, dayCount: 1 },
    });
    expect(await counters.countInSameMinute(counterId, 'caller', MINUTE, LIMITS, NOW)).toMatchObject({
      counted: true,
      state: { minuteCount: 2 },
    });
  });

  it('counts a subject again once its ban has ended', async () => {
    const counterId = nextCounter();
    await counters.ban(counterId, 'key:aaaaaaaaaaaaaaaa', NOW, 1, EXPIRES);
    expect(await count(counterId, 'key:aaaaaaaaaaaaaaaa')).toMatchObject({
      counted: true,
      state: { minuteCount: 1, bannedUntil: NOW, banCount: 1 },
    });
  });

  it.each(['key:a.b', 'key:a[0]', 'a#b', 'key:a b', 'key:a'])(
    'treats subject %j as a name: its ban is its own',
    async (subject) => {
      const counterId = nextCounter();
      await counters.ban(counterId, subject, NOW + 300_000, 1, EXPIRES);
      expect(await count(counterId, subject)).toMatchObject({ counted: false });
      const other = subject === 'key:a' ? 'key:a.b' : 'key:a';
      expect(await count(counterId, other)).toMatchObject({ counted: true });
    },
  );

  it('keeps counting on a counter written before bans were flat attributes (its `bans` map is not read)', async () => {
    const counterId = nextCounter();
    await store.documents.send(
      new PutCommand({
        TableName: LOCAL_TABLE_NAMES.rateLimits,
        Item: {
          counterId,
          minute: MINUTE,
          minuteCount: 3,
          dayCount: 7,
          expiresAt: EXPIRES,
          bans: { 'key:aaaaaaaaaaaaaaaa': { until: NOW + 300_000, count: 1 } },
        },
      }),
    );
    expect(await counters.countInSameMinute(counterId, 'key:aaaaaaaaaaaaaaaa', MINUTE, LIMITS, NOW)).toEqual({
      counted: true,
      state: { minute: MINUTE, minuteCount: 4, dayCount: 8 },
    });
    await counters.ban(counterId, 'key:aaaaaaaaaaaaaaaa', NOW + 300_000, 1, EXPIRES);
    expect(
      await counters.countInSameMinute(counterId, 'key:aaaaaaaaaaaaaaaa', MINUTE, LIMITS, NOW),
    ).toMatchObject({ counted: false, current: { bannedUntil: NOW + 300_000 } });
  });
});
