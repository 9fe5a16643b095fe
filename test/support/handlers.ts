import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';

/** The platform domain the handler tests give the authorizer. */
export const TEST_PLATFORM_DOMAIN = 'animalstore.example';

/** What the stack gives every function, pointed at a test store. */
export function handlerEnvironment(endpoint: string): Record<string, string> {
  return {
    [RUNTIME_ENV.dynamodbEndpoint]: endpoint,
    [RUNTIME_ENV.petsTable]: LOCAL_TABLE_NAMES.pets,
    [RUNTIME_ENV.apiKeysTable]: LOCAL_TABLE_NAMES.apiKeys,
    [RUNTIME_ENV.projectsTable]: LOCAL_TABLE_NAMES.projects,
    [RUNTIME_ENV.rateLimitsTable]: LOCAL_TABLE_NAMES.rateLimits,
    [RUNTIME_ENV.idempotencyTable]: LOCAL_TABLE_NAMES.idempotency,
    [RUNTIME_ENV.platformDomain]: TEST_PLATFORM_DOMAIN,
    [RUNTIME_ENV.cursorKey]: 'handler-test',
    [RUNTIME_ENV.anonymousUsageId]: 'anonymous-usage-identifier-000',
    [RUNTIME_ENV.preflightUsageId]: 'preflight-usage-identifier-000',
  };
}

/**
 * Imports handler modules afresh, as a new Lambda instance would, with that environment;
 * `beforeLoad` runs inside the fresh module registry (e.g. to replace a module). The
 * variables are put back afterwards: handlers read them at import, and a child process
 * started later must not inherit them.
 */
export function loadHandlers<T>(
  modules: readonly string[],
  endpoint: string,
  beforeLoad: () => void = () => undefined,
): T[] {
  const env = handlerEnvironment(endpoint);
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  const handlers: T[] = [];
  try {
    jest.isolateModules(() => {
      beforeLoad();
      for (const module of modules) {
        handlers.push((require(`../../lambda/handlers/${module}`) as { handler: T }).handler);
      }
    });
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
  return handlers;
}

/** One handler module, loaded as {@link loadHandlers} does. */
export function loadHandler<T>(module: string, endpoint: string): T {
  const [handler] = loadHandlers<T>([module], endpoint);
  return handler as T;
}
