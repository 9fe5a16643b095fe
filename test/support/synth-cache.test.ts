import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { SYNTH_CACHE_VARIABLE } from './global-setup';

/**
 * The run's template cache: a configuration is synthesized once and read by the other test
 * files; two configurations never share a template.
 */

type CacheModule = typeof import('./synth-cache');

/** The cache module as a test file other than this one loads it: its own memory, the run's folder. */
function freshModule(): CacheModule {
  let loaded: CacheModule | undefined;
  jest.isolateModules(() => {
    loaded = jest.requireActual<CacheModule>('./synth-cache');
  });
  if (!loaded) throw new Error('synth-cache did not load');
  return loaded;
}

/** A template standing for one configuration's, and a counter of the syntheses asked for. */
function synthesizer(name: string) {
  const calls: string[] = [];
  const synthesize = () => {
    calls.push(name);
    return Template.fromJSON({ Resources: { [name]: { Type: 'AWS::SNS::Topic', Properties: {} } } });
  };
  return { calls, synthesize };
}

const folder = mkdtempSync(path.join(os.tmpdir(), 'synth-cache-test-'));
const before = process.env[SYNTH_CACHE_VARIABLE];
beforeAll(() => {
  process.env[SYNTH_CACHE_VARIABLE] = folder;
});
afterAll(() => {
  if (before === undefined) delete process.env[SYNTH_CACHE_VARIABLE];
  else process.env[SYNTH_CACHE_VARIABLE] = before;
  rmSync(folder, { recursive: true, force: true });
});

describe('cachedTemplate', () => {
  it('synthesizes a configuration once: another test file reads the template the first one wrote', () => {
    const first = synthesizer('Written');
    const template = freshModule().cachedTemplate(['environment', 'staging', {}], first.synthesize);
    const other = synthesizer('Other');
    const read = freshModule().cachedTemplate(['environment', 'staging', {}], other.synthesize);
    expect({ first: first.calls, other: other.calls }).toEqual({ first: ['Written'], other: [] });
    expect(read.toJSON()).toEqual(template.toJSON());
    expect(readdirSync(folder).filter((file) => file.endsWith('.partial'))).toEqual([]);
  });

  it('keeps a property set to undefined apart from one left out, and each configuration apart', () => {
    const cache = freshModule();
    const keys = [
      ['productionWithEdge', {}],
      ['productionWithEdge', { platformAddress: undefined }],
      ['productionWithEdge', { reservedConcurrency: 10 }],
      ['environment', 'production', {}],
    ];
    const names = keys.map((key, index) => {
      const { synthesize } = synthesizer(`Configuration${index}`);
      return Object.keys(cache.cachedTemplate(key, synthesize).toJSON().Resources as object);
    });
    expect(names).toEqual([['Configuration0'], ['Configuration1'], ['Configuration2'], ['Configuration3']]);
  });

  it('refuses a configuration that is not plain data, which it could not tell apart', () => {
    const { synthesize } = synthesizer('Never');
    expect(() =>
      freshModule().cachedTemplate(['environment', { grant: () => undefined }], synthesize),
    ).toThrow(/must be plain data/);
  });
});

describe('cachedSynthesis', () => {
  /** A synthesis standing for an app's: one template file and the data read of its tree. */
  function assemblyWriter(calls: string[], name: string) {
    return (outdir: string) => {
      calls.push(name);
      mkdirSync(outdir, { recursive: true });
      writeFileSync(path.join(outdir, `${name}.template.json`), '{}');
      return { templateFile: `${name}.template.json` };
    };
  }

  it('synthesizes an app once: another test file reads the folder and data the first one wrote', async () => {
    const calls: string[] = [];
    const first = await freshModule().cachedSynthesis(['app', 1], assemblyWriter(calls, 'First'));
    const second = await freshModule().cachedSynthesis(['app', 1], assemblyWriter(calls, 'Second'));
    expect(calls).toEqual(['First']);
    expect(second).toEqual(first);
    expect(existsSync(path.join(second.outdir, second.result.templateFile))).toBe(true);
  });

  it('waits for the file that holds the lock instead of synthesizing beside it, then reads its result', async () => {
    const cache = freshModule();
    const calls: string[] = [];
    // Learn the folder of the key, then stand in for a worker that has taken its lock.
    const { outdir } = await cache.cachedSynthesis(['app', 2], assemblyWriter(calls, 'Probe'));
    rmSync(outdir, { recursive: true });
    writeFileSync(`${outdir}.lock`, '');
    const waiting = cache.cachedSynthesis(['app', 2], assemblyWriter(calls, 'Beside'));
    mkdirSync(outdir);
    writeFileSync(
      path.join(outdir, 'synthesis.json'),
      JSON.stringify({ templateFile: 'Other.template.json' }),
    );
    rmSync(`${outdir}.lock`);
    expect((await waiting).result).toEqual({ templateFile: 'Other.template.json' });
    expect(calls).toEqual(['Probe']);
  });
});
