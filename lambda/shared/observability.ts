import { AsyncLocalStorage } from 'node:async_hooks';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';

/** Namespace of the service's own CloudWatch metrics (embedded metric format). */
export const METRICS_NAMESPACE = 'AnimalStore';

/**
 * The service's own metrics, as the request log publishes them and the dashboard and alarms
 * read them: names, and the dimensions they carry (always Environment and Operation; errors
 * add Code, rate-limited requests Plan).
 */
export const SERVICE_METRICS = {
  requests: 'Requests',
  latency: 'Latency',
  errors: 'Errors',
  rateLimited: 'RateLimited',
} as const;

/**
 * The count of people's own projects (issue 27), published by the console at each create from
 * the warning share of the platform's cap, with the Environment dimension only; an alarm reads it.
 */
export const SELF_SERVICE_METRIC = 'SelfServiceProjects';

export const METRIC_DIMENSIONS = {
  environment: 'Environment',
  operation: 'Operation',
  code: 'Code',
  plan: 'Plan',
} as const;

/** Variable naming the deployment (`staging`, `production`); `local` in local mode. */
export const ENVIRONMENT_VARIABLE = 'ANIMAL_STORE_ENVIRONMENT';

let logger: Logger | undefined;

/**
 * The process's structured JSON logger (Powertools). Made on first use, so that the
 * log level (POWERTOOLS_LOG_LEVEL) is read when the process is configured, not at import.
 * Only what is passed is written: events and headers are never logged whole.
 */
export function log(): Logger {
  logger ??= new Logger({ serviceName: 'animal-store' });
  return logger;
}

/** The metric groups the service publishes; each is its own EMF line with its own dimensions. */
export type MetricGroup = 'requests' | 'errors' | 'rateLimited';

const metricGroups = new Map<MetricGroup, Metrics>();

/**
 * A metrics buffer (Powertools, embedded metric format) whose only default dimension is
 * `Environment`: Powertools would add a `service` dimension, and the alarms and dashboard
 * read exactly the dimensions the service documents.
 */
export function serviceMetrics(group: MetricGroup): Metrics {
  let metrics = metricGroups.get(group);
  if (!metrics) {
    metrics = new Metrics({ namespace: METRICS_NAMESPACE });
    metrics.clearDefaultDimensions();
    metrics.setDefaultDimensions({
      [METRIC_DIMENSIONS.environment]: process.env[ENVIRONMENT_VARIABLE] ?? 'local',
    });
    metricGroups.set(group, metrics);
  }
  return metrics;
}

type InvocationState = Record<string | symbol, unknown>;

/** The store of Lambda's multi-concurrent runtime, as its runtime makes it: each invocation's state in an AsyncLocalStorage. */
class ConcurrentInvokeStore extends InvokeStoreBase {
  readonly #invocations = new AsyncLocalStorage<InvocationState>();

  getContext(): InvocationState | undefined {
    return this.#invocations.getStore();
  }

  hasContext(): boolean {
    return this.#invocations.getStore() !== undefined;
  }

  get<T = unknown>(key: string | symbol): T | undefined {
    return this.#invocations.getStore()?.[key] as T | undefined;
  }

  set<T = unknown>(key: string | symbol, value: T): void {
    const state = this.#invocations.getStore();
    if (!state) throw new Error('No invocation is running');
    state[key] = value;
  }

  run<T>(context: InvocationState, fn: () => T): T {
    return this.#invocations.run(context, fn);
  }
}

/** Set by a Lambda runtime that runs several invocations at once in one process: Powertools then scopes its state to each. */
const MAX_CONCURRENCY_VARIABLE = 'AWS_LAMBDA_MAX_CONCURRENCY';

let concurrentStore: ConcurrentInvokeStore | undefined;

/**
 * For a process that runs many invocations at once, as the local server does: returns a function that
 * runs one invocation with log context (function, request id, appended keys) and metrics of its own.
 * Without it they share the process's logger, and a line names whichever invocation set the context
 * last. This is what Lambda's multi-concurrent runtime does, and Powertools reads it. The standard
 * runtime runs one invocation per process at a time, so the deployed handlers never call this.
 */
export function concurrentInvocations(): <T>(run: () => T) => T {
  if (!concurrentStore) {
    concurrentStore = new ConcurrentInvokeStore();
    // Powertools reads the store from this global on every access, as the runtime publishes it.
    const runtime = globalThis as unknown as { awslambda?: { InvokeStore?: InvokeStoreBase } };
    runtime.awslambda ??= {};
    runtime.awslambda.InvokeStore = concurrentStore;
    // The AWS SDK asks the store package for the runtime's store. Asked now, before the variable
    // is set, the package settles on the one published above rather than making its own.
    void InvokeStore.getInstanceAsync();
    // Powertools only checks that it is set.
    process.env[MAX_CONCURRENCY_VARIABLE] ??= '1000';
  }
  const store = concurrentStore;
  return (run) => store.run({}, run);
}

/** Logs an unexpected error with its name, message and cause; never the request that caused it. */
export function logError(message: string, error: unknown): void {
  log().error(message, error instanceof Error ? error : String(error));
}
