import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint, type Linter } from 'eslint';

/**
 * The import-direction rule of `npm run lint` (eslint.config.mjs): inside lambda/, imports run
 * handlers → operations → middleware → api → domain ← store. Each forbidden direction fails; the
 * allowed ones pass.
 */

const ROOT = path.resolve(__dirname, '../..');
// ESLint would load its config file with import(), which jest's module registry lacks: the
// project's config is required (the jest transform turns it into CommonJS) and given as is.
const config = (require('../../eslint.config.mjs') as { default: Linter.Config[] }).default;
const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: config });

/** The import-direction messages ESLint gives for one import written in a file of the given folder. */
async function directionErrors(file: string, importLine: string): Promise<string[]> {
  const code = `${importLine}\n\nexport const used = value;\n`;
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

const FORBIDDEN: [file: string, importLine: string][] = [
  ['lambda/domain/x.ts', "import { value } from '../api/errors';"],
  ['lambda/domain/x.ts', "import type { value } from '../middleware/api-handler';"],
  ['lambda/domain/x.ts', "import { value } from '../store/pet-repository';"],
  ['lambda/domain/x.ts', "import { value } from '../handlers/get-pet';"],
  ['lambda/domain/x.ts', "import { value } from '../shared/clock';"],
  ['lambda/domain/x.ts', "export { value } from '../api/limits';"],
  ['lambda/domain/x.ts', "import { value } from '@aws-sdk/lib-dynamodb';"],
  ['lambda/domain/x.ts', "import type { value } from 'aws-lambda';"],
  ['lambda/api/x.ts', "import { value } from '../middleware/error-responses';"],
  ['lambda/api/x.ts', "import { value } from '../store/dynamodb-client';"],
  ['lambda/api/x.ts', "import { value } from '../handlers/list-pets';"],
  ['lambda/api/x.ts', "import { value } from '@aws-sdk/client-dynamodb';"],
  ['lambda/middleware/x.ts', "import { value } from '../store/rate-limit-store';"],
  ['lambda/middleware/x.ts', "import { value } from '../handlers/create-pet';"],
  ['lambda/middleware/x.ts', "import { value } from '../operations/create-pet';"],
  // Only a function's composition place (its handler) builds store modules.
  ['lambda/operations/x.ts', "import { value } from '../store/pet-repository';"],
  ['lambda/operations/x.ts', "import { value } from '../handlers/get-pet';"],
  ['lambda/operations/x.ts', "import { value } from '@aws-sdk/lib-dynamodb';"],
  ['lambda/domain/x.ts', "import { value } from '../operations/list-pets';"],
  ['lambda/store/x.ts', "import { value } from '../api/errors';"],
  ['lambda/store/x.ts', "import { value } from '../middleware/rate-limit';"],
  ['lambda/store/x.ts', "import { value } from '../handlers/authorizer';"],
  ['lambda/shared/x.ts', "import { value } from '../domain/plans';"],
  ['lambda/shared/x.ts', "import { value } from '../api/http';"],
  // A detour through lambda/ is the same import.
  ['lambda/domain/nested/x.ts', "import { value } from '../../../lambda/api/errors';"],
];

const ALLOWED: [file: string, importLine: string][] = [
  ['lambda/domain/x.ts', "import { value } from './plans';"],
  ['lambda/domain/x.ts', "import { value } from 'node:crypto';"],
  ['lambda/api/x.ts', "import { value } from '../domain/errors';"],
  ['lambda/api/x.ts', "import { value } from '../shared/observability';"],
  ['lambda/middleware/x.ts', "import { value } from '../api/error-response';"],
  ['lambda/middleware/x.ts', "import { value } from '../domain/rate-limiter';"],
  ['lambda/store/x.ts', "import { value } from '../domain/errors';"],
  ['lambda/store/x.ts', "import { value } from '@aws-sdk/lib-dynamodb';"],
  ['lambda/operations/x.ts', "import { value } from '../middleware/api-handler';"],
  ['lambda/operations/x.ts', "import type { value } from '../domain/pet';"],
  ['lambda/handlers/x.ts', "import { value } from '../operations/get-pet';"],
  ['lambda/handlers/x.ts', "import { value } from '../store/from-environment';"],
];

describe('the import-direction lint rule', () => {
  it.each(FORBIDDEN)('fails in %s on %s', async (file, importLine) => {
    const errors = await directionErrors(file, importLine);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(
      'import-direction (handlers → operations → middleware → api → domain ← store)',
    );
  });

  it.each(ALLOWED)('passes in %s on %s', async (file, importLine) => {
    expect(await directionErrors(file, importLine)).toEqual([]);
  });

  it('names the folder a file must not import', async () => {
    const [error] = await directionErrors('lambda/domain/x.ts', "import { value } from '../api/limits';");
    expect(error).toContain('lambda/domain/ must not import lambda/api/.');
  });

  it('passes on the tree as it is', async () => {
    const files = readdirSync(path.join(ROOT, 'lambda'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => path.join(ROOT, 'lambda', file));
    const violations: string[] = [];
    for (const filePath of files) {
      const [result] = await eslint.lintText(readFileSync(filePath, 'utf8'), { filePath });
      for (const message of result?.messages ?? []) {
        if (message.ruleId === 'no-restricted-imports') {
          violations.push(`${path.relative(ROOT, filePath)}:${message.line} ${message.message}`);
        }
      }
    }
    expect(files.length).toBeGreaterThan(40);
    expect(violations).toEqual([]);
  });
});
