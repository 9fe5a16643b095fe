import { runTool } from '../../tools/cli';
import { DOMAINS_TOOL, runDomainsCommand } from '../../tools/domains';
import { KEYS_TOOL, runKeysCommand } from '../../tools/keys';
import { MEMBERS_TOOL, runMembersCommand } from '../../tools/members';
import { PROJECTS_TOOL, runProjectsCommand } from '../../tools/projects';
import type { RunResult } from './processes';

/** Where a tool run in process finds the store and npm start, as a process finds them in its environment. */
export interface ToolPlace {
  /** The local store (DYNAMODB_ENDPOINT). */
  readonly endpoint: string;
  /** The rest of the environment the tool reads (PORT, for the addresses it prints). */
  readonly env?: NodeJS.ProcessEnv;
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
  const { endpoint, env = process.env } = place;
  const code =
    tool === 'keys'
      ? await runTool(KEYS_TOOL, (args) => runKeysCommand(args, { out, endpoint }), argv, err)
      : tool === 'projects'
        ? await runTool(
            PROJECTS_TOOL,
            (args) => runProjectsCommand(args, { out, note, endpoint, env }),
            argv,
            err,
          )
        : tool === 'members'
          ? await runTool(MEMBERS_TOOL, (args) => runMembersCommand(args, { out, endpoint, env }), argv, err)
          : await runTool(DOMAINS_TOOL, (args) => runDomainsCommand(args, { out, endpoint }), argv, err);
  return { code, stdout, stderr };
}
