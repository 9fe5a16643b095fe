import { type Admission, type WindowReport, windowReports } from '../core/rate-limit';
import { ApiError } from './api-error';

/** How rate limiting reads over HTTP: the headers on every response, and the refusals. */

const seconds = (ms: number) => Math.ceil(ms / 1000);

/** The rate-limit headers every response of the service carries (a 429 adds `Retry-After`). */
export const RATE_LIMIT_HEADER_NAMES = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
] as const;

type RateLimitHeaderName = (typeof RATE_LIMIT_HEADER_NAMES)[number];

/**
 * The rate-limit headers of a response. `X-RateLimit-*` describe the window
 * closest to exhaustion (fewest requests left; on a tie, the minute, which resets
 * first); a refusal reports the window that refused. `RateLimit-Policy` and
 * `RateLimit` (draft-ietf-httpapi-ratelimit-headers) describe both windows.
 */
export function rateLimitHeaders(admission: Admission): Record<string, string> {
  const [minute, day] = windowReports(admission);
  let shown = day.remaining < minute.remaining ? day : minute;
  let remaining = shown.remaining;
  let resetMs = shown.resetMs;
  if (!admission.admitted) {
    shown = admission.reason === 'day' ? day : minute;
    remaining = 0;
    resetMs = admission.retryAtMs;
  }
  const left = (report: WindowReport) => (admission.admitted || report !== shown ? report.remaining : 0);
  // Typed by the list, so the list and the headers sent cannot drift apart.
  const headers: Record<RateLimitHeaderName, string> & { 'Retry-After'?: string } = {
    'X-RateLimit-Limit': String(shown.limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(seconds(resetMs)),
    'RateLimit-Policy': [minute, day].map((w) => `"${w.name}";q=${w.limit};w=${w.seconds}`).join(', '),
    RateLimit: [minute, day]
      .map((w) => `"${w.name}";r=${left(w)};t=${Math.max(0, seconds(w.resetMs - admission.nowMs))}`)
      .join(', '),
  };
  if (!admission.admitted)
    headers['Retry-After'] = String(Math.max(1, seconds(admission.retryAtMs - admission.nowMs)));
  return headers;
}

/**
 * The 429 for a refused admission; `caller` says who was counted, and `banned` who a ban
 * falls on (one key of a project, or the whole caller), for the message.
 */
export function rateLimitRefusal(
  admission: Admission & { admitted: false },
  caller: string,
  banned = 'this caller',
): ApiError {
  const headers = rateLimitHeaders(admission);
  const until = new Date(admission.retryAtMs).toISOString();
  const wait = headers['Retry-After'];
  if (admission.reason === 'banned') {
    return new ApiError(
      'temporarily_banned',
      `Too many requests were sent while rate limited, so ${banned} is banned until ${until} (${wait} s). Wait for Retry-After, then back off exponentially.`,
      headers,
    );
  }
  const limit = admission.reason === 'minute' ? admission.limits.perMinute : admission.limits.perDay;
  return new ApiError(
    'rate_limited',
    `Rate limit exceeded: ${limit} requests per ${admission.reason} for ${caller}. The ${admission.reason} window resets at ${until} (in ${wait} s).`,
    headers,
  );
}

/** The 503 when the counters cannot be reached: requests fail closed. */
export function rateLimitUnavailable(): ApiError {
  return new ApiError(
    'service_unavailable',
    'Rate limits cannot be checked because the data store is unavailable; retry after the Retry-After delay.',
    { 'Retry-After': '1' },
  );
}
