/**
 * Minimal structured logging. Only what is passed is written: events, headers
 * and keys are never logged wholesale, so no secret can reach a log line.
 */
export function logError(message: string, error: unknown): void {
  const detail =
    error instanceof Error
      ? { errorName: error.name, errorMessage: error.message, cause: causeName(error.cause) }
      : { errorMessage: String(error) };
  console.error(JSON.stringify({ level: 'ERROR', message, ...detail }));
}

function causeName(cause: unknown): string | undefined {
  return cause instanceof Error ? `${cause.name}: ${cause.message}` : undefined;
}
