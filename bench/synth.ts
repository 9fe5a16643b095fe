import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './bundles';
import { figure, type Figure, median, msSince } from './figures';

const CDK = path.join(REPO_ROOT, 'node_modules', '.bin', 'cdk');
const APP_ENTRY = 'bin/animal-store.ts';
const BASELINE_ENTRY = 'bench/baseline-synth-app.ts';

/** The baseline's `--app`: cdk.json's own command with the baseline app in place of the service's. */
export function baselineAppCommand(): string {
  const { app } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'cdk.json'), 'utf8')) as { app: string };
  if (!app.includes(APP_ENTRY)) throw new Error(`cdk.json's app command does not name ${APP_ENTRY}: ${app}`);
  return app.replace(APP_ENTRY, BASELINE_ENTRY);
}

/** Seconds one `cdk synth` takes, from the repository root (so cdk.json applies), into a fresh folder. */
function timeSynth(outDir: string, appCommand: string | undefined, validation: boolean): Promise<number> {
  // As a platform engineer runs it offline: no AWS credentials, account or region.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(AWS_|CDK_DEFAULT_)/.test(name)),
  );
  const args = [
    'synth',
    '--quiet',
    '--output',
    outDir,
    ...(appCommand ? ['--app', appCommand] : []),
    ...(validation ? [] : ['--no-validation']),
  ];
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(CDK, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = msSince(started) / 1000;
      rmSync(outDir, { recursive: true, force: true });
      if (code === 0) resolve(seconds);
      else reject(new Error(`cdk ${args.join(' ')} exited ${code}:\n${stderr.slice(-2000)}`));
    });
  });
}

/** Every run of both apps, in seconds. */
export interface SynthTimes {
  readonly app: number[];
  readonly baseline: number[];
}

/**
 * `cdk synth` of the whole app (cdk.json's app: every stack, bundling, cdk-nag, template
 * validation) against the one-function baseline app, same CLI and cdk.json, alternating
 * so that the machine's noise falls on both; the figure compares the medians.
 * `wholeApp: false` puts the baseline app in the app's place, timed once per round for both: the
 * same figure for a run that only checks the bench works (the whole app's synth costs some 6-8 s
 * of CPU more than the baseline's, and the template tests synthesize the app anyway).
 * `validation: false` turns CDK's CloudFormation validation off in both (`--no-validation`):
 * the quick run's, whose figure compares the baseline with itself; its WebAssembly engine costs
 * some 5 s of CPU a run, and the template tests run it over every stack.
 */
export async function measureSynth(
  rounds: number,
  workDir: string,
  { wholeApp, validation }: { wholeApp: boolean; validation: boolean },
): Promise<{ figures: Figure[]; times: SynthTimes }> {
  const times: SynthTimes = { app: [], baseline: [] };
  const baseline = baselineAppCommand();
  for (let round = 0; round < rounds; round += 1) {
    const baselineSeconds = await timeSynth(
      path.join(workDir, `synth-baseline-${round}`),
      baseline,
      validation,
    );
    times.baseline.push(baselineSeconds);
    // Without the whole app, its place holds the same baseline app: a second run would repeat the first.
    times.app.push(
      wholeApp
        ? await timeSynth(path.join(workDir, `synth-app-${round}`), undefined, validation)
        : baselineSeconds,
    );
  }
  const what = wholeApp ? 'the whole app (every stack)' : 'the baseline app in place of the whole app';
  const checks = validation ? '' : ", without CDK's CloudFormation validation";
  return {
    times,
    figures: [
      figure({
        name: 'synth.app',
        description: `cdk synth of ${what}${checks}, median of ${rounds}`,
        value: median(times.app),
        unit: 's',
        baseline: { value: median(times.baseline), name: 'one NodejsFunction reading a table' },
        target: { of: 'ratio', op: '<=', limit: 2.5 },
      }),
    ],
  };
}
