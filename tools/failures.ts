/** Raised for a wrong invocation (bad option, unknown key, key in the wrong state): exit code 2. */
export class UsageError extends Error {}

/** Raised when a tool declines an action (plan, deploy, traffic): exit code 1, the message printed as it is. */
export class Refusal extends Error {}

/**
 * One line saying why something failed, with the underlying cause when the error wraps
 * one. Exception names and stacks are for developers: an operator reads the message.
 */
export function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const message = error.message || error.name;
  const cause = error.cause instanceof Error ? ` (${reason(error.cause)})` : '';
  return `${message}${cause}`.replace(/\s*\n\s*/g, ' ');
}
