import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CATCH_ALL } from '../lambda/api/routes';
import { RUNTIME_ENV } from '../lambda/shared/runtime-env';
import { environmentConfigs } from '../lib/config/environments';
import { LOCAL_TABLE_NAMES } from '../local/local-tables';
import { startTestStore } from '../test/support/embedded-store';
import { buildBundles, bundleFigures, REPO_ROOT } from './bundles';
import { measureColdStarts } from './cold-start';
import { costModel } from './cost-model';
import { functionEvents } from './events';
import { figure, type Figure, msSince } from './figures';
import { closeConnections } from './http-client';
import { measureLatency } from './latency';
import { measurePageWeight } from './page-weight';
import { measureHourBoundaryCost, measureLimiterCost } from './limiter-cost';
import { measureUsageViewCost } from './usage-view-cost';
import { measureListCost, scanReadUnits } from './list-cost';
import {
  type SeededProject,
  seedProjects,
  type ServerChild,
  startServerChild,
  TEMPLATE_PETS,
} from './local-stack';
import { PRICES } from './prices';
import { type BenchResults, figuresTable, RESULTS_DOCUMENT, resultsBlock, writeResultsBlock } from './report';
import { measureSynth } from './synth';
import { CONNECTIONS, measureThroughput } from './throughput';
import { measureItemUnits } from './units';

/** Sizes and repetitions: the full run, and the quick one `npm test` makes to check the bench works. */
const PLANS = {
  full: {
    coldStartProcesses: 30,
    warmRepeats: 200,
    latencyIterations: 300,
    throughput: { rounds: 3, seconds: 5, warmUpSeconds: 1 },
    listSizes: { small: 1_000, large: 100_000 },
    // Projects in the many-projects table, each of `listSizes.small` pets.
    listProjects: 100,
    listIterations: 200,
    synthRounds: 5,
    synthWholeApp: true,
    synthValidation: true,
  },
  quick: {
    coldStartProcesses: 1,
    warmRepeats: 5,
    latencyIterations: 10,
    // A count of requests, not a second: on a loaded machine one second may answer none.
    throughput: { rounds: 1, requests: 4 * CONNECTIONS, warmUpSeconds: 0 },
    listSizes: { small: 100, large: 1_000 },
    listProjects: 10,
    listIterations: 5,
    synthRounds: 1,
    // The baseline app in the whole app's place: the same runs and figure, some 6-8 s of CPU
    // less (the template tests synthesize the whole app anyway).
    synthWholeApp: false,
    // Its figure compares the baseline with itself: CDK's CloudFormation validation (some 5 s
    // of CPU) adds nothing to it, and the template tests validate every stack.
    synthValidation: false,
  },
} as const;

const USAGE = `Usage: npm run bench [-- --quick] [--out FILE] [--doc FILE | --no-doc]
  --quick      small sizes and few repetitions (checks that every figure is produced)
  --out        where to write the results (default bench/results.json; with --quick, the OS temp folder)
  --doc        page whose results block to rewrite (default doc/performance.md; with --quick, none)`;

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      doc: { type: 'string' },
      'no-doc': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const quick = values.quick ?? false;
  // Bundles and event files go to a temp folder outside the tree, removed at the end.
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'animal-store-bench-'));
  const doc = values['no-doc'] ? undefined : (values.doc ?? (quick ? undefined : RESULTS_DOCUMENT));
  return {
    quick,
    workDir,
    out:
      values.out ??
      (quick
        ? path.join(os.tmpdir(), 'animal-store-bench-quick.json')
        : path.join(REPO_ROOT, 'bench', 'results.json')),
    doc,
  };
}

const began = process.hrtime.bigint();
const log = (message: string) =>
  process.stderr.write(`bench [${(msSince(began) / 1000).toFixed(1)} s]: ${message}\n`);

async function main(): Promise<void> {
  // Lambda runs Node.js 22; the SDK's notice about older Node.js versions is noise here (and in every child).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { quick, workDir, out, doc } = options();
  const plan = quick ? PLANS.quick : PLANS.full;
  const started = process.hrtime.bigint();
  const figures: Figure[] = [];
  const children: ServerChild[] = [];
  const store = await startTestStore();
  try {
    log('bundling the functions as the stack does');
    const bundles = await buildBundles(path.join(workDir, 'bundles'));
    figures.push(...bundleFigures(bundles));
    log('building the console page as local mode and the stack build it');
    figures.push(await measurePageWeight(workDir));

    // Before any server starts: synth is CPU-bound and compared with a baseline run alongside.
    log(
      `cdk synth of ${plan.synthWholeApp ? 'the whole app' : 'the baseline app in its place'} and of the one-function baseline, alternately, ${plan.synthRounds}×`,
    );
    const synth = await measureSynth(plan.synthRounds, workDir, {
      wholeApp: plan.synthWholeApp,
      validation: plan.synthValidation,
    });
    figures.push(...synth.figures);

    const [coldProject] = await seedProjects(store.documents, [TEMPLATE_PETS]);
    if (!coldProject) throw new Error('no project made');
    const { key } = coldProject;
    const petId = Number(coldProject.newest.id);

    log(`cold starts: ${plan.coldStartProcesses} fresh processes per function`);
    const coldStarts = await measureColdStarts(
      bundles,
      functionEvents(key, petId),
      {
        AWS_REGION: 'local',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        [RUNTIME_ENV.dynamodbEndpoint]: store.store.endpoint,
        [RUNTIME_ENV.petsTable]: LOCAL_TABLE_NAMES.pets,
        [RUNTIME_ENV.apiKeysTable]: LOCAL_TABLE_NAMES.apiKeys,
        [RUNTIME_ENV.projectsTable]: LOCAL_TABLE_NAMES.projects,
        [RUNTIME_ENV.rateLimitsTable]: LOCAL_TABLE_NAMES.rateLimits,
        [RUNTIME_ENV.idempotencyTable]: LOCAL_TABLE_NAMES.idempotency,
        [RUNTIME_ENV.cursorKey]: 'bench-cursor-key',
      },
      { processes: plan.coldStartProcesses, warmRepeats: plan.warmRepeats, workDir },
    );
    figures.push(...coldStarts.figures);

    log('capacity units of the single-item calls and of the limiter');
    const itemUnits = await measureItemUnits(store.store.endpoint, store.documents, {
      project: key.project,
      petId,
      keyId: key.keyId,
    });
    const limiter = await measureLimiterCost(store.documents);
    const hourBoundary = await measureHourBoundaryCost(store.documents);
    const usageView = await measureUsageViewCost(store.store.endpoint, key.project);

    log('starting local servers (limiter on, limiter off, three list tables)');
    const [on, off, small, large, many] = await Promise.all([
      startServerChild('on'),
      startServerChild('off'),
      startServerChild('on'),
      startServerChild('on'),
      startServerChild('on'),
    ]);
    children.push(on, off, small, large, many);
    // One project per throughput client; the first holds the pets latency lists.
    const clientProjects = [1_000, ...Array<number>(CONNECTIONS - 1).fill(TEMPLATE_PETS)];
    const [onSeed, offSeed, smallSeed] = await Promise.all([
      seedProjects(on.documents, clientProjects),
      seedProjects(off.documents, clientProjects),
      seedProjects(small.documents, [plan.listSizes.small]),
    ]);
    const timedSeed = async (stack: ServerChild, sizes: number[]) => {
      const start = process.hrtime.bigint();
      const seeded = await seedProjects(stack.documents, sizes);
      return { seeded, seconds: msSince(start) / 1000 };
    };
    const largeLoad = await timedSeed(large, [plan.listSizes.large]);
    const manyLoad = await timedSeed(many, Array<number>(plan.listProjects).fill(plan.listSizes.small));
    const loadSeconds = largeLoad.seconds;
    const sizes = (value: number) => value.toLocaleString('en-US');
    log(
      `loaded ${sizes(plan.listSizes.large)} pets in one project in ${loadSeconds.toFixed(1)} s, ` +
        `${plan.listProjects} projects of ${sizes(plan.listSizes.small)} in ${manyLoad.seconds.toFixed(1)} s`,
    );

    log('latency through the local server against raw store calls, limiter on, then off');
    const first = (seeded: readonly SeededProject[]) => {
      const [project] = seeded;
      if (!project) throw new Error('no project made');
      return project;
    };
    figures.push(...(await measureLatency(on, first(onSeed), plan.latencyIterations, { limiter: 'on' })));
    const latencyOff = await measureLatency(off, first(offSeed), plan.latencyIterations, { limiter: 'off' });

    log('throughput, limiter on and off');
    const throughput = await measureThroughput(
      { stack: on, projects: onSeed },
      { stack: off, projects: offSeed },
      plan.throughput,
    );
    figures.push(...throughput.figures, ...latencyOff);

    log('list cost at two table sizes, and with many projects');
    const keysOf = (seeded: readonly SeededProject[]) => seeded.map((project) => project.key);
    const listCost = await measureListCost(
      {
        small: { stack: small, keys: keysOf(smallSeed), size: plan.listSizes.small },
        large: { stack: large, keys: keysOf(largeLoad.seeded), size: plan.listSizes.large },
        projects: { stack: many, keys: keysOf(manyLoad.seeded), size: plan.listSizes.small },
      },
      plan.listIterations,
    );
    figures.push(...listCost.figures);
    const scan = await scanReadUnits(large);
    figures.push(
      figure({
        name: 'listCost.scan.readUnits',
        description: `read units of listing by Scan at ${sizes(plan.listSizes.large)} pets (the alternative)`,
        value: scan.units,
        unit: 'RRU',
        baseline: { value: listCost.units.all ?? 0, name: 'the Query of listPets?limit=20, same table' },
      }),
    );
    figures.push(...limiter.figures, ...hourBoundary, ...usageView);

    const memoryMb = environmentConfigs({}).production.lambdaMemoryMb;
    const durationMs = coldStarts.warmMs;
    const units = {
      getPetReads: itemUnits.getPetReads,
      listReads: listCost.units.all ?? 0,
      listByStatusReads: listCost.units.byStatus ?? 0,
      createPetWrites: itemUnits.createPetWrites,
      createPetTableWrites: itemUnits.createPetTableWrites,
      createPetIndexWrites: itemUnits.createPetIndexWrites,
      keyRead: itemUnits.keyRead,
      projectRead: itemUnits.projectRead,
      scanReads: scan.units,
    };
    const model = costModel({
      memoryMb,
      durationMs: {
        getPet: durationMs.getPet ?? 0,
        listPets: durationMs.listPets ?? 0,
        createPet: durationMs.createPet ?? 0,
        getOpenApi: durationMs.getOpenApi ?? 0,
        authorizer: durationMs.authorizer ?? 0,
        catchAll: durationMs[CATCH_ALL.name] ?? 0,
      },
      units,
      limiter: limiter.admitted,
      scanTableSize: plan.listSizes.large,
    });

    const results: BenchResults = {
      generatedAt: new Date().toISOString(),
      mode: quick ? 'quick' : 'full',
      machine: {
        cpus: os.cpus().length,
        node: process.versions.node,
        platform: `${os.platform()} ${os.arch()}`,
      },
      seconds: msSince(started) / 1000,
      figures,
      details: {
        prices: PRICES,
        memoryMb,
        durationMs,
        bytesByPackage: Object.fromEntries(bundles.map((bundle) => [bundle.name, bundle.bytesByPackage])),
        limiter: { admitted: limiter.admitted, refused: limiter.refused },
        units,
        listSizes: {
          ...plan.listSizes,
          loadSeconds,
          projects: plan.listProjects,
          projectsLoadSeconds: manyLoad.seconds,
        },
        throughputFailures: throughput.failed,
        costModel: model,
      },
    };
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    if (doc) writeResultsBlock(doc, resultsBlock(results, bundles));
    console.log(figuresTable(figures).join('\n'));
    const missed = figures.filter((entry) => entry.target && !entry.target.met);
    console.log(
      `\n${figures.length} figures in ${results.seconds.toFixed(0)} s; targets missed: ${missed.length ? missed.map((entry) => entry.name).join(', ') : 'none'}`,
    );
    console.log(`results: ${out}${doc ? `; results block: ${doc}` : ''}`);
  } finally {
    closeConnections();
    await Promise.all(children.map((child) => child.close()));
    await store.close();
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
