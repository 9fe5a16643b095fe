import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Bundle } from './bundles';
import type { FunctionEvent } from './events';
import { figure, type Figure, median, msSince } from './figures';

const HARNESS = path.join(__dirname, 'cold-start-harness.js');

interface HarnessRun {
  readonly ms: number;
  readonly status: number;
  readonly durations: number[];
}

/** Spawns a fresh Node.js process on the harness and times it from spawn to exit. */
function runHarness(args: string[], env: Record<string, string>): Promise<HarnessRun> {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HARNESS, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = msSince(start);
      if (code !== 0) return reject(new Error(`harness ${args[0]} exited ${code}: ${stderr}`));
      // The function's own log and metric lines come first; the harness's result is the last line.
      const line = stdout.trim().split('\n').at(-1) ?? '';
      const { status = 0, durations = [] } = line ? (JSON.parse(line) as Partial<HarnessRun>) : {};
      resolve({ ms, status, durations });
    });
  });
}

export interface ColdStartResult {
  readonly figures: Figure[];
  /** Median warm duration of each function in-process, ms (the cost model's Lambda duration). */
  readonly warmMs: Record<string, number>;
}

/**
 * Cold start of each bundle: a fresh Node.js process that loads it and answers one
 * event against the running store, timed from spawn to exit, minus the median of
 * an empty process. Processes run round-robin, so drift hits every function alike.
 * Target: ≤ 1.3× the baseline bundle's.
 */
export async function measureColdStarts(
  bundles: readonly Bundle[],
  events: Record<string, FunctionEvent>,
  env: Record<string, string>,
  { processes, warmRepeats, workDir }: { processes: number; warmRepeats: number; workDir: string },
): Promise<ColdStartResult> {
  const eventFiles = new Map<string, string>();
  for (const bundle of bundles) {
    const file = path.join(workDir, `${bundle.name}.event.json`);
    writeFileSync(file, JSON.stringify({ event: events[bundle.name]?.event }));
    eventFiles.set(bundle.name, file);
  }
  const emptyArgs = ['-', eventFiles.get('baseline') ?? ''];
  const samples = new Map<string, number[]>([['(empty)', []]]);
  for (const bundle of bundles) samples.set(bundle.name, []);
  const order = [
    { name: '(empty)', args: emptyArgs },
    ...bundles.map((bundle) => ({
      name: bundle.name,
      args: [bundle.file, eventFiles.get(bundle.name) ?? ''],
    })),
  ];
  // With several processes, a first round only warms the disk cache.
  const warmUpRounds = processes > 1 ? 1 : 0;
  for (let round = 0; round < warmUpRounds + processes; round++) {
    for (const { name, args } of round % 2 ? [...order].reverse() : order) {
      const run = await runHarness(args, env);
      // The expected answer (a 404 for the catch-all's probe) shows that the request really ran.
      const expected = events[name]?.status;
      if (name !== '(empty)' && run.status !== expected) {
        throw new Error(
          `${name} answered its first event with ${run.status}, expected ${expected}: the cold start did not run the request`,
        );
      }
      if (round >= warmUpRounds) samples.get(name)?.push(run.ms);
    }
  }
  const empty = median(samples.get('(empty)') ?? []);
  const net = (name: string) => median(samples.get(name) ?? []) - empty;
  const baseline = net('baseline');
  const figures = bundles
    .filter((bundle) => bundle.kind !== 'baseline')
    .map((bundle) =>
      figure({
        name: `coldStart.${bundle.name}`,
        description: `cold start of ${bundle.name} (load + first event, median of ${processes} processes, net of an empty process)`,
        value: net(bundle.name),
        unit: 'ms',
        baseline: { value: baseline, name: 'the baseline bundle, same way' },
        target: { of: 'ratio', op: '<=', limit: 1.3 },
      }),
    );
  const warmMs: Record<string, number> = {};
  for (const bundle of bundles) {
    const run = await runHarness([bundle.file, eventFiles.get(bundle.name) ?? '', String(warmRepeats)], env);
    warmMs[bundle.name] = median(run.durations);
  }
  return { figures, warmMs };
}
