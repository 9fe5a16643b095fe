import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint, type Linter } from 'eslint';
import ts from 'typescript';

/**
 * The layering rules of `npm run lint` (eslint.config.mjs). The repository: bench → tools → local
 * → lib and lambda, with the console and the client apart. Inside lambda/: handlers → composition
 * → operations → middleware → api → core ← store. A planted upward import fails in each layer;
 * the allowed directions pass; the tree as it is passes.
 */

const ROOT = path.resolve(__dirname, '../..');
// ESLint would load its config file with import(), which jest's module registry lacks: the
// project's config is required (the jest transform turns it into CommonJS) and given as is.
const config = (require('../../eslint.config.mjs') as { default: Linter.Config[] }).default;
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfigFile: true,
  overrideConfig: config,
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
});

const LAMBDA_RULE =
  'import-direction (handlers → composition → operations → middleware → api → core ← store)';
const REPOSITORY_RULE = 'layering (bench → tools → local → lib and lambda; console and client stand apart)';

/** The layering messages ESLint gives for one import written in a file at that path. */
async function layeringErrors(file: string, importLine: string): Promise<string[]> {
  const code = `${importLine}\n\nexport const used = value;\n`;
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

/**
 * A file's import and export-from statements at their own lines, the rest blank: all that
 * no-restricted-imports reads. ESLint's parse of whole files (scopes, code paths) was most of
 * this file's CPU (16 s); TypeScript's parser alone finds the statements.
 */
function importsOf(filePath: string): string {
  const text = readFileSync(filePath, 'utf8');
  const source = ts.createSourceFile(filePath, text, ts.ScriptTarget.Latest, false);
  const lines = text.split('\n').map(() => '');
  const keep = (statement: ts.Statement) => {
    const start = statement.getStart(source);
    const first = source.getLineAndCharacterOfPosition(start).line;
    text
      .slice(start, statement.end)
      .split('\n')
      .forEach((line, offset) => (lines[first + offset] = line));
  };
  const visit = (statements: readonly ts.Statement[]) => {
    for (const statement of statements) {
      if (ts.isImportDeclaration(statement) || ts.isImportEqualsDeclaration(statement)) keep(statement);
      else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) keep(statement);
      // `declare module '…' { import … }`: ESLint reads the imports inside it too.
      else if (ts.isModuleDeclaration(statement) && statement.body && ts.isModuleBlock(statement.body))
        visit(statement.body.statements);
    }
  };
  visit(source.statements);
  return lines.join('\n');
}

const LAMBDA_FORBIDDEN: [file: string, importLine: string][] = [
  ['lambda/core/x.ts', "import { value } from '../api/errors';"],
  ['lambda/core/x.ts', "import type { value } from '../middleware/api-handler';"],
  ['lambda/core/x.ts', "import { value } from '../store/pet-repository';"],
  ['lambda/core/x.ts', "import { value } from '../handlers/get-pet';"],
  ['lambda/core/x.ts', "import { value } from '../shared/clock';"],
  ['lambda/core/x.ts', "export { value } from '../api/limits';"],
  ['lambda/core/x.ts', "import { value } from '@aws-sdk/lib-dynamodb';"],
  ['lambda/core/x.ts', "import type { value } from 'aws-lambda';"],
  ['lambda/core/x.ts', "import { value } from '../operations/list-pets';"],
  ['lambda/core/x.ts', "import { value } from '../composition/api';"],
  ['lambda/api/x.ts', "import { value } from '../middleware/error-responses';"],
  ['lambda/api/x.ts', "import { value } from '../store/dynamodb-client';"],
  ['lambda/api/x.ts', "import { value } from '../handlers/list-pets';"],
  ['lambda/api/x.ts', "import { value } from '@aws-sdk/client-dynamodb';"],
  ['lambda/middleware/x.ts', "import { value } from '../store/rate-limit-store';"],
  ['lambda/middleware/x.ts', "import { value } from '../handlers/create-pet';"],
  ['lambda/middleware/x.ts', "import { value } from '../operations/create-pet';"],
  ['lambda/operations/x.ts', "import { value } from '../store/pet-repository';"],
  ['lambda/operations/x.ts', "import { value } from '../handlers/get-pet';"],
  ['lambda/operations/x.ts', "import { value } from '../composition/service';"],
  ['lambda/operations/x.ts', "import { value } from '@aws-sdk/lib-dynamodb';"],
  // The composition builds from the ports it is given, never a store module.
  ['lambda/composition/x.ts', "import { value } from '../store/pet-repository';"],
  ['lambda/composition/x.ts', "import { value } from '../handlers/get-pet';"],
  ['lambda/composition/x.ts', "import { value } from '@aws-sdk/client-cloudfront';"],
  // A handler passes its ports to its composer: it builds no operation itself.
  ['lambda/handlers/x.ts', "import { value } from '../operations/get-pet';"],
  ['lambda/handlers/x.ts', "import { value } from '../middleware/api-handler';"],
  ['lambda/store/x.ts', "import { value } from '../api/errors';"],
  ['lambda/store/x.ts', "import { value } from '../middleware/rate-limit';"],
  ['lambda/store/x.ts', "import { value } from '../handlers/authorizer';"],
  ['lambda/store/x.ts', "import { value } from '../composition/ports';"],
  ['lambda/shared/x.ts', "import { value } from '../core/plans';"],
  ['lambda/shared/x.ts', "import { value } from '../api/http';"],
  ['lambda/shared/x.ts', "import { value } from 'aws-cdk-lib';"],
  // A detour through lambda/ is the same import.
  ['lambda/core/nested/x.ts', "import { value } from '../../../lambda/api/errors';"],
];

/** A planted upward import in each layer of the repository. */
const REPOSITORY_FORBIDDEN: [file: string, importLine: string][] = [
  ['tools/x.ts', "import { value } from '../bench/run';"],
  ['local/x.ts', "import { value } from '../tools/domains-dns';"],
  ['local/x.ts', "import { value } from '../bench/run';"],
  ['local/nested/x.ts', "import { value } from '../../tools/project-migration';"],
  ['lib/x.ts', "import { value } from '../local/local-tables';"],
  ['lib/constructs/x.ts', "import { value } from '../../tools/stage';"],
  ['lambda/core/x.ts', "import { value } from '../../lib/config/platform';"],
  ['lambda/store/x.ts', "import { value } from '../../local/local-tables';"],
  ['lambda/handlers/x.ts', "import { value } from '../../tools/cli';"],
  ['lambda/api/x.ts', "import { value } from '../../console/security-headers';"],
  ['lambda/shared/x.ts', "import { value } from '../../test/support/events';"],
  ['bin/x.ts', "import { value } from '../local/server';"],
  ['console/src/x.ts', "import { value } from '../../local/server';"],
  ['console/src/x.ts', "import { value } from '../../lambda/store/project-repository';"],
  ['console/src/x.ts', "import { value } from '../../lambda/operations/console';"],
  ['console/x.ts', "import { value } from '../lib/constructs/console-site';"],
  ['client/src/x.ts', "import { value } from '../../lambda/api/routes';"],
  ['client/src/x.ts', "import { value } from '../../console/src/api';"],
];

const ALLOWED: [file: string, importLine: string][] = [
  ['lambda/core/x.ts', "import { value } from './plans';"],
  ['lambda/core/x.ts', "import { value } from 'node:crypto';"],
  ['lambda/api/x.ts', "import { value } from '../core/errors';"],
  ['lambda/api/x.ts', "import { value } from '../shared/observability';"],
  ['lambda/middleware/x.ts', "import { value } from '../api/error-response';"],
  ['lambda/middleware/x.ts', "import { value } from '../core/rate-limiter';"],
  ['lambda/store/x.ts', "import { value } from '../core/errors';"],
  ['lambda/store/x.ts', "import { value } from '@aws-sdk/lib-dynamodb';"],
  ['lambda/operations/x.ts', "import { value } from '../middleware/api-handler';"],
  ['lambda/operations/x.ts', "import type { value } from '../core/pet';"],
  ['lambda/composition/x.ts', "import { value } from '../operations/get-pet';"],
  ['lambda/composition/x.ts', "import type { value } from '../core/pet';"],
  ['lambda/handlers/x.ts', "import { value } from '../composition/api';"],
  ['lambda/handlers/x.ts', "import { value } from '../store/from-environment';"],
  ['bench/x.ts', "import { value } from '../tools/project-admin';"],
  ['bench/x.ts', "import { value } from '../local/server';"],
  ['tools/x.ts', "import { value } from '../local/server';"],
  ['tools/x.ts', "import { value } from '../lib/config/environments';"],
  ['local/x.ts', "import { value } from '../lambda/composition/service';"],
  ['local/x.ts', "import { value } from '../lib/config/platform';"],
  ['local/x.ts', "import type { value } from '../console/build';"],
  ['lib/constructs/x.ts', "import { value } from '../../lambda/shared/runtime-env';"],
  ['bin/x.ts', "import { value } from '../lib/animal-store-app';"],
  ['console/src/x.ts', "import type { value } from '../../lambda/core/custom-domains/custom-domain-record';"],
  ['console/src/x.ts', "import type { value } from '../../lambda/api/console-routes';"],
];

describe('the layering lint rules', () => {
  it.each(LAMBDA_FORBIDDEN)('fails in %s on %s', async (file, importLine) => {
    const errors = await layeringErrors(file, importLine);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(LAMBDA_RULE);
  });

  it.each(REPOSITORY_FORBIDDEN)('fails in %s on %s', async (file, importLine) => {
    const errors = await layeringErrors(file, importLine);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(REPOSITORY_RULE);
  });

  it.each(ALLOWED)('passes in %s on %s', async (file, importLine) => {
    expect(await layeringErrors(file, importLine)).toEqual([]);
  });

  it('names the folder a file must not import', async () => {
    const [inner] = await layeringErrors('lambda/core/x.ts', "import { value } from '../api/limits';");
    expect(inner).toContain('lambda/core/ must not import lambda/api/.');
    const [outer] = await layeringErrors('local/x.ts', "import { value } from '../tools/domains-dns';");
    expect(outer).toContain('local/ must not import tools/.');
  });

  it('lints of a file what the rule reads: every import and export-from, at its line', async () => {
    // The tools' project rules read lambda/ (multi-line imports, type exports): all forbidden in client/.
    const file = path.join(ROOT, 'tools/project-admin.ts');
    const asClient = async (code: string) => {
      const [result] = await eslint.lintText(code, {
        filePath: path.join(ROOT, 'client/src/project-admin.ts'),
      });
      return (result?.messages ?? []).map(
        (message) => `${message.line}:${message.column} ${message.message}`,
      );
    };
    const whole = await asClient(readFileSync(file, 'utf8'));
    expect(whole.length).toBeGreaterThanOrEqual(8);
    expect(await asClient(importsOf(file))).toEqual(whole);
  });

  it('passes on the tree as it is', async () => {
    const folders = ['lambda', 'local', 'tools', 'lib', 'bench', 'bin', 'console', 'client/src'];
    const files = folders.flatMap((folder) =>
      readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.(ts|tsx|mts)$/.test(file) && !file.endsWith('.d.ts'))
        .filter((file) => !file.split(path.sep).some((part) => part === 'node_modules' || part === 'dist'))
        .map((file) => path.join(ROOT, folder, file)),
    );
    const violations: string[] = [];
    for (const filePath of files) {
      const [result] = await eslint.lintText(importsOf(filePath), { filePath });
      for (const message of result?.messages ?? []) {
        if (message.ruleId === 'no-restricted-imports') {
          violations.push(`${path.relative(ROOT, filePath)}:${message.line} ${message.message}`);
        }
      }
    }
    expect(files.filter((file) => file.startsWith(path.join(ROOT, 'local'))).length).toBeGreaterThan(10);
    expect(files.length).toBeGreaterThan(200);
    expect(violations).toEqual([]);
    // Some 300 files: longer than the default timeout on a busy machine.
  }, 180_000);
});
