import { randomBytes } from 'node:crypto';
import { CloudFormationClient, type Stack } from '@aws-sdk/client-cloudformation';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { deleteProjectPets } from '../lambda/store/pet-removal';
import { STACK_OUTPUTS } from '../lib/animal-store-stack';
import {
  ENVIRONMENT_NAMES,
  type EnvironmentName,
  environmentConfigs,
  PLATFORM_ENVIRONMENTS,
} from '../lib/config/environments';
import { EDGE_OUTPUTS, EDGE_REGION, EDGE_STACK_NAME } from '../lib/edge-stack';
import { API_VERSION_PREFIX } from '../lambda/api/routes';
import { EXIT, parseSimpleCommandLine, runToolMain, type SimpleToolSpec } from './cli';
import type { ToolConnection } from './connection';
import { reason, UsageError } from './failures';
import { KeyAdmin } from './key-admin';
import {
  connectLocal,
  localStoreHelp,
  toolStoreEndpoint,
  toolTableNames,
  toolTablesHelp,
} from './local-store';
import { ProjectAdmin } from './project-admin';
import {
  CheckFailure,
  type CheckContext,
  SMOKE_CHECKS,
  type SmokeCheck,
  type SmokeSubject,
  type SmokeTarget,
} from './smoke-checks';
import { isLoopbackHost } from './smoke-http';
import { connectStage, findStack, parseStage, type StageClients } from './stage';

/**
 * `npm run smoke`: the checks a user makes of a running service, black-box over HTTP(S), as a
 * throwaway Free project that the keys and projects tools' code creates and this run removes
 * again (its key, its pets, its gateway key), whatever the checks find, and on Ctrl-C too.
 */

const OPTIONS = {
  stage: {
    type: 'string',
    value: 'NAME',
    description: [
      `A deployed environment (${ENVIRONMENT_NAMES.join(', ')}): its base URL, project address and`,
      "console from the stacks' outputs; the throwaway project in its tables and API",
      "Gateway, with the AWS credentials and region of the SDK's default chain.",
    ].join('\n'),
  },
  url: {
    type: 'string',
    value: 'BASE',
    description: [
      'The service at this base URL (ending in /v1), e.g. http://127.0.0.1:3000/v1',
      'for npm start; the throwaway project in the local store (Environment, below).',
      'On 127.0.0.1 or localhost the project address is <project>.localhost and the',
      'console is on the same port; elsewhere those checks are skipped.',
    ].join('\n'),
  },
} as const;

/** The origin the throwaway project allows, for the preflight check: a reserved name (RFC 2606). */
const SMOKE_ORIGIN = 'https://smoke-test.example';

/** A check's line in the usage: its name, then what it checks, indented under it. */
function checkEntry(check: SmokeCheck): string {
  return [`  ${check.name}`, ...check.what.split('\n').map((line) => `      ${line}`)].join('\n');
}

export const SMOKE_TOOL: SimpleToolSpec<typeof OPTIONS> = {
  name: 'smoke',
  options: OPTIONS,
  summary: [
    'Check a running service as its users do, one line per check: give --stage or --url.',
    'Creates a throwaway project on the Free plan with one key, runs the checks below, then',
    'deletes the project, its key and its pets, even when a check fails or on Ctrl-C.',
  ].join('\n'),
  epilogue: `Checks, in order:
${SMOKE_CHECKS.map((check) => checkEntry(check)).join('\n')}

${localStoreHelp(toolTablesHelp(['projects', 'apiKeys', 'pets']))}

Exit codes: 0 every check passed (or was skipped, with the reason) and the cleanup is done;
1 a check failed, or the cleanup left something (the line says what); 2 wrong invocation;
130 interrupted (after the cleanup).`,
};

export interface SmokeIo {
  /** Check lines and the summary, on stdout. */
  readonly out: (line: string) => void;
  /** Progress (creating, cleaning up), on stderr. */
  readonly note?: (line: string) => void;
  /** Aborted on Ctrl-C: the check in flight fails, the others are not run, the cleanup runs. */
  readonly signal?: AbortSignal;
  /** Where the local store and its table names are read; by default the process environment. */
  readonly env?: NodeJS.ProcessEnv;
  /** AWS clients to use with --stage instead of the default ones (tests). */
  readonly stageClients?: StageClients & { readonly edgeCloudFormation?: CloudFormationClient };
}

/** A base URL as given: http(s), ending in the version prefix, without query or fragment. */
export function parseBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `--url ${JSON.stringify(text)} is not a URL: give a base URL, e.g. http://127.0.0.1:3000/v1.`,
    );
  }
  const path = url.pathname.replace(/\/+$/, '');
  if (!/^https?:$/.test(url.protocol) || !path.endsWith(API_VERSION_PREFIX) || url.search || url.hash) {
    throw new UsageError(
      `--url ${JSON.stringify(text)} is not a base URL: use http(s)://<host>[/<stage>]${API_VERSION_PREFIX}, e.g. http://127.0.0.1:3000/v1.`,
    );
  }
  url.pathname = path;
  return url;
}

/** What the run acts on: the tools' connection, the addresses to check, and how to remove pets. */
interface SmokeEnvironment {
  readonly connection: ToolConnection;
  /** Where the throwaway key is stored, for messages. */
  readonly keyStore: string;
  /** What the tools' commands need to act there too: ` --stage <env>`, or nothing for the local store. */
  readonly toolOption: string;
  target(project: string): SmokeTarget;
  removePets(project: string): Promise<number>;
  close(): void;
}

/** The service at a base URL, with the local store the tools use (DYNAMODB_PORT, DYNAMODB_ENDPOINT). */
async function openLocal(base: URL, env: NodeJS.ProcessEnv): Promise<SmokeEnvironment> {
  const endpoint = toolStoreEndpoint(env);
  const names = toolTableNames(env);
  const connection = await connectLocal(endpoint, names, env);
  const documents = createDocumentClient(endpoint);
  const loopback = isLoopbackHost(base.hostname);
  const elsewhere = `not known for ${base.host}: --stage finds it`;
  return {
    connection,
    keyStore: `the local store at ${endpoint}`,
    toolOption: '',
    target: (project) => {
      const address = new URL(base);
      address.hostname = `${project}.localhost`;
      return {
        baseUrl: base.href,
        projectAddress: loopback ? { url: address.href } : { none: `its address is ${elsewhere}` },
        consolePage: loopback
          ? { url: `${base.origin}/console/` }
          : { none: `the console's address is ${elsewhere}` },
      };
    },
    removePets: (project) => deleteProjectPets(documents, names.pets, project),
    close: () => {
      documents.destroy();
      connection.close();
    },
  };
}

function outputOf(stack: Stack | undefined, name: string): string | undefined {
  return stack?.Outputs?.find((output) => output.OutputKey === name)?.OutputValue;
}

/** A deployed environment: its stack's outputs, and the edge stack's console where the edge serves it. */
async function openStage(stage: EnvironmentName, io: SmokeIo): Promise<SmokeEnvironment> {
  const clients = io.stageClients ?? {};
  const config = environmentConfigs()[stage];
  const cloudFormation = clients.cloudFormation ?? new CloudFormationClient({});
  const edgeCloudFormation = clients.edgeCloudFormation ?? new CloudFormationClient({ region: EDGE_REGION });
  const documents = clients.documents ?? createDocumentClient();
  const closeClients = () => {
    if (!clients.cloudFormation) cloudFormation.destroy();
    if (!clients.edgeCloudFormation) edgeCloudFormation.destroy();
    if (!clients.documents) documents.destroy();
  };
  try {
    const connection = await connectStage(stage, { ...clients, cloudFormation, documents });
    const stack = await findStack(cloudFormation, config.stackName);
    const baseUrl = outputOf(stack, STACK_OUTPUTS.baseUrl)?.replace(/\/+$/, '');
    const petsTable = outputOf(stack, STACK_OUTPUTS.petsTable);
    if (!baseUrl || !petsTable) {
      connection.close();
      throw new Error(
        `Stack ${config.stackName} has no BaseUrl or PetsTableName output: deploy the current version of it.`,
      );
    }
    const platformDomain = outputOf(stack, STACK_OUTPUTS.platformDomain);
    // The edge stack serves the console, with the platform domain of the environments it serves.
    const edgeServes = PLATFORM_ENVIRONMENTS.includes(stage) && platformDomain !== undefined;
    const consoleUrl = edgeServes
      ? outputOf(await findStack(edgeCloudFormation, EDGE_STACK_NAME), EDGE_OUTPUTS.consoleUrl)
      : undefined;
    return {
      connection,
      keyStore: `the tables of ${config.stackName}`,
      toolOption: ` --stage ${stage}`,
      target: (project) => ({
        baseUrl,
        projectAddress: platformDomain
          ? { url: connection.addressOf(project) }
          : { none: `${config.stackName} has no platform domain (output ${STACK_OUTPUTS.platformDomain})` },
        consolePage: consoleUrl
          ? { url: consoleUrl }
          : {
              none: edgeServes
                ? `${EDGE_STACK_NAME} (${EDGE_REGION}) is not deployed, or has no output ${EDGE_OUTPUTS.consoleUrl}`
                : `the console comes with the edge stack, which serves only an environment with a platform domain`,
            },
      }),
      removePets: (project) => deleteProjectPets(documents, petsTable, project),
      close: () => {
        connection.close();
        closeClients();
      },
    };
  } catch (error) {
    closeClients();
    throw error;
  }
}

/** The throwaway project's parts that exist so far, for the cleanup. */
interface Throwaway {
  readonly project: string;
  created: boolean;
  keyIds: string[];
}

/** Makes the throwaway project as the tools do: Free, allowing {@link SMOKE_ORIGIN}, with one key. */
async function createThrowaway(environment: SmokeEnvironment, throwaway: Throwaway): Promise<string> {
  const { connection } = environment;
  const projects = new ProjectAdmin(connection);
  await projects.create(throwaway.project, 'free');
  throwaway.created = true;
  // Before any request, so no authorizer caches the project without its origin.
  await projects.setOrigins(throwaway.project, [SMOKE_ORIGIN]);
  const { apiKey, record } = await new KeyAdmin(connection).create(throwaway.project, 'smoke test');
  throwaway.keyIds.push(record.keyId);
  return apiKey;
}

/**
 * Removes what the run made: revokes the keys (a project with active keys cannot go), deletes
 * the pets, the project (and on a stage its gateway key), then the key records, so nothing is
 * left under the name. Returns what could not be removed, each with how to finish by hand.
 */
async function removeThrowaway(environment: SmokeEnvironment, throwaway: Throwaway): Promise<string[]> {
  const { connection, toolOption } = environment;
  const { project } = throwaway;
  const left: string[] = [];
  const attempt = async (what: string, step: () => Promise<unknown>) => {
    try {
      await step();
    } catch (error) {
      left.push(`${what} (${reason(error)})`);
    }
  };
  const keys = new KeyAdmin(connection);
  for (const keyId of throwaway.keyIds) {
    await attempt(`key ${keyId}: npm run keys -- revoke ${keyId}${toolOption}`, () => keys.revoke(keyId));
  }
  await attempt(`the pets of ${project}`, () => environment.removePets(project));
  if (throwaway.created) {
    await attempt(
      `project ${project}: npm run projects -- delete ${project} --yes${toolOption}`,
      async () => {
        // Deleted, but its gateway key left behind: the message says which key to delete where.
        const { incomplete } = await new ProjectAdmin(connection).delete(project);
        if (incomplete) left.push(incomplete.replace(/\.$/, ''));
      },
    );
  }
  if (left.length === 0) {
    for (const keyId of throwaway.keyIds) {
      await attempt(`the record of key ${keyId}`, () => connection.keys.discard(keyId));
    }
  }
  return left;
}

const pad = (status: string) => status.padEnd(5);

/** Runs the smoke test; resolves to its exit code. */
export async function runSmoke(argv: readonly string[], io: SmokeIo): Promise<number> {
  const line = parseSimpleCommandLine(SMOKE_TOOL, argv);
  if (line.help !== undefined) {
    io.out(line.help);
    return EXIT.done;
  }
  const { stage: stageText, url: urlText } = line.values;
  if ((stageText === undefined) === (urlText === undefined)) {
    throw new UsageError(
      `Give --stage ${ENVIRONMENT_NAMES.join('|')} or --url <base URL>, ${stageText === undefined ? 'one of them' : 'not both'}.\nHelp: npm run smoke -- --help`,
    );
  }
  const stage = stageText === undefined ? undefined : parseStage(stageText);
  const base = urlText === undefined ? undefined : parseBaseUrl(urlText);
  const env = io.env ?? process.env;
  const note = io.note ?? (() => undefined);

  const environment = stage ? await openStage(stage, io) : await openLocal(base as URL, env);
  const throwaway: Throwaway = {
    project: `smoke-${randomBytes(4).toString('hex')}`,
    created: false,
    keyIds: [],
  };
  const counts = { passed: 0, failed: 0, skipped: 0 };
  let cleanedUp = false;
  try {
    note(
      `Creating throwaway project ${throwaway.project} (free plan) and its key in ${environment.keyStore}...`,
    );
    const apiKey = await createThrowaway(environment, throwaway);
    const target = environment.target(throwaway.project);
    const subject: SmokeSubject = {
      project: throwaway.project,
      apiKey,
      allowedOrigin: SMOKE_ORIGIN,
      keyStore: environment.keyStore,
    };
    io.out(`Smoke test of ${target.baseUrl} as throwaway project ${throwaway.project} (free plan)`);
    const context: CheckContext = { target, subject, ...(io.signal ? { signal: io.signal } : {}) };
    for (const check of SMOKE_CHECKS) {
      if (io.signal?.aborted) break;
      io.out(await runCheck(check, context, counts));
    }
  } finally {
    note(`Removing throwaway project ${throwaway.project}...`);
    const left = await removeThrowaway(environment, throwaway);
    environment.close();
    cleanedUp = left.length === 0;
    if (!cleanedUp) io.out(`Cleanup incomplete, remove by hand: ${left.join('; ')}.`);
    else if (throwaway.created)
      io.out(`Cleaned up: project ${throwaway.project}, its key and its pets are gone.`);
  }
  const notRun = SMOKE_CHECKS.length - counts.passed - counts.failed - counts.skipped;
  io.out(
    `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${notRun > 0 ? `, ${notRun} not run (interrupted)` : ''}.`,
  );
  if (io.signal?.aborted) return INTERRUPTED;
  return counts.failed === 0 && cleanedUp ? EXIT.done : EXIT.failed;
}

/** Runs one check and words its line: PASS, FAIL or SKIP, and what it saw. */
async function runCheck(
  check: SmokeCheck,
  context: CheckContext,
  counts: { passed: number; failed: number; skipped: number },
): Promise<string> {
  try {
    const result = await check.run(context);
    if (result.skipped !== undefined) {
      counts.skipped += 1;
      return `${pad('SKIP')} ${check.name}: ${result.skipped}`;
    }
    counts.passed += 1;
    return `${pad('PASS')} ${check.name}: ${result.detail}`;
  } catch (error) {
    counts.failed += 1;
    const detail = context.signal?.aborted
      ? 'interrupted'
      : error instanceof CheckFailure
        ? error.message
        : reason(error);
    return `${pad('FAIL')} ${check.name}: ${detail}`;
  }
}

/** The shell's exit code for a run stopped by Ctrl-C (128 + SIGINT). */
export const INTERRUPTED = 130;

if (require.main === module) {
  const interrupt = new AbortController();
  process.on('SIGINT', () => {
    if (interrupt.signal.aborted) return;
    process.stderr.write('Interrupted: cleaning up before exiting...\n');
    interrupt.abort();
  });
  runToolMain(SMOKE_TOOL, (argv) =>
    runSmoke(argv, {
      out: (text) => process.stdout.write(`${text}\n`),
      note: (text) => process.stderr.write(`${text}\n`),
      signal: interrupt.signal,
    }),
  );
}
