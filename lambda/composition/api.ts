import { type OperationId, USAGE_OPERATIONS } from '../api/routes';
import { type CounterStore, RateLimiter } from '../core/rate-limiter';
import type { UsageWriter } from '../core/usage-counting';
import { logError } from '../shared/observability';
import type { ApiLambdaHandler, OperationDependencies } from '../middleware/api-handler';
import { catchAll } from '../operations/catch-all';
import { createPet } from '../operations/create-pet';
import { getOpenApi } from '../operations/get-openapi';
import { getPet } from '../operations/get-pet';
import { listPets } from '../operations/list-pets';
import type { ServicePorts } from './ports';

/**
 * The public API's functions, each composed from the ports it uses. One composer per function,
 * so a function's bundle holds its own operation alone (esbuild drops the composers it does not
 * call); {@link composeOperations} builds them all for a process that serves them all.
 */

/** What every function that answers API requests uses: the rate limiter's counters and the clock. */
export type StackPorts = Pick<ServicePorts, 'clock'> & {
  /** Counting only: reading a project's usage history is the console's (UsageHistoryStore). */
  readonly counters: CounterStore & UsageWriter;
};

/** The ports of every operation of the route table. */
export type ApiPorts = StackPorts & Pick<ServicePorts, 'pets' | 'idempotencyKeys'>;

export interface ApiSettings {
  /** Key that authenticates listPets' pagination cursors. */
  readonly cursorKey: string;
}

/**
 * What a process serving several parts builds once and shares. The limiter keeps in memory which
 * minute each caller's counter is in: one per process, as one per Lambda instance.
 */
export interface SharedParts {
  /** @default one over the ports' counters and clock */
  readonly limiter?: RateLimiter;
}

/** A process's limiter over the counters, counting its projects' usage by operation too (issue 29). */
export function composeLimiter(ports: StackPorts): RateLimiter {
  return new RateLimiter(ports.counters, ports.clock, {
    operations: USAGE_OPERATIONS,
    writer: ports.counters,
    onLostHour: (error) => logError('usage counts not written', error),
  });
}

/** The stack every operation shares: the process's limiter, and the clock (sunsets). */
export function operationStack(ports: StackPorts, shared: SharedParts = {}): OperationDependencies {
  return { limiter: shared.limiter ?? composeLimiter(ports), clock: ports.clock };
}

export function composeListPets(
  ports: StackPorts & Pick<ServicePorts, 'pets'>,
  settings: ApiSettings,
  shared?: SharedParts,
): ApiLambdaHandler {
  return listPets({ ...operationStack(ports, shared), pets: ports.pets, cursorKey: settings.cursorKey });
}

export function composeCreatePet(
  ports: StackPorts & Pick<ServicePorts, 'pets' | 'idempotencyKeys'>,
  shared?: SharedParts,
): ApiLambdaHandler {
  return createPet({
    ...operationStack(ports, shared),
    pets: ports.pets,
    idempotencyKeys: ports.idempotencyKeys,
  });
}

export function composeGetPet(
  ports: StackPorts & Pick<ServicePorts, 'pets'>,
  shared?: SharedParts,
): ApiLambdaHandler {
  return getPet({ ...operationStack(ports, shared), pets: ports.pets });
}

export function composeGetOpenApi(ports: StackPorts, shared?: SharedParts): ApiLambdaHandler {
  return getOpenApi(operationStack(ports, shared));
}

/** The catch-all: 404, 405 and preflights for the rest of `/v1`, counted like any request. */
export function composeCatchAll(ports: StackPorts, shared?: SharedParts): ApiLambdaHandler {
  return catchAll(operationStack(ports, shared));
}

/** Every operation of the route table by id (the compiler checks none is missing), sharing one limiter. */
export function composeOperations(
  ports: ApiPorts,
  settings: ApiSettings,
  shared: SharedParts = {},
): Readonly<Record<OperationId, ApiLambdaHandler>> {
  const parts = { limiter: shared.limiter ?? composeLimiter(ports) };
  return {
    listPets: composeListPets(ports, settings, parts),
    createPet: composeCreatePet(ports, parts),
    getPet: composeGetPet(ports, parts),
    getOpenApi: composeGetOpenApi(ports, parts),
  };
}
