import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The variable naming the run's folder of synthesized templates (test/support/synth-cache.ts). */
export const SYNTH_CACHE_VARIABLE = 'ANIMAL_STORE_SYNTH_CACHE';

/**
 * Before any test file, in jest's own process: a fresh folder where the run's test files
 * share synthesized templates. The workers start after this and inherit the variable.
 */
export default function globalSetup(): void {
  process.env[SYNTH_CACHE_VARIABLE] = mkdtempSync(path.join(os.tmpdir(), 'animal-store-synth-'));
}
