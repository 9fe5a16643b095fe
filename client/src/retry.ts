/**
 * When to send a request again, and how long to wait first. The rules (client/README.md):
 * - 429 and 503 wait `Retry-After`, up to `maxRetryAfterMs`; a longer wait fails at once.
 * - 409 on a request with an `Idempotency-Key` and a `Retry-After` is a create still in flight: same.
 * - Network errors and other 5xx (and 429/503 without `Retry-After`) back off with full jitter.
 * - Any other answer is final, and a request that is not idempotent is never sent twice.
 * - Every call has `maxAttempts` and an overall deadline.
 */

/** Retry limits of a client. Every duration is in milliseconds. */
export interface RetryOptions {
  /** Requests per call, the first included; 1 turns retries off. @default 5 */
  readonly maxAttempts?: number;
  /** Full-jitter backoff: retry n (from 0) waits a random time below min(maxDelayMs, baseDelayMs × 2^n). @default 250 */
  readonly baseDelayMs?: number;
  /** The longest single backoff wait. @default 10000 */
  readonly maxDelayMs?: number;
  /** The longest `Retry-After` the client waits out; a longer one fails at once, the wait in the error. @default 60000 */
  readonly maxRetryAfterMs?: number;
  /** Overall budget of one call, attempts and waits included; no wait is started that would end past it. @default 120000 */
  readonly deadlineMs?: number;
}

/** Time and chance, injectable so that tests neither wait nor depend on luck. */
export interface Timing {
  /** Milliseconds since the epoch (reads `Retry-After` dates and keeps the deadline). */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** A number in [0, 1), for the jitter. */
  random(): number;
}

/** Why a call stopped after a failed attempt. */
export type StopReason =
  /** The answer is final (a 4xx other than 429 and 409-in-flight). */
  | 'not-retryable'
  /** A POST without an `Idempotency-Key`: sending it again could create twice. */
  | 'not-idempotent'
  | 'max-attempts'
  /** The next wait would end past the deadline, or the deadline passed during an attempt. */
  | 'deadline'
  /** `Retry-After` asked for longer than `maxRetryAfterMs`. */
  | 'retry-after-beyond-cap';

/** What the retries of a failed call did. */
export interface RetryInfo {
  /** Requests sent. */
  readonly attempts: number;
  /** Time spent waiting between them, in ms. */
  readonly waitedMs: number;
  readonly reason: StopReason;
  /** The `Retry-After` wait (ms) the call did not take: beyond the cap or past the deadline. */
  readonly retryAfterMs?: number;
}

/** Passed to `onRetry` before each wait. */
export interface RetryEvent {
  /** The attempt that failed (1 for the first request). */
  readonly attempt: number;
  readonly delayMs: number;
  /** `retry-after`: the server said how long; `backoff`: full jitter. */
  readonly kind: 'retry-after' | 'backoff';
  /** The status that failed, absent after a network error. */
  readonly status?: number;
}

/** An answer with its body read. */
export interface Answer {
  readonly response: Response;
  readonly text: string;
}

/** One attempt: the answer, or the network error that prevented it. */
export type Attempt = Answer | { readonly error: unknown };

/** How a call ended: a 2xx answer, or the last failed attempt with what the retries did. */
export type Outcome =
  | { readonly answer: Answer; readonly attempts: number; readonly waitedMs: number }
  | { readonly failed: Attempt; readonly info: RetryInfo };

export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
  deadlineMs: 120_000,
};

export const DEFAULT_TIMING: Timing = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    }),
  random: () => Math.random(),
};

/** `Retry-After` in ms from `nowMs`: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its day and month; Date.parse alone would also read "1.5" as a date.
  const date = /[a-z]/i.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Full jitter (AWS Architecture Blog, "Exponential Backoff and Jitter"): [0, min(cap, base × 2^retry)). */
export function backoffDelay(retry: number, options: Required<RetryOptions>, random: () => number): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

type Decision =
  | { readonly kind: 'final' }
  | { readonly kind: 'retry-after'; readonly waitMs: number }
  | { readonly kind: 'backoff' };

function decide(attempt: Attempt, hasIdempotencyKey: boolean, nowMs: number): Decision {
  if ('error' in attempt) return { kind: 'backoff' };
  const { status, headers } = attempt.response;
  if (status < 400) return { kind: 'final' };
  const waitMs = parseRetryAfter(headers.get('Retry-After'), nowMs);
  if (status === 429 || status === 503)
    return waitMs === undefined ? { kind: 'backoff' } : { kind: 'retry-after', waitMs };
  if (status === 409 && hasIdempotencyKey && waitMs !== undefined) return { kind: 'retry-after', waitMs };
  return status >= 500 ? { kind: 'backoff' } : { kind: 'final' };
}

/** What `retrying` needs to know about the request. */
export interface RetryRequest {
  /** Safe to send twice: a GET, or a POST with an `Idempotency-Key`. */
  readonly idempotent: boolean;
  readonly hasIdempotencyKey: boolean;
  /** The caller's own signal: its abort ends the call at once with its reason. */
  readonly signal?: AbortSignal;
}

/**
 * Sends `send` until its answer is final or a limit is reached. `send` gets a signal
 * that aborts at the deadline or with the caller's signal; it must return a network
 * error as `{ error }` and let anything else through.
 */
export async function retrying(
  send: (signal: AbortSignal) => Promise<Attempt>,
  request: RetryRequest,
  options: Required<RetryOptions>,
  timing: Timing,
  onRetry?: (event: RetryEvent) => void,
): Promise<Outcome> {
  const start = timing.now();
  const elapsed = () => timing.now() - start;
  let waitedMs = 0;
  for (let attempts = 1; ; attempts++) {
    const controller = new AbortController();
    const forward = () => controller.abort(request.signal?.reason);
    request.signal?.throwIfAborted();
    request.signal?.addEventListener('abort', forward, { once: true });
    let deadlinePassed = false;
    const deadline = setTimeout(
      () => {
        deadlinePassed = true;
        controller.abort();
      },
      Math.max(0, options.deadlineMs - elapsed()),
    );
    let last: Attempt;
    try {
      last = await send(controller.signal);
    } finally {
      clearTimeout(deadline);
      request.signal?.removeEventListener('abort', forward);
    }
    request.signal?.throwIfAborted();
    const stop = (reason: StopReason, retryAfterMs?: number): Outcome => ({
      failed: last,
      info: { attempts, waitedMs, reason, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) },
    });
    if (deadlinePassed) return stop('deadline');

    const decision = decide(last, request.hasIdempotencyKey, timing.now());
    if (decision.kind === 'final') {
      return 'response' in last && last.response.ok
        ? { answer: last, attempts, waitedMs }
        : stop('not-retryable');
    }
    const retryAfterMs = decision.kind === 'retry-after' ? decision.waitMs : undefined;
    if (!request.idempotent) return stop('not-idempotent', retryAfterMs);
    if (retryAfterMs !== undefined && retryAfterMs > options.maxRetryAfterMs) {
      return stop('retry-after-beyond-cap', retryAfterMs);
    }
    if (attempts >= options.maxAttempts) return stop('max-attempts', retryAfterMs);
    const delayMs = retryAfterMs ?? backoffDelay(attempts - 1, options, timing.random);
    if (elapsed() + delayMs >= options.deadlineMs) return stop('deadline', retryAfterMs);

    onRetry?.({
      attempt: attempts,
      delayMs,
      kind: decision.kind,
      ...('response' in last ? { status: last.response.status } : {}),
    });
    await timing.sleep(delayMs, request.signal ?? new AbortController().signal);
    waitedMs += delayMs;
  }
}
