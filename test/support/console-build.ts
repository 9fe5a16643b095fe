import { buildConsoleSync, type ConsoleBuild } from '../../console/build';
import { cachedSynthesis } from './synth-cache';

/**
 * The console page, built once per run and served by every test file that serves it: the
 * build goes to the run's folder, under the hash of every source it is made from, as the
 * templates do (./synth-cache.ts). Each file built its own before, some 0.5 s of esbuild's CPU
 * each. The files are only read: none of them changes a built page.
 */
export async function sharedConsoleBuild(): Promise<ConsoleBuild> {
  const { outdir, result } = await cachedSynthesis({ consolePage: 'built' }, (dir) => buildConsoleSync(dir));
  // Built in a folder that was renamed whole once written: the page is where it now lies.
  return { ...result, dir: outdir };
}
