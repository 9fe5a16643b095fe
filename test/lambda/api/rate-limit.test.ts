import { rateLimitHeaders } from '../../../lambda/api/rate-limit';
import type { PlanLimits } from '../../../lambda/core/plans';
import { type Admission, windowsAt } from '../../../lambda/core/rate-limit';

const NOON = Date.UTC(2026, 10, 22, 12, 0, 15); // 15 s into a minute
// Limits of the test's own: the headers restate whatever limits the admission carries, whichever plan's.
const limits: PlanLimits = { perMinute: 60, perDay: 1_000 };
const minute = windowsAt(NOON).minute;

describe('rateLimitHeaders', () => {
  const admitted = (minuteCount: number, dayCount: number): Admission => ({
    admitted: true,
    limits,
    state: { minute, minuteCount, dayCount },
    nowMs: NOON,
  });

  it('report the minute window while it has fewer requests left', () => {
    expect(rateLimitHeaders(admitted(10, 100))).toMatchObject({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '50',
      'X-RateLimit-Reset': String(Date.UTC(2026, 10, 22, 12, 1) / 1000),
    });
  });

  it('report the day window once it is closer to exhaustion', () => {
    expect(rateLimitHeaders(admitted(10, 980))).toMatchObject({
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '20',
      'X-RateLimit-Reset': String(Date.UTC(2026, 10, 23) / 1000),
    });
  });

  it('prefer the minute on a tie, as it resets first', () => {
    expect(rateLimitHeaders(admitted(40, 980))['X-RateLimit-Limit']).toBe('60');
  });

  it('count a minute the caller has not used yet as full', () => {
    const stale: Admission = {
      admitted: true,
      limits,
      state: { minute: minute - 5, minuteCount: 60, dayCount: 70 },
      nowMs: NOON,
    };
    expect(rateLimitHeaders(stale)['X-RateLimit-Remaining']).toBe('60');
  });

  it('describe both windows in the IETF fields', () => {
    const headers = rateLimitHeaders(admitted(10, 100));
    expect(headers['RateLimit-Policy']).toBe('"minute";q=60;w=60, "day";q=1000;w=86400');
    expect(headers.RateLimit).toBe(
      `"minute";r=50;t=45, "day";r=900;t=${(Date.UTC(2026, 10, 23) - NOON) / 1000}`,
    );
  });

  it('on a refusal, report the refusing window empty and Retry-After until it resets', () => {
    const refused: Admission = {
      admitted: false,
      reason: 'minute',
      limits,
      state: { minute, minuteCount: 60, dayCount: 300 },
      nowMs: NOON,
      retryAtMs: windowsAt(NOON).minuteResetMs,
    };
    expect(rateLimitHeaders(refused)).toMatchObject({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '0',
      'Retry-After': '45',
      RateLimit: expect.stringMatching(/^"minute";r=0;t=45, "day";r=700;/),
    });
  });
});
