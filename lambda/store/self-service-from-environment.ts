import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { ProjectGateway } from '../core/project-creation';
import type { SelfServiceSlots } from '../core/self-service';
import {
  SELF_SERVICE_PLAN,
  type SelfServiceSettings,
  selfServiceSettingsFrom,
} from '../core/self-service-settings';
import { RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { ApiGatewayProjectKeys } from './api-gateway-keys';
import { StackUsagePlans } from './api-gateway-usage-plans';
import { documentClient } from './dynamodb-client';
import { SelfServiceSlotStore } from './self-service-slots';

// Apart from from-environment.ts: only the console function makes projects, and a module every
// handler imports would bundle the API Gateway client into all of them.

/**
 * API Gateway's management API in at most 3 attempts (its default, which rides out its low
 * per-account rate of key creation), each answered within 5 s: the person waits for it.
 */
const API_GATEWAY_CLIENT = { requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 } };

/** The self-service start's setting and, where it is on, its counters and its gateway. */
export interface SelfServiceFromEnvironment {
  readonly settings: SelfServiceSettings;
  /** The caps' counters, items of the rate-limit table; none when self-service is off. */
  readonly slots?: SelfServiceSlots;
  /** The Free plan's usage plan, where each new project's API key goes; none when off. */
  readonly gateway?: ProjectGateway;
}

/**
 * The console function's self-service start in AWS (issue 27), from the variables the stack sets:
 * SELF_SERVICE_PROJECTS and SELF_SERVICE_PROJECT_CAP as local mode reads them; where it is on,
 * the rate-limit table for the caps' counters, and the stack's name, which names the Free plan's
 * usage plan and the project's API Gateway key. Off, nothing is built and nothing more is required.
 */
export function selfServiceFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): SelfServiceFromEnvironment {
  const settings = selfServiceSettingsFrom(env);
  if (!settings.enabled) return { settings };
  const client = new APIGatewayClient(API_GATEWAY_CLIENT);
  return {
    settings,
    slots: new SelfServiceSlotStore(documentClient(), requireEnv(RUNTIME_ENV.rateLimitsTable)),
    // Keys in the Free plan's usage plan only, found by the stack's name.
    gateway: new ApiGatewayProjectKeys(
      client,
      requireEnv(RUNTIME_ENV.gatewayStackName),
      new StackUsagePlans(client, requireEnv(RUNTIME_ENV.gatewayStackName), [SELF_SERVICE_PLAN]),
    ),
  };
}
