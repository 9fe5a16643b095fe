import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { PetRepository } from '../lambda/store/pet-repository';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { meteredClient } from './capacity';
import type { BenchKey } from './events';
import { figure, type Figure, percentile } from './figures';
import { timedRequest } from './http-client';
import type { ServerChild } from './local-stack';

/** A local API and the keys of the projects whose lists are measured (each project holds `size` pets). */
export interface ListStack {
  readonly stack: ServerChild;
  readonly keys: readonly BenchKey[];
  /** Pets in each of the projects. */
  readonly size: number;
}

const LISTS = [
  { name: 'all', path: '/pets?limit=20', query: { limit: 20 } },
  { name: 'byStatus', path: '/pets?status=available&limit=20', query: { limit: 20, status: 'available' } },
] as const;

type List = (typeof LISTS)[number];

const labelOf = (list: List) =>
  `listPets${list.name === 'byStatus' ? '?status=available&limit=20' : '?limit=20'}`;

/** Read units of the repository's own Query for a first page, as the store reports them; the most of the projects'. */
async function readUnits({ stack, keys }: ListStack, query: List['query']): Promise<number> {
  const metered = meteredClient(stack.dynamodbEndpoint);
  try {
    const pets = new PetRepository(metered.documents, LOCAL_TABLE_NAMES.pets);
    let most = 0;
    for (const { project } of keys) {
      const page = await pets.list(project, query);
      if (page.pets.length !== query.limit || !page.hasMore)
        throw new Error(`project ${project} holds too few pets`);
      most = Math.max(most, metered.take().units);
    }
    return most;
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
 * Read units and latency of a first page of 20, with and without a status, in three tables,
 * requests to the three alternating: `small`, one project; `large`, one project of many more
 * pets; `projects`, many projects each the size of `small`'s (its requests go to each
 * project in turn). Targets against `small`: `large` the same read units and a p50 within
 * 1.5×; `projects` (every list reads its own project's partition) within 1.1× on both.
 */
export async function measureListCost(
  { small, large, projects }: { small: ListStack; large: ListStack; projects: ListStack },
  iterations: number,
): Promise<{ figures: Figure[]; units: Record<string, number> }> {
  const figures: Figure[] = [];
  const units: Record<string, number> = {};
  const sizes = (value: number) => value.toLocaleString('en-US');
  const single = `a single project of ${sizes(small.size)} pets`;
  const many = `${projects.keys.length} projects of ${sizes(projects.size)} pets each`;
  for (const list of LISTS) {
    const smallUnits = await readUnits(small, list.query);
    const largeUnits = await readUnits(large, list.query);
    const projectsUnits = await readUnits(projects, list.query);
    units[list.name] = largeUnits;
    figures.push(
      figure({
        name: `listCost.${list.name}.readUnits`,
        description: `read units of ${labelOf(list)} at ${sizes(large.size)} pets`,
        value: largeUnits,
        unit: 'RRU',
        baseline: { value: smallUnits, name: `the same at ${sizes(small.size)} pets` },
        target: { of: 'ratio', op: '==', limit: 1 },
      }),
      figure({
        name: `listCost.projects.${list.name}.readUnits`,
        description: `read units of ${labelOf(list)} with ${many} (the most of any project)`,
        value: projectsUnits,
        unit: 'RRU',
        baseline: { value: smallUnits, name: `the same with ${single}` },
        target: { of: 'ratio', op: '<=', limit: 1.1 },
      }),
    );
  }
  const stacks = { small, large, projects };
  const names = Object.keys(stacks) as (keyof typeof stacks)[];
  const samples = new Map(
    LISTS.map((list) => [
      list.name,
      { small: [] as number[], large: [] as number[], projects: [] as number[] },
    ]),
  );
  // The warm-up reaches every key, so that the measured requests find each key and project in
  // the authorizer's cache (30 s) alike, whether a table's requests use one key or many.
  const warmUp = Math.max(5, Math.floor(iterations / 10), ...names.map((name) => stacks[name].keys.length));
  for (let round = 0; round < warmUp + iterations; round++) {
    for (const list of LISTS) {
      // Each table takes each place in the order in turn, so that no place's effect falls on one table.
      for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
        const { stack, keys } = stacks[name];
        const key = keys[round % keys.length] as BenchKey;
        const { status, ms } = await timedRequest(`${stack.baseUrl}${list.path}`, { apiKey: key.apiKey });
        if (status !== 200) throw new Error(`${list.path} answered ${status}`);
        if (round >= warmUp) samples.get(list.name)?.[name].push(ms);
      }
    }
  }
  for (const list of LISTS) {
    const {
      small: smallMs = [],
      large: largeMs = [],
      projects: projectsMs = [],
    } = samples.get(list.name) ?? {};
    const smallP50 = percentile(smallMs, 50);
    figures.push(
      figure({
        name: `listCost.${list.name}.p50`,
        description: `p50 of ${labelOf(list)} at ${sizes(large.size)} pets`,
        value: percentile(largeMs, 50),
        unit: 'ms',
        baseline: { value: smallP50, name: `the same at ${sizes(small.size)} pets` },
        target: { of: 'ratio', op: '<=', limit: 1.5 },
      }),
      figure({
        name: `listCost.projects.${list.name}.p50`,
        description: `p50 of ${labelOf(list)} with ${many}, each project in turn`,
        value: percentile(projectsMs, 50),
        unit: 'ms',
        baseline: { value: smallP50, name: `the same with ${single}` },
        target: { of: 'ratio', op: '<=', limit: 1.1 },
      }),
    );
  }
  return { figures, units };
}
