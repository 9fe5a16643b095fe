import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RESULTS_DOCUMENT, RESULTS_END, RESULTS_START } from '../../bench/report';
import { REPO_ROOT, runTs } from '../support/processes';

interface FigureJson {
  name: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
  target?: { of: string; op: string; limit: number; met: boolean };
}

/** Every figure the bench must produce; operations come from the route table, so they are matched by prefix. */
const REQUIRED = [
  /^bundle\.authorizer$/,
  /^bundle\.(listPets|createPet|getPet)$/,
  /^bundle\.catchAll$/,
  /^coldStart\.authorizer$/,
  /^coldStart\.(listPets|createPet|getPet)$/,
  /^coldStart\.catchAll$/,
  /^page\.consoleJs$/,
  /^latency\.getPet\.p50$/,
  /^latency\.getPet\.p99$/,
  /^latency\.listPets\.p50$/,
  /^latency\.listPetsByStatus\.p50$/,
  /^latency\.createPet\.p50$/,
  /^throughput\.getPet\.limiterOn$/,
  /^listCost\.all\.readUnits$/,
  /^listCost\.byStatus\.readUnits$/,
  /^listCost\.all\.p50$/,
  /^listCost\.byStatus\.p50$/,
  /^listCost\.projects\.all\.readUnits$/,
  /^listCost\.projects\.byStatus\.readUnits$/,
  /^listCost\.projects\.all\.p50$/,
  /^listCost\.projects\.byStatus\.p50$/,
  /^limiter\.writesPerAdmitted\.max$/,
  /^limiter\.writesPerRefused\.max$/,
  /^synth\.app$/,
];

describe('npm run bench (quick mode)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-test-'));
  const out = path.join(dir, 'results.json');
  const doc = path.join(dir, 'performance.md');
  const docBefore = readFileSync(RESULTS_DOCUMENT, 'utf8');
  const benchBlock = (text: string) => text.slice(text.indexOf(RESULTS_START), text.indexOf(RESULTS_END));
  const checkedInResults = path.join(REPO_ROOT, 'bench', 'results.json');
  const resultsBefore = existsSync(checkedInResults) ? readFileSync(checkedInResults, 'utf8') : undefined;
  let run: Awaited<ReturnType<typeof runTs>>;

  beforeAll(async () => {
    copyFileSync(RESULTS_DOCUMENT, doc);
    // In quick mode one `cdk synth` run, of the one-function baseline app, stands for both apps.
    run = await runTs('bench/run.ts', ['--quick', '--out', out, '--doc', doc]);
  }, 240_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finishes and writes valid JSON with every field of every figure', () => {
    expect({ code: run.code, stderr: run.code === 0 ? '' : run.stderr }).toEqual({ code: 0, stderr: '' });
    const results = JSON.parse(readFileSync(out, 'utf8')) as { mode: string; figures: FigureJson[] };
    expect(results.mode).toBe('quick');
    for (const figure of results.figures) {
      expect(figure).toEqual(
        expect.objectContaining({
          name: expect.any(String),
          value: expect.any(Number),
          unit: expect.any(String),
          baseline: figure.baseline === null ? null : expect.any(Number),
          ratio: figure.ratio === null ? null : expect.any(Number),
        }),
      );
      expect(Number.isFinite(figure.value)).toBe(true);
      if (figure.target) expect(typeof figure.target.met).toBe('boolean');
      if (figure.target?.of === 'ratio') expect(figure.ratio).not.toBeNull();
    }
    const names = results.figures.map((figure) => figure.name);
    for (const pattern of REQUIRED)
      expect(names.filter((name) => pattern.test(name)).length).toBeGreaterThan(0);
    // Every operation bundled is also cold-started, and every figure name is unique.
    const bundled = names.filter((name) => name.startsWith('bundle.')).map((name) => name.slice(7));
    expect(names.filter((name) => name.startsWith('coldStart.')).map((name) => name.slice(10))).toEqual(
      bundled,
    );
    expect(new Set(names).size).toBe(names.length);
    // Lists with many projects are held to a single project's (issue 12).
    const perProject = results.figures.filter((figure) => figure.name.startsWith('listCost.projects.'));
    for (const figure of perProject)
      expect(figure.target).toEqual(expect.objectContaining({ of: 'ratio', op: '<=', limit: 1.1 }));
  });

  it('writes the figures and the cost model into the results block of the page it is given, and nowhere else', () => {
    const text = readFileSync(doc, 'utf8');
    const block = benchBlock(text);
    expect(block).toContain('`latency.getPet.p50`');
    expect(block).toContain('USD per million requests');
    expect(block).toContain('Scan-based list');
    expect(block).toMatch(/Junk request .*\n.*the catch-all adds \*\*\$\d/);
    expect(text.slice(0, text.indexOf(RESULTS_START))).toBe(
      docBefore.slice(0, docBefore.indexOf(RESULTS_START)),
    );
    // The quick run leaves the checked-in figures alone.
    expect(benchBlock(readFileSync(RESULTS_DOCUMENT, 'utf8'))).toBe(benchBlock(docBefore));
    if (resultsBefore !== undefined) expect(readFileSync(checkedInResults, 'utf8')).toBe(resultsBefore);
  });
});
