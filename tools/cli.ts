import type { AuditAction } from '../lambda/core/audit';
import { parseArgs } from 'node:util';
import { reason, Refusal, UsageError } from './failures';

/**
 * The conventions every operator tool (`npm run keys`, `npm run domains`, ...) shares.
 * A tool declares its commands and options once, as data ({@link ToolSpec}); usage text,
 * parsing and checks all come from that declaration:
 * - `--help`, `-h` or `help` (before or after a command) prints usage on stdout: exit 0;
 * - a wrong invocation (unknown command or option, missing or extra operand, bad value)
 *   prints one message on stderr: exit 2 ({@link UsageError});
 * - a failure prints `<tool>: <reason>` on stderr, never an exception name or stack: exit 1.
 */

export const EXIT = { done: 0, failed: 1, usage: 2 } as const;

/** An option, declared once for usage, parsing and checks. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** Placeholder of a string option's value in usage, e.g. `PLAN`. */
  readonly value?: string;
  /** What it does; further lines are indented under it. */
  readonly description: string;
  /** A one-letter form, e.g. `c` for `-c` (as `cdk -c key=value`). */
  readonly short?: string;
  /** A string option given any number of times: its values in order. */
  readonly multiple?: boolean;
}

type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** Parsed option values, typed from the declaration: a string (or every one given), or a flag; absent when not given. */
export type OptionValues<O extends OptionSpecs> = {
  readonly [K in keyof O]?: O[K]['type'] extends 'string'
    ? O[K]['multiple'] extends true
      ? readonly string[]
      : string
    : boolean;
};

export interface CommandSpec<O extends OptionSpecs> {
  readonly name: string;
  /**
   * Operands in order; a trailing `?` makes one optional (only the last ones may be), and a
   * trailing `...` makes the last one take any number of values, none included.
   */
  readonly operands?: readonly string[];
  /** Options this command takes besides the tool's global ones. */
  readonly options?: readonly (keyof O & string)[];
  /** Options this command cannot run without. */
  readonly required?: readonly (keyof O & string)[];
  /** What it does; further lines are indented under it. */
  readonly summary: string;
  /** What it changes, in the audit log's words: each run is recorded (tools/audit-trail.ts). */
  readonly audit?: AuditAction;
}

export interface ToolSpec<O extends OptionSpecs> {
  /** The npm script: usage reads `npm run <name> -- ...`. */
  readonly name: string;
  readonly options: O;
  /** Options every command takes (e.g. `--stage`). */
  readonly global: readonly (keyof O & string)[];
  readonly commands: readonly CommandSpec<O>[];
  /** Sections after the options in the tool's usage: environment, exit codes, ... */
  readonly epilogue: string;
}

export type CommandLine<O extends OptionSpecs> =
  | { readonly help: string }
  | {
      readonly help?: undefined;
      readonly command: string;
      /** One entry per declared operand given, in order (a variadic last one: one per value). */
      readonly operands: readonly string[];
      readonly values: OptionValues<O>;
    };

const COLUMN = 22;
const HELP_LINE = '-h, --help';

/** `text` in the description column: on the line of `head` when it fits, else under it. */
function entry(head: string, text: string): string {
  const lines = text.split('\n');
  const indent = ' '.repeat(COLUMN);
  const first = `  ${head}`;
  const rest = lines.slice(1).map((line) => `${indent}${line}`);
  if (first.length < COLUMN - 1) return [`${first.padEnd(COLUMN)}${lines[0]}`, ...rest].join('\n');
  return [first, `${indent}${lines[0]}`, ...rest].join('\n');
}

function optionForm(name: string, option: OptionSpec): string {
  return option.type === 'string' ? `--${name} ${option.value ?? 'VALUE'}` : `--${name}`;
}

/** An option as its usage lists it: with its one-letter form, e.g. `-c, --context KEY=VALUE`. */
function optionLabel(name: string, option: OptionSpec): string {
  return option.short ? `-${option.short}, ${optionForm(name, option)}` : optionForm(name, option);
}

const VARIADIC = '...';

function operandForm(operand: string): string {
  if (operand.endsWith(VARIADIC)) return `[<${operand.slice(0, -VARIADIC.length)}> ...]`;
  return operand.endsWith('?') ? `[<${operand.slice(0, -1)}>]` : `<${operand}>`;
}

/** `create [--plan PLAN] [--json]`: the command with its operands and its own options. */
function commandForm<O extends OptionSpecs>(tool: ToolSpec<O>, command: CommandSpec<O>, withGlobal: boolean) {
  const options = [...(command.options ?? []), ...(withGlobal ? tool.global : [])];
  return [
    command.name,
    ...(command.operands ?? []).map(operandForm),
    ...options.map((name) => {
      const form = optionForm(name, tool.options[name] as OptionSpec);
      return command.required?.includes(name) ? form : `[${form}]`;
    }),
  ].join(' ');
}

function invocation(tool: { name: string }): string {
  return `npm run ${tool.name} --`;
}

/** The tool's usage: every command and option. */
export function toolUsage<O extends OptionSpecs>(tool: ToolSpec<O>): string {
  const global = tool.global.map((name) => ` [${optionForm(name, tool.options[name] as OptionSpec)}]`);
  return [
    `Usage: ${invocation(tool)} <command> [options]${global.join('')}`,
    `       ${invocation(tool)} <command> --help`,
    '',
    'Commands:',
    ...tool.commands.map((command) => entry(commandForm(tool, command, false), command.summary)),
    '',
    'Options:',
    ...Object.entries(tool.options).map(([name, option]) =>
      entry(optionLabel(name, option), option.description),
    ),
    entry(HELP_LINE, `Print this usage, or a command's, and exit.`),
    '',
    tool.epilogue,
  ].join('\n');
}

/** One command's usage: its form, what it does, and the options it takes. */
export function commandUsage<O extends OptionSpecs>(tool: ToolSpec<O>, command: CommandSpec<O>): string {
  const options = [...(command.options ?? []), ...tool.global];
  return [
    `Usage: ${invocation(tool)} ${commandForm(tool, command, true)}`,
    '',
    command.summary,
    '',
    'Options:',
    ...options.map((name) =>
      entry(optionLabel(name, tool.options[name] as OptionSpec), tool.options[name]?.description ?? ''),
    ),
    entry(HELP_LINE, 'Print this usage and exit.'),
    '',
    `All commands: ${invocation(tool)} --help`,
  ].join('\n');
}

/** A wrong invocation of one command: the message, then where its usage is. */
function commandError(tool: { name: string }, command: string, message: string): UsageError {
  return new UsageError(`${message}\nHelp: ${invocation(tool)} ${command} --help`);
}

function checkOperands<O extends OptionSpecs>(
  tool: ToolSpec<O>,
  command: CommandSpec<O>,
  given: readonly string[],
): void {
  const declared = command.operands ?? [];
  const required = declared.filter((operand) => !operand.endsWith('?') && !operand.endsWith(VARIADIC));
  const form = `${invocation(tool)} ${commandForm(tool, command, false)}`;
  if (given.length < required.length) {
    const missing = required.slice(given.length).map(operandForm).join(' ');
    throw commandError(tool, command.name, `${command.name} needs ${missing}: ${form}`);
  }
  if (given.length > declared.length && !declared.at(-1)?.endsWith(VARIADIC)) {
    const extra = given
      .slice(declared.length)
      .map((value) => JSON.stringify(value))
      .join(' ');
    throw commandError(tool, command.name, `Unexpected argument ${extra} for ${command.name}: ${form}`);
  }
}

type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];
type OptionToken = Extract<Token, { kind: 'option' }>;

/** Splits a command line into positionals and option tokens; `-h` is `--help`. */
function tokenize(options: OptionSpecs, argv: readonly string[]) {
  // Not strict: unknown options come back as tokens, and readOptions words the messages.
  const { tokens } = parseArgs({
    args: [...argv],
    options: {
      ...Object.fromEntries(
        Object.entries(options).map(([name, option]) => [
          name,
          { type: option.type, ...(option.short ? { short: option.short } : {}) },
        ]),
      ),
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  return {
    positionals: tokens.flatMap((token) => (token.kind === 'positional' ? [token.value] : [])),
    options: tokens.flatMap((token) => (token.kind === 'option' ? [token] : [])),
    help: tokens.some((token) => token.kind === 'option' && token.name === 'help'),
  };
}

/** The values of the option tokens, each checked: known, allowed here, with a value when it takes one. */
function readOptions<O extends OptionSpecs>(
  options: O,
  allowed: ReadonlySet<string>,
  tokens: readonly OptionToken[],
  fail: (message: string) => UsageError,
  where: string,
): OptionValues<O> {
  const values: Record<string, string | boolean | string[]> = {};
  for (const token of tokens) {
    const option = options[token.name];
    if (!option) throw fail(`Unknown option ${token.rawName}.`);
    if (!allowed.has(token.name)) {
      const takes = [...allowed].map((known) => `--${known}`).join(', ') || 'no options';
      throw fail(`${where} does not take --${token.name}; it takes ${takes}.`);
    }
    if (option.type === 'boolean') {
      if (token.inlineValue) throw fail(`--${token.name} takes no value.`);
      values[token.name] = true;
    } else {
      // A missing value, or the next option taken for it: `--plan --json`.
      if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-'))) {
        throw fail(`--${token.name} needs a value: --${token.name} ${option.value ?? 'VALUE'}.`);
      }
      const given = values[token.name];
      values[token.name] = option.multiple
        ? [...(Array.isArray(given) ? given : []), token.value]
        : token.value;
    }
  }
  return values as OptionValues<O>;
}

/**
 * Parses a command line against the tool's declaration. Returns the usage to print
 * when help was asked for; throws {@link UsageError} for any wrong invocation.
 */
export function parseCommandLine<O extends OptionSpecs>(
  tool: ToolSpec<O>,
  argv: readonly string[],
): CommandLine<O> {
  const tokens = tokenize(tool.options, argv);
  let [name, ...operands] = tokens.positionals;
  let { help } = tokens;
  if (name === 'help') {
    help = true;
    [name, ...operands] = operands;
  }
  const command = tool.commands.find((candidate) => candidate.name === name);
  if (name !== undefined && !command) {
    throw new UsageError(
      `Unknown command ${JSON.stringify(name)}: use ${tool.commands.map((c) => c.name).join(', ')}.\nHelp: ${invocation(tool)} --help`,
    );
  }
  if (help) return { help: command ? commandUsage(tool, command) : toolUsage(tool) };
  if (!command) throw new UsageError(`No command given.\n\n${toolUsage(tool)}`);

  const fail = (message: string) => commandError(tool, command.name, message);
  const allowed = new Set<string>([...(command.options ?? []), ...tool.global]);
  const values = readOptions(tool.options, allowed, tokens.options, fail, command.name);
  for (const required of command.required ?? []) {
    if (values[required] === undefined) {
      throw fail(
        `${command.name} needs --${required}: ${invocation(tool)} ${commandForm(tool, command, false)}`,
      );
    }
  }
  checkOperands(tool, command, operands);
  return { command: command.name, operands, values };
}

/** A tool without commands (e.g. `npm run openapi -- --check`), declared once like a {@link ToolSpec}. */
export interface SimpleToolSpec<O extends OptionSpecs> {
  readonly name: string;
  readonly options: O;
  /** What it does; further lines follow it. */
  readonly summary: string;
  readonly epilogue: string;
}

export function simpleToolUsage<O extends OptionSpecs>(tool: SimpleToolSpec<O>): string {
  const forms = Object.entries(tool.options).map(
    ([name, option]) => ` [${optionForm(name, option)}${option.multiple ? ' ...' : ''}]`,
  );
  return [
    `Usage: ${invocation(tool)}${forms.join('')}`,
    '',
    tool.summary,
    '',
    'Options:',
    ...Object.entries(tool.options).map(([name, option]) =>
      entry(optionLabel(name, option), option.description),
    ),
    entry(HELP_LINE, 'Print this usage and exit.'),
    '',
    tool.epilogue,
  ].join('\n');
}

/** Parses the command line of a tool without commands: no operands, `help` and `--help` print usage. */
export function parseSimpleCommandLine<O extends OptionSpecs>(
  tool: SimpleToolSpec<O>,
  argv: readonly string[],
): { readonly help: string } | { readonly help?: undefined; readonly values: OptionValues<O> } {
  const tokens = tokenize(tool.options, argv);
  const [first, ...extra] = tokens.positionals;
  if (tokens.help || (first === 'help' && extra.length === 0)) return { help: simpleToolUsage(tool) };
  const fail = (message: string) => new UsageError(`${message}\nHelp: ${invocation(tool)} --help`);
  const values = readOptions(
    tool.options,
    new Set(Object.keys(tool.options)),
    tokens.options,
    fail,
    tool.name,
  );
  if (first !== undefined) {
    throw fail(`Unexpected argument ${JSON.stringify(first)}: ${invocation(tool)} takes options only.`);
  }
  return { values };
}

/**
 * Runs a tool's command line to its exit code: what `run` resolves to (0 when nothing),
 * 2 for a {@link UsageError}, 1 for a {@link Refusal} (its message as it is) or any
 * other failure (one line, no exception name or stack), each message written to `stderr`.
 * {@link runToolMain} is this and an exit; tests call it in process.
 */
export async function runTool(
  tool: { name: string },
  run: (argv: readonly string[]) => Promise<number | void>,
  argv: readonly string[],
  stderr: (text: string) => void,
): Promise<number> {
  try {
    return (await run(argv)) ?? EXIT.done;
  } catch (error: unknown) {
    if (error instanceof UsageError) {
      stderr(`${error.message}\n`);
      return EXIT.usage;
    }
    stderr(`${tool.name}: ${error instanceof Refusal ? error.message : reason(error)}\n`);
    return EXIT.failed;
  }
}

/** Runs a tool as a program, with the exit code of {@link runTool}. */
export function runToolMain(
  tool: { name: string },
  run: (argv: readonly string[]) => Promise<number | void>,
): void {
  // The SDK warns on every run that Node 20 nears its end of support: noise in an operator's output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  void runTool(tool, run, process.argv.slice(2), (text) => process.stderr.write(text)).then((code) =>
    process.exit(code),
  );
}
