import autocannon from 'autocannon';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { RATE_LIMITS_TABLE } from '../lambda/store/table-schema';
import { topItemId } from '../lambda/store/usage-top-store';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { figure, type Figure } from './figures';
import type { SeededProject, ServerChild } from './local-stack';

/**
 * Concurrent clients, each with a key of a project of its own: a project's keys share its
 * allowance, and an Enterprise project at the ceiling admits 5,000 a minute.
 */
export const CONNECTIONS = 32;

/** A server to load, and its projects: each client gets one project's key and newest pet. */
interface Target {
  readonly stack: ServerChild;
  readonly projects: readonly SeededProject[];
}

interface Tally {
  ok: number;
  seconds: number;
  failed: number;
}

/** How long each load lasts: a time (the full run), or a count of requests (the quick run). */
export type LoadSize = { readonly seconds: number } | { readonly requests: number };

async function load({ stack, projects }: Target, size: LoadSize): Promise<Tally> {
  let next = 0;
  const base = new URL(stack.baseUrl);
  const result = await autocannon({
    url: base.origin,
    connections: CONNECTIONS,
    ...('seconds' in size ? { duration: size.seconds } : { amount: size.requests }),
    setupClient: (client) => {
      // A pet is found only through a key of its own project.
      const { key, newest } = projects[next++ % projects.length] as SeededProject;
      // setRequests, not setRequest: the latter changes only the first request of the client.
      client.setRequests([
        {
          method: 'GET',
          path: `${base.pathname}/pets/${Number(newest.id)}`,
          headers: { Authorization: `Bearer ${key.apiKey}` },
        },
      ]);
    },
  });
  // Every answer must be the pet: anything else would measure something other than getPet.
  if (result.non2xx > 0) {
    const statuses = JSON.stringify(
      (result as unknown as { statusCodeStats?: unknown }).statusCodeStats ?? {},
    );
    throw new Error(
      `throughput: ${result.non2xx} of ${result.requests.total} answers were not 2xx (${statuses})`,
    );
  }
  return {
    ok: result.requests.total - result.non2xx,
    failed: result.non2xx + result.errors,
    seconds: result.duration,
  };
}

/**
 * Requests per second on getPet with 32 concurrent clients, limiter on and off, in
 * alternating slots so that both see the same machine. Only 2xx answers count.
 */
export async function measureThroughput(
  on: Target,
  off: Target,
  { rounds, warmUpSeconds, ...size }: LoadSize & { rounds: number; warmUpSeconds: number },
): Promise<{ figures: Figure[]; failed: { on: number; off: number } }> {
  const tally = { on: { ok: 0, seconds: 0, failed: 0 }, off: { ok: 0, seconds: 0, failed: 0 } };
  const add = (into: Tally, from: Tally) => {
    into.ok += from.ok;
    into.seconds += from.seconds;
    into.failed += from.failed;
  };
  if (warmUpSeconds > 0) {
    await load(on, { seconds: warmUpSeconds });
    await load(off, { seconds: warmUpSeconds });
  }
  for (let round = 0; round < rounds; round++) {
    add(tally.on, await load(on, size));
    add(tally.off, await load(off, size));
  }
  // The 'off' server must really have skipped the limiter's store: its counters table holds no
  // counter (the daily ranking's `top` item, written at start, is no request's).
  const { Count } = await off.stack.documents.send(
    new ScanCommand({
      TableName: LOCAL_TABLE_NAMES.rateLimits,
      Select: 'COUNT',
      FilterExpression: 'NOT begins_with(#id, :top)',
      ExpressionAttributeNames: { '#id': RATE_LIMITS_TABLE.partitionKey.name },
      ExpressionAttributeValues: { ':top': topItemId('') },
    }),
  );
  if (Count !== 0) throw new Error(`the limiter was not off: ${Count} counters were written`);
  for (const [mode, counted] of Object.entries(tally)) {
    if (counted.ok === 0)
      throw new Error(`no getPet succeeded with the limiter ${mode} (${counted.failed} failed)`);
  }
  const rate = (t: Tally) => t.ok / t.seconds;
  return {
    figures: [
      figure({
        name: 'throughput.getPet.limiterOn',
        description: `getPet requests/s, ${CONNECTIONS} clients, limiter on`,
        value: rate(tally.on),
        unit: 'req/s',
        baseline: { value: rate(tally.off), name: 'the same with the limiter off' },
      }),
    ],
    failed: { on: tally.on.failed, off: tally.off.failed },
  };
}
