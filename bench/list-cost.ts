import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { PetRepository } from '../lambda/store/pet-repository';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { meteredClient } from './capacity';
import type { BenchKey } from './events';
import { figure, type Figure, percentile } from './figures';
import { timedRequest } from './http-client';
import type { ServerChild } from './local-stack';

/** A local API whose table holds `size` pets. */
export interface SizedStack {
  readonly stack: ServerChild;
  readonly key: BenchKey;
  readonly size: number;
}

const LISTS = [
  { name: 'all', path: '/pets?limit=20', query: { limit: 20 } },
  { name: 'byStatus', path: '/pets?status=available&limit=20', query: { limit: 20, status: 'available' } },
] as const;

/** Read units of the repository's own Query for a first page, as the store reports them. */
async function readUnits(stack: ServerChild, query: (typeof LISTS)[number]['query']): Promise<number> {
  const metered = meteredClient(stack.dynamodbEndpoint);
  try {
    const pets = new PetRepository(metered.documents, LOCAL_TABLE_NAMES.pets);
    const page = await pets.list(query);
    if (page.pets.length !== query.limit || !page.hasMore) throw new Error('the table holds too few pets');
    return metered.take().units;
  } finally {
    metered.close();
  }
}

/** Read units of listing by Scan instead: the whole table, since a Scan returns pets in no useful order. */
export async function scanReadUnits(stack: ServerChild): Promise<{ units: number; scanned: number }> {
  const metered = meteredClient(stack.dynamodbEndpoint);
  let scanned = 0;
  try {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await metered.documents.send(
        new ScanCommand({ TableName: LOCAL_TABLE_NAMES.pets, ExclusiveStartKey: startKey }),
      );
      scanned += page.ScannedCount ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return { units: metered.take().units, scanned };
  } finally {
    metered.close();
  }
}

/**
 * Read units and latency of a first page of 20, with and without a status, at a small
 * and a large table, requests to the two alternating. Targets: the same read units;
 * p50 at the large size within 1.5× of the small one.
 */
export async function measureListCost(
  small: SizedStack,
  large: SizedStack,
  iterations: number,
): Promise<{ figures: Figure[]; units: Record<string, number> }> {
  const figures: Figure[] = [];
  const units: Record<string, number> = {};
  const sizes = (value: number) => value.toLocaleString('en-US');
  for (const list of LISTS) {
    const smallUnits = await readUnits(small.stack, list.query);
    const largeUnits = await readUnits(large.stack, list.query);
    units[list.name] = largeUnits;
    const label = `listPets${list.name === 'byStatus' ? '?status=available&limit=20' : '?limit=20'}`;
    figures.push(
      figure({
        name: `listCost.${list.name}.readUnits`,
        description: `read units of ${label} at ${sizes(large.size)} pets`,
        value: largeUnits,
        unit: 'RRU',
        baseline: { value: smallUnits, name: `the same at ${sizes(small.size)} pets` },
        target: { of: 'ratio', op: '==', limit: 1 },
      }),
    );
  }
  const samples = new Map(LISTS.map((list) => [list.name, { small: [] as number[], large: [] as number[] }]));
  const warmUp = Math.max(5, Math.floor(iterations / 10));
  for (let round = 0; round < warmUp + iterations; round++) {
    for (const list of LISTS) {
      for (const size of ['small', 'large'] as const) {
        const { stack, key } = size === 'small' ? small : large;
        const { status, ms } = await timedRequest(`${stack.baseUrl}${list.path}`, { apiKey: key.apiKey });
        if (status !== 200) throw new Error(`${list.path} answered ${status}`);
        if (round >= warmUp) samples.get(list.name)?.[size].push(ms);
      }
    }
  }
  for (const list of LISTS) {
    const { small: smallMs, large: largeMs } = samples.get(list.name) ?? { small: [], large: [] };
    const label = `listPets${list.name === 'byStatus' ? '?status=available&limit=20' : '?limit=20'}`;
    figures.push(
      figure({
        name: `listCost.${list.name}.p50`,
        description: `p50 of ${label} at ${sizes(large.size)} pets`,
        value: percentile(largeMs, 50),
        unit: 'ms',
        baseline: { value: percentile(smallMs, 50), name: `the same at ${sizes(small.size)} pets` },
        target: { of: 'ratio', op: '<=', limit: 1.5 },
      }),
    );
  }
  return { figures, units };
}
