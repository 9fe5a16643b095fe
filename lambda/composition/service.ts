import type { OperationId } from '../api/routes';
import type { CustomDomains } from '../core/custom-domains/custom-domains';
import type { ApiLambdaHandler } from '../middleware/api-handler';
import type { ConsoleStackDependencies } from '../middleware/console-handler';
import type { AuthorizerHandler } from '../operations/authorizer';
import type { RateLimiter } from '../core/rate-limiter';
import {
  type ApiPorts,
  type ApiSettings,
  composeCatchAll,
  composeLimiter,
  composeOperations,
  type SharedParts,
} from './api';
import { type AuthorizerPorts, type AuthorizerSettings, composeAuthorizer } from './authorizer';
import {
  composeConsole,
  composeConsoleStack,
  composeSelfService,
  type ConsolePorts,
  type ConsoleSettings,
} from './console';

/** Every part of the service one process serves: the operations, the catch-all, the authorizer and the console's API. */
export interface Service {
  /** The one limiter all of them share (one process, as one Lambda instance). */
  readonly limiter: RateLimiter;
  readonly operations: Readonly<Record<OperationId, ApiLambdaHandler>>;
  readonly catchAll: ApiLambdaHandler;
  readonly authorizer: AuthorizerHandler;
  /** The console's API over the domains service given (composed apart: its edge and DNS may start later). */
  console(settings: ConsoleSettings, domains: CustomDomains): ApiLambdaHandler;
  /** The console's stack alone (sessions, origins, counting), for an endpoint beside the console's API. */
  consoleStack(settings: Pick<ConsoleSettings, 'consoleOrigins'>): ConsoleStackDependencies;
}

/**
 * The ports of a process serving every part: the tables and the clock (the edge's tenants and DNS
 * belong to the domains service, composed apart and given to {@link Service.console}).
 */
export type ProcessPorts = ApiPorts & AuthorizerPorts & ConsolePorts;
export type ServiceSettings = ApiSettings & AuthorizerSettings;

/**
 * The whole service in one process (local mode, the tests and the bench give their ports), composed
 * by the same composers each Lambda function calls for its own part (lambda/handlers/).
 */
export function composeService(
  ports: ProcessPorts,
  settings: ServiceSettings,
  shared: SharedParts = {},
): Service {
  const limiter = shared.limiter ?? composeLimiter(ports);
  const parts = { limiter };
  return {
    limiter,
    operations: composeOperations(ports, settings, parts),
    catchAll: composeCatchAll(ports, parts),
    authorizer: composeAuthorizer(ports, settings),
    console: (consoleSettings, domains) =>
      composeConsole(ports, consoleSettings, {
        ...parts,
        domains,
        selfService: (members, keys) => composeSelfService(ports, consoleSettings.selfService, members, keys),
      }),
    consoleStack: (consoleSettings) => composeConsoleStack(ports, consoleSettings, parts),
  };
}
