import { type ParseArgsConfig, parseArgs } from 'node:util';

/** Raised for a wrong invocation (bad option, unknown key, key in the wrong state): exit code 2. */
export class UsageError extends Error {}

/** One line saying why something failed, with the underlying cause when the error wraps one. */
export function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${reason(error.cause)})` : '';
  const name =
    error.name && error.name !== 'Error' && !error.message.includes(error.name) ? `${error.name}: ` : '';
  return `${name}${error.message}${cause}`.replace(/\s*\n\s*/g, ' ');
}

/**
 * Parses a command line with node:util's parseArgs (positionals allowed, `--help` always
 * known); a wrong option becomes a {@link UsageError} followed by the tool's usage text.
 */
export function parseCommandLine<const O extends ParseArgsConfig['options']>(
  argv: readonly string[],
  options: O,
  usage: string,
) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { ...options, help: { type: 'boolean' } } as O & { help: { type: 'boolean' } },
    });
  } catch (error) {
    throw new UsageError(`${error instanceof Error ? error.message : String(error)}\n\n${usage}`);
  }
}
