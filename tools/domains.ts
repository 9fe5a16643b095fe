import { runToolMain, parseCommandLine, type ToolSpec } from './cli';
import { parseResolverAddress } from './domains-dns';
import { ADD } from './domains/add';
import { IMPORT_DECLARATION, importCommand } from './domains/import';
import type { DomainsCommandIo } from './domains/io';
import {
  CONSOLE_TOKEN_VARIABLE,
  DOMAINS_OPTIONS,
  type DomainsOptions,
  PERSONAL_TOKEN_VARIABLE,
} from './domains/options';
import { connectPlatform } from './domains/platform';
import { PRIMARY } from './domains/primary';
import { REDIRECT } from './domains/redirect';
import { REMOVE } from './domains/remove';
import { SANDBOX_RECORD_DECLARATION, sandboxRecord } from './domains/sandbox-record';
import { STATUS } from './domains/status';
import { statusAll } from './domains/status-all';
import type { RunnableCommand } from './domains/tenant-command';
import { REVERIFY, VERIFY } from './domains/verify';
import { UsageError } from './failures';
import { localStoreHelp } from './local-store';
import { parseStage } from './stage';

export { Refusal } from './failures';
export { CONSOLE_TOKEN_VARIABLE, PERSONAL_TOKEN_VARIABLE };
export type { DomainsCommandIo };
export { formatDuration } from './domains/views';

/**
 * `npm run domains`: a tenant's custom domains, for one project, as a thin client of the
 * domains service (the console's API, through its typed client): local mode's by default, a
 * deployed one with --url. The project is the one of the member's personal access token in
 * ANIMAL_STORE_TOKEN (issue 28), or, until the project has an owner, of its console token in
 * ANIMAL_STORE_CONSOLE_TOKEN. Each tenant command is a file of tools/domains/ (its declaration,
 * then gather, diagnose, render); `import` and `status --all` are the platform engineer's, on
 * the tables and the edge directly (tools/domains/platform.ts). This file only dispatches.
 */

/** The tenant's commands, in the order of the usage: each one or two calls of the service. */
const TENANT_COMMANDS: readonly RunnableCommand[] = [
  ADD,
  VERIFY,
  REVERIFY,
  STATUS,
  REDIRECT,
  PRIMARY,
  REMOVE,
];

export const DOMAINS_TOOL: ToolSpec<DomainsOptions> = {
  name: 'domains',
  options: DOMAINS_OPTIONS,
  global: ['url'],
  commands: [
    ...TENANT_COMMANDS.map((command) => command.declaration),
    SANDBOX_RECORD_DECLARATION,
    IMPORT_DECLARATION,
  ],
  epilogue: `Environment:
  ${PERSONAL_TOKEN_VARIABLE}  Your personal access token (pat_…, made in the console's Tokens view):
      the tool acts for its project, with its role. Never an argument: arguments land in shell
      history and process lists.
  ${CONSOLE_TOKEN_VARIABLE}  The project's console token (pct_…), used when ${PERSONAL_TOKEN_VARIABLE}
      is unset; it opens a project only until the project has an owner.
  PORT  Local mode's API port (default 3000), as npm start reads it.
${localStoreHelp([])}
Exit codes: 0 done (verify: verified); 1 refused, failed or not verified; 2 wrong invocation.`,
};

/** Runs one domains command; resolves to the exit code (verify: 0 verified, 1 not). */
export async function runDomainsCommand(argv: readonly string[], io: DomainsCommandIo): Promise<number> {
  const line = parseCommandLine(DOMAINS_TOOL, argv);
  if (line.help !== undefined) {
    io.out(line.help);
    return 0;
  }
  const { command, values, operands } = line;
  // Every usage check comes before any connection, so a typo costs no call.
  if (values.resolver !== undefined) parseResolverAddress(values.resolver);
  const stage = values.stage === undefined ? undefined : parseStage(values.stage);
  if (command === 'sandbox-record') {
    if (values.url !== undefined)
      throw new UsageError('sandbox-record acts on the sandbox DNS of npm start: it takes no --url.');
    return sandboxRecord(io, operands, values);
  }
  const platformCommand = command === 'import' || (command === 'status' && values.all);
  if (stage && !platformCommand) throw new UsageError('--stage goes with import and status --all only.');
  if (platformCommand) {
    if (values.url !== undefined) {
      throw new UsageError(
        `${command === 'import' ? 'import' : 'status --all'} acts on the tables, not the service: it takes --stage, not --url.`,
      );
    }
    const platform = await connectPlatform(io, stage);
    try {
      return command === 'import'
        ? await importCommand(io, operands[0] ?? '', values, platform)
        : await statusAll(io, values, platform);
    } finally {
      platform.close();
    }
  }
  const tenant = TENANT_COMMANDS.find((candidate) => candidate.declaration.name === command);
  if (!tenant) throw new Error(`Command ${command} is declared but not implemented.`);
  return tenant.run(io, { command, operands, values });
}

if (require.main === module) {
  runToolMain(DOMAINS_TOOL, (argv) =>
    runDomainsCommand(argv, { out: (line) => process.stdout.write(`${line}\n`) }),
  );
}
