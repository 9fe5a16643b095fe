import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '../lambda/api/cors';
import { CONSOLE_API_PREFIX, CONSOLE_ROUTES } from '../lambda/api/console-routes';
import { CONSOLE_ERROR_CATALOGUE, ERROR_CATALOGUE } from '../lambda/api/errors';
import { PLAN_NAMES, planCapacity } from '../lambda/core/plans';
import { lifecycleDiagram, lifecycleTable } from './lifecycle-diagram';
import { ACTIONS, CONSOLE_ACTIONS, may, ROLES } from '../lambda/core/permissions';
import { planTableRows } from './plan-table';
import { CHECKS } from './preflight-checks';
import { README_BLOCKS } from './readme-blocks';
import {
  ANONYMOUS_GATEWAY_LIMITS,
  PREFLIGHT_GATEWAY_LIMITS,
  DEFAULT_ACCOUNT_THROTTLE,
  gatewayLimits,
} from '../lib/constructs/usage-plans';

/**
 * `npm run docs:tables`: rewrites the blocks of doc/*.md and README.md that restate the source,
 * each between `<!-- generated:<name>:start -->` and `<!-- generated:<name>:end -->`, from the
 * module that defines it, and the files `npm run openapi` writes (the published document
 * restates the plan table), so that a changed fact is one edit and this command.
 * `--check` writes nothing and fails when a block or file is out of date
 * (test/docs/generated-tables.test.ts runs the same comparison).
 */

const ROOT = path.join(__dirname, '..');
export const DOC_DIR = path.join(ROOT, 'doc');
export const README_FILE = path.join(ROOT, 'README.md');

const number = (n: number) => n.toLocaleString('en-US');
const row = (cells: readonly (string | number)[]) => `| ${cells.join(' | ')} |`;
const table = (head: readonly string[], rows: readonly (readonly (string | number)[])[]) => [
  row(head),
  row(head.map(() => '---')),
  ...rows.map(row),
];

/** The blocks, by name: each a list of Markdown lines built from its source (tables, and the README's figures). */
export const GENERATED_TABLES: Readonly<Record<string, () => string[]>> = {
  /** lambda/api/errors.ts */
  errors: () =>
    table(
      ['Code', 'Status', 'When'],
      Object.entries(ERROR_CATALOGUE).map(([code, { status, description }]) => [
        `\`${code}\``,
        status,
        description,
      ]),
    ),
  /** lambda/core/permissions.ts, and the console routes that name each action */
  'console-permissions': () =>
    table(
      ['Action', ...ROLES, 'Console routes'],
      ACTIONS.map((action) => [
        CONSOLE_ACTIONS[action],
        ...ROLES.map((role) => (may(role, action) ? 'yes' : 'no')),
        CONSOLE_ROUTES.filter((route) => route.action === action)
          .map((route) => `\`${route.method} ${route.path}\``)
          .join(', ') || 'none yet',
      ]),
    ),
  /** lambda/api/console-routes.ts */
  'console-routes': () =>
    table(
      ['Method', 'Path', 'Success', 'What it does'],
      CONSOLE_ROUTES.map((route) => [
        route.method,
        `\`${CONSOLE_API_PREFIX}${route.path}\``,
        route.successStatus,
        route.summary,
      ]),
    ),
  /** lambda/api/errors.ts: the console API's own codes */
  'console-errors': () =>
    table(
      ['Code', 'Status', 'When'],
      Object.entries(CONSOLE_ERROR_CATALOGUE).map(([code, { status, description }]) => [
        `\`${code}\``,
        status,
        description,
      ]),
    ),
  /** lambda/api/cors.ts: what a preflight allows and every response to an allowed origin exposes */
  cors: () =>
    table(
      ['Header', 'Value'],
      [
        [
          '`Access-Control-Allow-Headers` (preflight)',
          CORS_ALLOWED_HEADERS.map((name) => `\`${name}\``).join(', '),
        ],
        ['`Access-Control-Max-Age` (preflight)', `${CORS_MAX_AGE_SECONDS} (seconds)`],
        ['`Access-Control-Expose-Headers`', CORS_EXPOSED_HEADERS.map((name) => `\`${name}\``).join(', ')],
      ],
    ),
  /** lambda/core/plans.ts */
  plans: () => table(['Plan', 'Requests per minute', 'Requests per day'], planTableRows()),
  /** lib/constructs/usage-plans.ts, from the plan table (an agreed plan's usage plan is sized by its ceiling) */
  'usage-plans': () => {
    const clamped = (value: number, limit: number) =>
      `${number(value)}${value === limit ? ' (clamped)' : ''}`;
    const rows = PLAN_NAMES.map((plan) => {
      const gateway = gatewayLimits(planCapacity(plan));
      return [
        `\`${plan}\``,
        clamped(gateway.burstLimit, DEFAULT_ACCOUNT_THROTTLE.burstLimit),
        clamped(gateway.rateLimit, DEFAULT_ACCOUNT_THROTTLE.rateLimit),
        number(gateway.quotaPerDay),
      ];
    });
    const anonymous = ANONYMOUS_GATEWAY_LIMITS;
    const preflight = PREFLIGHT_GATEWAY_LIMITS;
    return table(
      ['Usage plan', 'Burst', 'Rate (requests/s)', 'Quota per day'],
      [
        ...rows,
        [
          '`anonymous` (every keyless caller together)',
          number(anonymous.burstLimit),
          number(anonymous.rateLimit),
          number(anonymous.quotaPerDay),
        ],
        [
          '`preflight` (every preflight from an allowed origin together)',
          number(preflight.burstLimit),
          number(preflight.rateLimit),
          number(preflight.quotaPerDay),
        ],
      ],
    );
  },
  /** tools/preflight-checks.ts */
  'preflight-checks': () =>
    table(
      ['Check', 'What it looks at'],
      CHECKS.map((check) => [`\`${check.name}\``, check.description]),
    ),
  /** lambda/core/custom-domains/lifecycle.ts: the transitions as a Mermaid state diagram */
  'domain-lifecycle': lifecycleDiagram,
  'domain-lifecycle-table': lifecycleTable,
  ...README_BLOCKS,
};

const START = /<!-- generated:([a-z-]+):start -->/g;
const endMarker = (name: string) => `<!-- generated:${name}:end -->`;

/** The blocks of a Markdown text, by name: the text between each pair of markers, trimmed. */
export function generatedBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const match of text.matchAll(START)) {
    const name = match[1] as string;
    const from = (match.index ?? 0) + match[0].length;
    const to = text.indexOf(endMarker(name), from);
    if (to < 0) throw new Error(`<!-- generated:${name}:start --> has no ${endMarker(name)}.`);
    blocks.set(name, text.slice(from, to).trim());
  }
  return blocks;
}

/** The text with every marked block replaced by what its source generates (not yet formatted). */
export function withGeneratedTables(text: string, file: string): string {
  return text.replace(/<!-- generated:([a-z-]+):start -->[\s\S]*?<!-- generated:\1:end -->/g, (_, name) => {
    const generate = GENERATED_TABLES[name as string];
    if (!generate) {
      throw new Error(
        `${file}: no table is called "${name}"; use one of ${Object.keys(GENERATED_TABLES).join(', ')}.`,
      );
    }
    return [`<!-- generated:${name}:start -->`, '', ...generate(), '', endMarker(name)].join('\n');
  });
}

/**
 * A table's content without the padding Prettier adds (cells trimmed, separator cells
 * reduced to `---`), so a block compares equal to its source however it was aligned.
 */
export function normalizedTable(block: string): string {
  return block
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) =>
      line
        .split('|')
        .map((cell) => cell.trim())
        .map((cell) => (/^:?-+:?$/.test(cell) ? '---' : cell))
        .join('|'),
    )
    .join('\n');
}

/** What the block of this name should hold, normalized. */
export function expectedTable(name: string): string {
  const generate = GENERATED_TABLES[name];
  if (!generate) throw new Error(`No table is called "${name}".`);
  return normalizedTable(generate().join('\n'));
}

/** Names of the blocks of a text that differ from what their source generates. */
export function staleBlocks(text: string, file: string): string[] {
  withGeneratedTables(text, file); // refuses unknown names
  return [...generatedBlocks(text)]
    .filter(([name, block]) => normalizedTable(block) !== expectedTable(name))
    .map(([name]) => name);
}

/** The Markdown files the blocks live in: doc/*.md and the README. */
export function docFiles(): string[] {
  const docs = readdirSync(DOC_DIR)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => path.join(DOC_DIR, name));
  return [...docs, README_FILE];
}

/** The file as it should be: its blocks regenerated and formatted as the repository's Prettier settings want. */
export async function regenerated(file: string): Promise<string> {
  // Loaded here: Prettier's ES-module internals need a real Node.js loader (not jest's).
  const prettier = await import('prettier');
  const text = readFileSync(file, 'utf8');
  const options = await prettier.resolveConfig(file);
  return prettier.format(withGeneratedTables(text, path.relative(ROOT, file)), {
    ...options,
    filepath: file,
  });
}

const USAGE = `Usage: npm run docs:tables [-- --check]
Rewrites the generated blocks of doc/*.md and README.md (${Object.keys(GENERATED_TABLES).join(', ')})
and the files of \`npm run openapi\` from the source.
  --check   write nothing; exit 1 when a block or file is out of date`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help')) {
    console.log(USAGE);
    return;
  }
  const unknown = args.filter((arg) => arg !== '--check');
  if (unknown.length > 0) {
    console.error(`docs:tables: unknown argument ${unknown.join(' ')}.\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const check = args.includes('--check');
  const stale: string[] = [];
  for (const file of docFiles()) {
    const name = path.relative(ROOT, file);
    if (staleBlocks(readFileSync(file, 'utf8'), name).length === 0) continue;
    if (check) stale.push(name);
    else {
      writeFileSync(file, await regenerated(file));
      console.log(`Rewrote the generated blocks of ${name}.`);
    }
  }
  // Loaded here: it loads Prettier too (see regenerated).
  const { syncGeneratedFiles } = await import('./openapi');
  const openapi = await syncGeneratedFiles({ check });
  stale.push(...openapi.stale);
  if (openapi.written.length > 0) console.log(`Wrote ${openapi.written.join(', ')}.`);
  if (stale.length > 0) {
    console.error(
      `Out of date with the source: ${stale.join(', ')}. Run \`npm run docs:tables\` and commit the result.`,
    );
    process.exitCode = 1;
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
