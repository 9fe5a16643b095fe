import { runTool } from '../../tools/cli';
import { DOMAINS_TOOL, runDomainsCommand } from '../../tools/domains';
import { KEYS_TOOL, runKeysCommand } from '../../tools/keys';
import { withLocalTablesChecked } from '../../tools/local-store';
import { MEMBERS_TOOL, runMembersCommand } from '../../tools/members';
import { PROJECTS_TOOL, runProjectsCommand } from '../../tools/projects';
import type { RunResult } from './processes';

/** Where a tool run in process finds the store and npm start, as a process finds them in its environment. */
export interface ToolPlace {
  /** The local store (DYNAMODB_ENDPOINT). */
  readonly endpoint: string;
  /** The rest of the environment the tool reads (PORT, for the addresses it prints). */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * The store's local tables are known to be there (the local API made them): the command's
   * check of all eleven, 12 of its some 17 requests, is left out (withLocalTablesChecked).
   */
  readonly tablesMade?: boolean;
}

/**
 * Runs `npm run keys|projects|domains|members -- ...argv` in this process, through the same exit-code
 * and message rules as the program (`runTool`), and answers as {@link runTs} does: exit
 * code, stdout, stderr. Each spawned tool costs its start-up and module loading (about a
 * second of CPU); a test whose subject is what the tool does, not its process, runs it here.
 * The programs' own wiring (argv, streams, exit) is tested with real processes in
 * test/tools/tool-processes.test.ts.
 */
export async function runToolInProcess(
  tool: 'keys' | 'projects' | 'domains' | 'members',
  argv: readonly string[],
  place: ToolPlace,
): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const out = (line: string) => {
    stdout += `${line}\n`;
  };
  const err = (text: string) => {
    stderr += text;
  };
  const note = (line: string) => err(`${line}\n`);
  const { endpoint, env = process.env, tablesMade = false } = place;
  const run = () =>
    tool === 'keys'
      ? runTool(KEYS_TOOL, (args) => runKeysCommand(args, { out, endpoint }), argv, err)
      : tool === 'projects'
        ? runTool(PROJECTS_TOOL, (args) => runProjectsCommand(args, { out, note, endpoint, env }), argv, err)
        : tool === 'members'
          ? runTool(MEMBERS_TOOL, (args) => runMembersCommand(args, { out, endpoint, env }), argv, err)
          : runTool(DOMAINS_TOOL, (args) => runDomainsCommand(args, { out, endpoint }), argv, err);
  const code = await (tablesMade ? withLocalTablesChecked([endpoint], run) : run());
  return { code, stdout, stderr };
}
