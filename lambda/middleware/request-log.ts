import type middy from '@middy/core';
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { principalOf } from '../api/principal';
import type { ConsoleOperationId } from '../api/console-routes';
import type { HandlerName } from '../api/routes';
import {
  log,
  METRIC_DIMENSIONS,
  type MetricGroup,
  SERVICE_METRICS,
  serviceMetrics,
} from '../shared/observability';

type Request = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult>;

const STARTED = Symbol('request started');
const RATE_LIMIT_CODES = new Set(['rate_limited', 'temporarily_banned']);

/** Publishes one EMF line of a metric group with the given dimensions. */
function publish(
  group: MetricGroup,
  dimensions: Record<string, string>,
  add: (metrics: Metrics) => void,
): void {
  const metrics = serviceMetrics(group);
  metrics.addDimensions(dimensions);
  add(metrics);
  metrics.publishStoredMetrics();
}

function errorCodeOf(response: APIGatewayProxyResult): string {
  try {
    const { code } = JSON.parse(response.body) as { code?: unknown };
    return typeof code === 'string' ? code : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * What a log line and the metrics name a request by: an API operation, or a console one
 * (`sandboxRecords`: local mode's sandbox DNS records, never deployed).
 */
export type LoggedOperation =
  | HandlerName
  | ConsoleOperationId
  | 'consoleUnmatched'
  | 'sandboxRecords'
  // The console's sign-in through the identity provider (issue 26).
  | 'signInStart'
  | 'signInCallback'
  | 'signInProvider'
  | 'signOut';

/** Who made a request, as its log line and metrics say: the plan (`anonymous` when unknown), the project and key if any. */
export interface LoggedCaller {
  readonly plan: string;
  readonly project?: string;
  readonly keyId?: string;
}

/** An API call's caller: the principal the authorizer found. */
function apiCallerOf(event: APIGatewayProxyEvent): LoggedCaller {
  const principal = principalOf(event);
  return principal.authenticated
    ? { plan: principal.plan, project: principal.project, keyId: principal.keyId }
    : { plan: 'anonymous' };
}

/**
 * One structured log line and one set of metrics per request, written once the
 * response is final (this middleware is used first, so its `after` and `onError`
 * run last). Every line carries the API Gateway request id as correlation id. The
 * line names the operation, status, latency and plan; never a header or a key.
 */
export function requestLog(
  operation: LoggedOperation,
  loggedCaller: (event: APIGatewayProxyEvent) => LoggedCaller = apiCallerOf,
): middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const finish = async (request: Request) => {
    const started = (request.internal as Record<symbol, number | undefined>)[STARTED] ?? performance.now();
    const latencyMs = Math.round((performance.now() - started) * 10) / 10;
    const status = request.response?.statusCode ?? 500;
    const { plan, project, keyId } = loggedCaller(request.event);
    const code = request.response && status >= 400 ? errorCodeOf(request.response) : undefined;
    log().info('request', {
      operation,
      method: request.event.httpMethod,
      path: request.event.path,
      status,
      latencyMs,
      plan,
      ...(project ? { project } : {}),
      ...(keyId ? { keyId } : {}),
      ...(code ? { code } : {}),
    });

    const { operation: OPERATION, code: CODE, plan: PLAN } = METRIC_DIMENSIONS;
    publish('requests', { [OPERATION]: operation }, (metrics) => {
      metrics.addMetric(SERVICE_METRICS.requests, MetricUnit.Count, 1);
      metrics.addMetric(SERVICE_METRICS.latency, MetricUnit.Milliseconds, latencyMs);
    });
    if (code) {
      publish('errors', { [OPERATION]: operation, [CODE]: code }, (metrics) =>
        metrics.addMetric(SERVICE_METRICS.errors, MetricUnit.Count, 1),
      );
    }
    if (code && RATE_LIMIT_CODES.has(code)) {
      publish('rateLimited', { [OPERATION]: operation, [PLAN]: plan }, (metrics) =>
        metrics.addMetric(SERVICE_METRICS.rateLimited, MetricUnit.Count, 1),
      );
    }
  };
  return {
    before: async (request) => {
      (request.internal as Record<symbol, number>)[STARTED] = performance.now();
      log().appendKeys({ correlationId: request.event.requestContext?.requestId });
    },
    after: finish,
    onError: finish,
  };
}
