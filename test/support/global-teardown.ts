import { rmSync } from 'node:fs';
import { SYNTH_CACHE_VARIABLE } from './global-setup';

/** After the last test file: the run's folder of templates goes. */
export default function globalTeardown(): void {
  const folder = process.env[SYNTH_CACHE_VARIABLE];
  if (folder) rmSync(folder, { recursive: true, force: true });
}
