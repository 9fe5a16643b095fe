import type { APIGatewayProxyResult } from 'aws-lambda';
import { CORS_EXPOSED_HEADERS, withCorsHeaders } from '../../../lambda/api/cors';
import { rateLimitHeaders } from '../../../lambda/api/rate-limit';
import { deprecationHeaders } from '../../../lambda/middleware/deprecation';
import { ROUTES } from '../../../lambda/api/routes';
import { PLANS } from '../../../lambda/core/plans';
import { windowsAt } from '../../../lambda/core/rate-limit';
import { proxyEvent } from '../../support/events';

const APP = 'https://app.example.com';

/** A request from `origin` that the authorizer found allowed (`corsOrigin`) or not. */
function event(headers: Record<string, string>, corsOrigin?: string, httpMethod = 'GET') {
  const request = proxyEvent({ httpMethod });
  request.headers = { ...request.headers, ...headers };
  request.multiValueHeaders = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, [value ?? '']]),
  );
  if (corsOrigin) (request.requestContext.authorizer as Record<string, string>).corsOrigin = corsOrigin;
  return request;
}

const ok: APIGatewayProxyResult = {
  statusCode: 200,
  headers: { 'Content-Type': 'application/json' },
  body: '[]',
};

describe('withCorsHeaders', () => {
  it('lets the allowed origin read the response and its headers', () => {
    expect(withCorsHeaders(event({ Origin: APP }, APP), ok).headers).toEqual({
      'Content-Type': 'application/json',
      'Access-Control-Allow-Origin': APP,
      'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS.join(', '),
      Vary: 'Origin',
    });
  });

  it("gives any other request only Vary: Origin, so no cache hands it to the allowed origin's page", () => {
    for (const request of [
      event({}),
      event({ Origin: 'https://evil.example' }),
      // The context says APP, the request says otherwise: the request wins.
      event({ Origin: 'https://evil.example' }, APP),
      event({}, APP),
    ]) {
      expect(withCorsHeaders(request, ok).headers).toEqual({
        'Content-Type': 'application/json',
        Vary: 'Origin',
      });
    }
  });

  it('keeps what Vary listed and never repeats Origin', () => {
    const varied = (vary: string) =>
      withCorsHeaders(event({}), { ...ok, headers: { vary } }).headers as Record<string, string>;
    expect(varied('Accept-Encoding')).toEqual({ Vary: 'Accept-Encoding, Origin' });
    expect(varied('origin')).toEqual({ Vary: 'origin' });
    expect(varied('*')).toEqual({ Vary: '*' });
  });

  it('leaves the CORS headers of a preflight answer to the preflight', () => {
    const preflight = event({ Origin: APP, 'Access-Control-Request-Method': 'GET' }, APP, 'OPTIONS');
    expect(withCorsHeaders(preflight, { statusCode: 403, body: '{}' }).headers).toEqual({ Vary: 'Origin' });
  });
});

describe('CORS_EXPOSED_HEADERS', () => {
  it('lists every header the service sends that a client reads: rate limits, refusals, pages, deprecation', () => {
    const now = Date.UTC(2026, 0, 1, 12);
    const refused = rateLimitHeaders({
      admitted: false,
      reason: 'minute',
      limits: PLANS.free.limits,
      state: {
        minute: windowsAt(now).minute,
        minuteCount: PLANS.free.limits.perMinute,
        dayCount: PLANS.free.limits.perMinute,
      },
      nowMs: now,
      retryAtMs: windowsAt(now).minuteResetMs,
    });
    const deprecation = ROUTES.find((route) => route.deprecation)?.deprecation;
    const sent = [
      ...Object.keys(refused),
      ...(deprecation ? Object.keys(deprecationHeaders(deprecation, 'https://x/v1')) : []),
      ...ROUTES.flatMap((route) => Object.keys(route.docs.success.headers ?? {})),
    ];
    expect(sent.filter((name) => !(CORS_EXPOSED_HEADERS as readonly string[]).includes(name))).toEqual([]);
  });
});
