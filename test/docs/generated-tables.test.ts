import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE } from '../../lambda/api/errors';
import {
  docFiles,
  expectedTable,
  GENERATED_TABLES,
  generatedBlocks,
  normalizedTable,
  withGeneratedTables,
} from '../../tools/doc-tables';

const ROOT = path.join(__dirname, '..', '..');

describe('generated blocks in doc/ and the README', () => {
  const files = docFiles();

  it.each(files.map((file) => [path.relative(ROOT, file), file]))(
    '%s: every block is what its source generates (run `npm run docs:tables`)',
    (_, file) => {
      const blocks = [...generatedBlocks(readFileSync(file, 'utf8'))];
      expect(blocks.map(([name, block]) => [name, normalizedTable(block)])).toEqual(
        blocks.map(([name]) => [name, expectedTable(name)]),
      );
    },
  );

  it('places every table somewhere, each once', () => {
    const placed = files.flatMap((file) => [...generatedBlocks(readFileSync(file, 'utf8')).keys()]);
    expect([...placed].sort()).toEqual(Object.keys(GENERATED_TABLES).sort());
  });

  it('lists every error code of the catalogue once, with its status', () => {
    const errors = files
      .map((file) => generatedBlocks(readFileSync(file, 'utf8')).get('errors'))
      .find((block) => block !== undefined);
    const rows = [...(errors ?? '').matchAll(/^\| `([a-z_]+)` +\| (\d{3}) +\|/gm)].map(([, code, status]) => [
      code,
      Number(status),
    ]);
    expect(rows).toEqual(Object.entries(ERROR_CATALOGUE).map(([code, { status }]) => [code, status]));
  });

  it('refuses a block whose name no table has, naming the ones that exist', () => {
    expect(() =>
      withGeneratedTables('<!-- generated:nope:start -->\n<!-- generated:nope:end -->', 'doc/x.md'),
    ).toThrow(`doc/x.md: no table is called "nope"; use one of ${Object.keys(GENERATED_TABLES).join(', ')}.`);
    expect(Object.keys(GENERATED_TABLES)).toEqual(
      expect.arrayContaining(['errors', 'plans', 'preflight-checks']),
    );
  });
});
