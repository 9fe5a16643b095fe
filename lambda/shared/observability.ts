import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';

/** Namespace of the service's own CloudWatch metrics (embedded metric format). */
export const METRICS_NAMESPACE = 'AnimalStore';

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
    metrics.setDefaultDimensions({ Environment: process.env[ENVIRONMENT_VARIABLE] ?? 'local' });
    metricGroups.set(group, metrics);
  }
  return metrics;
}

/** Logs an unexpected error with its name, message and cause; never the request that caused it. */
export function logError(message: string, error: unknown): void {
  log().error(message, error instanceof Error ? error : String(error));
}
