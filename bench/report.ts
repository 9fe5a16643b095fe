import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CATCH_ALL } from '../lambda/api/routes';
import type { Bundle } from './bundles';
import {
  type CostModel,
  junkAdded,
  OPERATIONS,
  type OperationName,
  REQUESTS_PER_KEY_READ,
  total,
} from './cost-model';
import type { Figure } from './figures';
import { PRICES } from './prices';

/** The page whose results block the bench rewrites (between the markers below); nothing else in it is touched. */
export const RESULTS_DOCUMENT = path.join(__dirname, '..', 'doc', 'performance.md');
export const RESULTS_START = '<!-- bench:results:start -->';
export const RESULTS_END = '<!-- bench:results:end -->';
/** The former names, kept until every caller says RESULTS_*. */
export const README_START = RESULTS_START;
export const README_END = RESULTS_END;

/** Everything one run produced: `bench/results.json`. */
export interface BenchResults {
  readonly generatedAt: string;
  readonly mode: 'full' | 'quick';
  readonly machine: { readonly cpus: number; readonly node: string; readonly platform: string };
  readonly seconds: number;
  readonly figures: Figure[];
  readonly details: {
    readonly prices: typeof PRICES;
    readonly memoryMb: number;
    readonly durationMs: Record<string, number>;
    readonly bytesByPackage: Record<string, Record<string, number>>;
    readonly limiter: {
      readonly admitted: { count: number; writes: number; reads: number };
      readonly refused: { count: number; writes: number; reads: number };
    };
    readonly units: Record<string, number>;
    readonly listSizes: {
      readonly small: number;
      readonly large: number;
      readonly loadSeconds: number;
      /** Projects of `small` pets each in the many-projects table, and how long loading it took. */
      readonly projects: number;
      readonly projectsLoadSeconds: number;
    };
    readonly throughputFailures: { readonly on: number; readonly off: number };
    readonly costModel: CostModel;
  };
}

const num = (value: number, digits = 2) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const usd = (value: number) => `$${num(value, value > 0 && value < 0.01 ? 4 : 2)}`;

function targetText(figure: Figure): string {
  if (!figure.target) return '';
  const { of, op, limit, met } = figure.target;
  return `${of === 'ratio' ? 'ratio' : 'value'} ${op === '<=' ? '≤' : '='} ${limit}: ${met ? 'met' : '**missed**'}`;
}

function table(header: string[], rows: string[][], align: ('l' | 'r')[]): string[] {
  const widths = header.map((cell, index) =>
    Math.max(cell.length, ...rows.map((row) => (row[index] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, index) => (align[index] === 'r' ? cell.padStart(widths[index] ?? 0) : cell.padEnd(widths[index] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((width, index) => (align[index] === 'r' ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)];
}

/** The figures as a Markdown table (also printed on the console). */
export function figuresTable(figures: readonly Figure[]): string[] {
  return table(
    ['Figure', 'Value', 'Baseline (same run)', 'Ratio', 'Target'],
    figures.map((figure) => [
      `\`${figure.name}\``,
      `${num(figure.value)} ${figure.unit}`,
      figure.baseline === null ? '' : `${num(figure.baseline)} ${figure.unit} (${figure.baselineName})`,
      figure.ratio === null ? '' : `${num(figure.ratio)}×`,
      targetText(figure),
    ]),
    ['l', 'r', 'l', 'r', 'l'],
  );
}

/** Bytes each package adds to each bundle (the largest; the rest summed). */
function dependencyTable(bundles: Record<string, Record<string, number>>): string[] {
  const names = Object.keys(bundles);
  const totals = new Map<string, number>();
  for (const byPackage of Object.values(bundles)) {
    for (const [pkg, bytes] of Object.entries(byPackage))
      totals.set(pkg, Math.max(totals.get(pkg) ?? 0, bytes));
  }
  const ranked = [...totals.entries()].sort(([, a], [, b]) => b - a).map(([pkg]) => pkg);
  const shown = ranked.slice(0, 10);
  if (!shown.includes('(service)')) shown.push('(service)');
  if (!shown.includes('@middy/core') && totals.has('@middy/core')) shown.push('@middy/core');
  const kib = (bytes: number) => num(bytes / 1024, 1);
  const rows = shown.map((pkg) => [
    pkg === '(service)' ? 'this repository (`lambda/`)' : `\`${pkg}\``,
    ...names.map((n) => kib(bundles[n]?.[pkg] ?? 0)),
  ]);
  const rest = ranked.filter((pkg) => !shown.includes(pkg));
  rows.push([
    `${rest.length} other packages`,
    ...names.map((n) => kib(rest.reduce((sum, pkg) => sum + (bundles[n]?.[pkg] ?? 0), 0))),
  ]);
  rows.push([
    '**total**',
    ...names.map((n) => kib(Object.values(bundles[n] ?? {}).reduce((sum, bytes) => sum + bytes, 0))),
  ]);
  return table(['Package (KiB in bundle)', ...names], rows, ['l', ...names.map(() => 'r' as const)]);
}

const OPERATION_LABELS: Record<OperationName, string> = {
  getPet: 'getPet',
  listPets: 'listPets',
  listPetsByStatus: 'listPets?status',
  createPet: 'createPet',
  getOpenApi: 'getOpenApi',
};

/**
 * A junk request (an unknown path or a wrong method under /v1, no key) answered by the
 * service, by component, and what that adds over a refusal at the gateway.
 */
function junkLines(results: BenchResults): string[] {
  const { junkRequest } = results.details.costModel;
  const parts = [
    `${usd(junkRequest.apiGateway)} API Gateway`,
    `${usd(junkRequest.lambdaRequests)} Lambda invocations (authorizer + catch-all)`,
    `${usd(junkRequest.lambdaDuration)} Lambda duration`,
    `${usd(junkRequest.limiter)} limiter`,
  ];
  return [
    `Junk request (an unknown path or a wrong method under \`/v1\`, without a key), answered by the catch-all:`,
    `**${usd(total(junkRequest))}** per million (${parts.join(', ')}). Of this, the catch-all adds **${usd(junkAdded(junkRequest))}**`,
    'per million: the two invocations, their duration and the limiter write, which a refusal at the gateway did not cost.',
  ];
}

function costTables(results: BenchResults): string[] {
  const { costModel, memoryMb, durationMs, units, limiter } = results.details;
  const lines = Object.keys(costModel.perOperation.getPet) as (keyof CostModel['perOperation']['getPet'])[];
  const labels: Record<string, string> = {
    apiGateway: 'API Gateway REST requests',
    lambdaRequests: 'Lambda invocations (authorizer, except getOpenApi, + operation)',
    lambdaDuration: `Lambda duration, ARM64 ${memoryMb} MB (authorizer, except getOpenApi, + operation)`,
    dynamodb: "DynamoDB: the operation's own reads/writes",
    authorizerReads: 'DynamoDB: authorizer key and project reads (cached 30 s)',
    limiter: 'DynamoDB: limiter',
  };
  return [
    ...table(
      ['USD per million requests', ...OPERATIONS.map((op) => OPERATION_LABELS[op])],
      [
        ...lines.map((line) => [
          labels[line] ?? line,
          ...OPERATIONS.map((op) => usd(costModel.perOperation[op][line])),
        ]),
        ['**total**', ...OPERATIONS.map((op) => `**${usd(total(costModel.perOperation[op]))}**`)],
      ],
      ['l', ...OPERATIONS.map(() => 'r' as const)],
    ),
    '',
    ...junkLines(results),
    '',
    'Same traffic, other designs (USD per million requests):',
    '',
    ...table(
      ['Design', ...OPERATIONS.map((op) => OPERATION_LABELS[op]), 'What changes'],
      costModel.alternatives.map((alternative) => [
        alternative.name,
        ...OPERATIONS.map((op) => usd(alternative.perOperation[op])),
        alternative.note,
      ]),
      ['l', ...OPERATIONS.map(() => 'r' as const), 'l'],
    ),
    '',
    'Inputs, measured in this run unless marked:',
    '',
    `- Lambda duration per invocation: median warm duration of each bundle in a Node.js process on this machine (a`,
    `  stand-in for Lambda's, whose CPU share at ${memoryMb} MB differs), billed rounded up to 1 ms: authorizer ${num(durationMs.authorizer ?? 0)} ms`,
    `  (key cached), getPet ${num(durationMs.getPet ?? 0)} ms, listPets ${num(durationMs.listPets ?? 0)} ms, createPet ${num(durationMs.createPet ?? 0)} ms, catch-all ${num(durationMs[CATCH_ALL.name] ?? 0)} ms.`,
    "  Memory: production's `lambdaMemoryMb`.",
    `- Read units: getPet ${units.getPetReads} (strongly consistent), listPets ${units.listReads}, listPets?status ${units.listByStatusReads}; a key read ${units.keyRead} and a project read ${units.projectRead}, assumed`,
    `  (not measured) once per ${REQUESTS_PER_KEY_READ} requests: a key sending about one request a second to a warm authorizer.`,
    `- Write units: createPet ${units.createPetWrites} (the table's ${units.createPetTableWrites} as the store reports it, plus ${units.createPetIndexWrites} index writes by DynamoDB's rule).`,
    `- Limiter: ${num(limiter.admitted.writes, 3)} write units and ${num(limiter.admitted.reads, 3)} read units per admitted request (\`limiter.*\`).`,
    `- Prices: ${PRICES.region}, list prices as of ${PRICES.asOf}, all in \`bench/prices.ts\`.`,
  ];
}

/** The results block: how it was measured, the figures, the dependencies and the cost model. */
export function resultsBlock(results: BenchResults, bundles: readonly Bundle[]): string {
  const { listSizes, limiter, throughputFailures } = results.details;
  const missed = results.figures.filter((figure) => figure.target && !figure.target.met);
  const targets = results.figures.filter((figure) => figure.target);
  return [
    RESULTS_START,
    '',
    `Measured by \`npm run bench\` on ${results.generatedAt.slice(0, 10)} (${results.machine.cpus} CPUs, Node.js ${results.machine.node}, ${Math.round(results.seconds)} s); the bench rewrites this block and \`bench/results.json\`.`,
    'Every figure is compared with a baseline measured side by side in the same run, never with a fixed time, so the',
    'ratios hold from one machine to another even though the milliseconds do not.',
    `${targets.length - missed.length} of ${targets.length} targets met${missed.length ? ` (missed: ${missed.map((f) => `\`${f.name}\``).join(', ')})` : ''}.`,
    '',
    '**How each figure is measured**',
    '',
    '- `bundle.*`: each function of the route table (and the catch-all and the authorizer) built by esbuild with exactly the options',
    '  the stack gives `NodejsFunction` (minified CommonJS, platform node, target node22, nothing external), against a',
    '  baseline function that only creates a DynamoDB DocumentClient and sends one GetCommand (`bench/baseline-handler.ts`).',
    '- `coldStart.*`: a fresh Node.js process loads the bundle and answers one realistic event against a running',
    '  embedded store (the authorizer really reads the key and its project, getPet the pet, createPet writes, the',
    '  catch-all answers a probe of `/v1/{proxy+}` with 404 and counts it); spawn to exit, median of',
    '  the processes, minus the median of an empty process; functions run round-robin.',
    '- `latency.*`: through the local server (`startLocalApi` in a child process) with a real key of an Enterprise project and the',
    '  limiter on, each request followed by the matching raw GetItem / Query / PutItem sent straight to the same store.',
    "  `latencyLimiterOff.*`: the same against the server whose limiter is off (below), to show the limiter's share.",
    `- \`throughput.*\`: autocannon, 32 connections (each a key of its own project, getting its own pet) on getPet, limiter on and off in alternating slots. "Off"`,
    "  swaps the limiter store's two counting methods for ones that admit without a DynamoDB call, in the server process",
    '  only (`bench/server-child.ts`), since the handlers build their limiter themselves; the bench checks that no counter',
    `  was written. Non-2xx answers are not counted (${throughputFailures.on} with the limiter on, ${throughputFailures.off} off).`,
    `- \`listCost.*\`: one project of ${listSizes.small.toLocaleString('en-US')} pets, one of ${listSizes.large.toLocaleString('en-US')} (loaded in ${Math.round(listSizes.loadSeconds)} s), and`,
    `  (\`listCost.projects.*\`) ${listSizes.projects} projects of ${listSizes.small.toLocaleString('en-US')} pets each, interleaved in id order (loaded in ${Math.round(listSizes.projectsLoadSeconds)} s), each`,
    '  table loaded with parallel BatchWrites and served by a local server of its own, requests alternating between',
    '  the three (to each of the many projects in turn). Read units are the ConsumedCapacity the store reports',
    "  for the repository's own Query (its client asks for `ReturnConsumedCapacity`). The embedded store (dynalite) does",
    "  report it for reads, by DynamoDB's rule (sizes of the items read, summed, rounded up to 4 KB, halved when eventually",
    "  consistent); for writes it reports the base table only, so index writes are added by DynamoDB's rule.",
    `- \`limiter.*\`: the limiter's store wrapped to count its updates and reads; a Free project sends 3 requests a second`,
    `  for 61 s over 3 instances (${limiter.admitted.count} admitted, ${limiter.refused.count} refused, bans included). Every update is one write`,
    '  unit whether its condition holds or not (DynamoDB charges failed conditional writes); counter items are far below 1 KB.',
    '',
    ...figuresTable(results.figures),
    '',
    '**What each dependency adds** (esbuild metafile, KiB of minified output per top-level package):',
    '',
    ...dependencyTable(Object.fromEntries(bundles.map((bundle) => [bundle.name, bundle.bytesByPackage]))),
    '',
    '**Why the AWS SDK is bundled** rather than taken from the Lambda runtime: the bundle holds the exact SDK version',
    "`package-lock.json` pins, the one every test ran against, whereas the runtime's copy changes when AWS updates the",
    'runtime, unannounced and different from region to region; esbuild tree-shakes it to the clients and commands the',
    'code imports, so (figures above) a function weighs only a few percent more than the bare DocumentClient, and its',
    'cold start is measured on exactly the code that runs.',
    '',
    '**Cost model** (per million requests of each operation, computed by the bench from its measured units):',
    '',
    ...costTables(results),
    '',
    RESULTS_END,
  ].join('\n');
}

/** Replaces the block between the markers of a page (RESULTS_DOCUMENT, or a copy in a test). */
export function writeResultsBlock(file: string, block: string): void {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(RESULTS_START);
  const end = text.indexOf(RESULTS_END);
  if (start < 0 || end < start) throw new Error(`${file} has no ${RESULTS_START} … ${RESULTS_END} block`);
  writeFileSync(file, `${text.slice(0, start)}${block}${text.slice(end + RESULTS_END.length)}`);
}

/** The former names, kept until every caller says results. */
export const readmeBlock = resultsBlock;
export const writeReadmeBlock = writeResultsBlock;
