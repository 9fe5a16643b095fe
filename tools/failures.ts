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
