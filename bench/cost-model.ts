import { PRICES } from './prices';

/** What the bench measured that the cost model needs. */
export interface CostInputs {
  /** Memory of every function in production, MB (lib/config/environments.ts). */
  readonly memoryMb: number;
  /** Median warm duration of each function, ms, measured in-process on this machine. */
  readonly durationMs: Record<
    'getPet' | 'listPets' | 'createPet' | 'getOpenApi' | 'authorizer' | 'catchAll',
    number
  >;
  /** DynamoDB units each operation's own store call consumes. */
  readonly units: {
    readonly getPetReads: number;
    readonly listReads: number;
    readonly listByStatusReads: number;
    readonly createPetWrites: number;
    /** One read of a key record (the authorizer's cache miss). */
    readonly keyRead: number;
    /** One read of the key's project (its plan and limits; cached like the key). */
    readonly projectRead: number;
    /** Read units of a list done by Scan at the large table size. */
    readonly scanReads: number;
  };
  /** Mean limiter units per admitted request. */
  readonly limiter: { readonly writes: number; readonly reads: number };
  /** Pets in the table the Scan alternative was measured at. */
  readonly scanTableSize: number;
}

/**
 * The authorizer caches a key, and its project, for 30 s per warm instance. Assumed: an
 * active key sends about one request a second to one instance, so one key read (and at
 * most one project read: the project's other keys share it) serves 30 requests.
 */
export const REQUESTS_PER_KEY_READ = 30;

export type OperationName = 'getPet' | 'listPets' | 'listPetsByStatus' | 'createPet' | 'getOpenApi';
export const OPERATIONS: readonly OperationName[] = [
  'getPet',
  'listPets',
  'listPetsByStatus',
  'createPet',
  'getOpenApi',
];

/** Operations API Gateway serves without the authorizer (public routes in lambda/api/routes.ts). */
const PUBLIC_OPERATIONS: ReadonlySet<OperationName> = new Set(['getOpenApi']);

/** Dollars per million requests, by component. */
export interface CostLines {
  apiGateway: number;
  lambdaRequests: number;
  lambdaDuration: number;
  dynamodb: number;
  /** The authorizer's key and project reads, spread over the requests the cache serves. */
  authorizerReads: number;
  limiter: number;
}

export const total = (lines: CostLines) => Object.values(lines).reduce((sum, value) => sum + value, 0);

/**
 * What answering junk in the service adds per million over answering it at the gateway:
 * the two invocations and the limiter's write. The API call itself was billed before for
 * the 405s (mock methods); whether AWS bills a request refused for want of a resource is
 * not in this model, so the whole line is the bound.
 */
export const junkAdded = (junk: CostLines) => total(junk) - junk.apiGateway;

export interface CostModel {
  readonly perOperation: Record<OperationName, CostLines>;
  /**
   * One junk request: an unknown path or method under /v1, sent without a key (scanners
   * do). It costs an API call, the authorizer (no key to read), the catch-all, and the
   * limiter's write; {@link junkAdded} is the part a gateway-only refusal did not cost.
   */
  readonly junkRequest: CostLines;
  /** Totals per million requests of each operation under each design. */
  readonly alternatives: { name: string; note: string; perOperation: Record<OperationName, number> }[];
}

const billedSeconds = (ms: number) => Math.max(1, Math.ceil(ms)) / 1000;

export function costModel(inputs: CostInputs): CostModel {
  const { memoryMb, durationMs, units, limiter } = inputs;
  const gbSeconds = (ms: number) => billedSeconds(ms) * (memoryMb / 1024);
  const durationOf: Record<OperationName, number> = {
    getPet: durationMs.getPet,
    listPets: durationMs.listPets,
    listPetsByStatus: durationMs.listPets,
    createPet: durationMs.createPet,
    getOpenApi: durationMs.getOpenApi,
  };
  const store: Record<OperationName, { reads: number; writes: number }> = {
    getPet: { reads: units.getPetReads, writes: 0 },
    listPets: { reads: units.listReads, writes: 0 },
    listPetsByStatus: { reads: units.listByStatusReads, writes: 0 },
    createPet: { reads: 0, writes: units.createPetWrites },
    // The document is in the bundle: no store call of its own.
    getOpenApi: { reads: 0, writes: 0 },
  };
  const dynamodb = ({ reads, writes }: { reads: number; writes: number }) =>
    reads * PRICES.dynamodbReadPerMillion + writes * PRICES.dynamodbWritePerMillion;
  const lines = (operation: OperationName): CostLines => {
    // The authorizer runs on every request to a protected route (API Gateway's result cache
    // is off), then the operation; a public route runs the operation only.
    const authorized = !PUBLIC_OPERATIONS.has(operation);
    return {
      apiGateway: PRICES.restApiPerMillion,
      lambdaRequests: (authorized ? 2 : 1) * PRICES.lambdaRequestsPerMillion,
      lambdaDuration:
        ((authorized ? gbSeconds(durationMs.authorizer) : 0) + gbSeconds(durationOf[operation])) *
        PRICES.lambdaArm64PerGbSecond *
        1e6,
      dynamodb: dynamodb(store[operation]),
      authorizerReads: authorized
        ? dynamodb({ reads: (units.keyRead + units.projectRead) / REQUESTS_PER_KEY_READ, writes: 0 })
        : 0,
      limiter: dynamodb(limiter),
    };
  };
  const perOperation = Object.fromEntries(OPERATIONS.map((op) => [op, lines(op)])) as Record<
    OperationName,
    CostLines
  >;
  const variant = (change: (operation: OperationName, lines: CostLines) => CostLines) =>
    Object.fromEntries(OPERATIONS.map((op) => [op, total(change(op, { ...perOperation[op] }))])) as Record<
      OperationName,
      number
    >;
  const scanLines = (operation: OperationName, current: CostLines): CostLines =>
    operation === 'listPets' || operation === 'listPetsByStatus'
      ? { ...current, dynamodb: dynamodb({ reads: units.scanReads, writes: 0 }) }
      : current;
  const junkRequest: CostLines = {
    apiGateway: PRICES.restApiPerMillion,
    lambdaRequests: 2 * PRICES.lambdaRequestsPerMillion,
    lambdaDuration:
      (gbSeconds(durationMs.authorizer) + gbSeconds(durationMs.catchAll)) *
      PRICES.lambdaArm64PerGbSecond *
      1e6,
    dynamodb: 0,
    authorizerReads: 0,
    limiter: dynamodb(limiter),
  };
  return {
    perOperation,
    junkRequest,
    alternatives: [
      {
        name: 'This design',
        note: 'REST API with usage plans, lists by Query, limiter in DynamoDB',
        perOperation: variant((_, current) => current),
      },
      {
        name: 'Scan-based list',
        note: `lists read the whole table (${inputs.scanTableSize.toLocaleString('en-US')} pets) to return pets in id order; grows with the table`,
        perOperation: variant(scanLines),
      },
      {
        name: 'No limiter',
        note: 'only the usage plans: best-effort throttling, no per-minute quota, no exact headers',
        perOperation: variant((_, current) => ({ ...current, limiter: 0 })),
      },
      {
        name: 'HTTP API without usage plans',
        note: 'cheaper requests; the service limiter is then the only limit (no gateway backstop)',
        perOperation: variant((_, current) => ({ ...current, apiGateway: PRICES.httpApiPerMillion })),
      },
    ],
  };
}
