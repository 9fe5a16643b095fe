/**
 * Polls `condition` until it holds, failing with `what` after `timeoutMs`. For tests that
 * wait for something to have happened (a count reached, a line written) rather than for
 * a fixed time: they go on as soon as it holds, and only a real hang reaches the deadline.
 */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
