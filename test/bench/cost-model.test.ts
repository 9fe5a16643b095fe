import { costModel, junkAdded, OPERATIONS, REQUESTS_PER_KEY_READ, total } from '../../bench/cost-model';
import { PRICES } from '../../bench/prices';

const INPUTS = {
  memoryMb: 1024,
  durationMs: { getPet: 5.2, listPets: 6.1, createPet: 6.4, getOpenApi: 2.3, authorizer: 0.4, catchAll: 1.7 },
  units: {
    getPetReads: 0.5,
    listReads: 0.5,
    listByStatusReads: 0.5,
    createPetWrites: 1,
    keyRead: 0.5,
    projectRead: 1,
    scanReads: 1_200,
  },
  limiter: { writes: 1.06, reads: 0 },
  scanTableSize: 100_000,
};

describe('cost model', () => {
  const model = costModel(INPUTS);

  it('prices every operation of the route table, the public one included', () => {
    expect(Object.keys(model.perOperation).sort()).toEqual([...OPERATIONS].sort());
  });

  it('charges the authorizer, with its key and project reads, on protected operations only', () => {
    const { getPet, getOpenApi } = model.perOperation;
    expect(getPet.lambdaRequests).toBeCloseTo(2 * PRICES.lambdaRequestsPerMillion);
    expect(getPet.authorizerReads).toBeCloseTo(
      ((0.5 + 1) / REQUESTS_PER_KEY_READ) * PRICES.dynamodbReadPerMillion,
    );
    expect(getOpenApi.lambdaRequests).toBeCloseTo(PRICES.lambdaRequestsPerMillion);
    expect(getOpenApi.authorizerReads).toBe(0);
    // 3 ms billed at 1 GB, no authorizer duration; no store call of its own, the limiter still counts it.
    expect(getOpenApi.lambdaDuration).toBeCloseTo(0.003 * PRICES.lambdaArm64PerGbSecond * 1e6);
    expect(getOpenApi.dynamodb).toBe(0);
    expect(getOpenApi.limiter).toBeCloseTo(1.06 * PRICES.dynamodbWritePerMillion);
  });

  it('makes only lists dearer with a Scan, and every operation cheaper without the limiter', () => {
    const [ours, scan, noLimiter] = model.alternatives;
    expect(scan?.perOperation.listPets).toBeGreaterThan(ours?.perOperation.listPets ?? Infinity);
    expect(scan?.perOperation.getOpenApi).toBe(ours?.perOperation.getOpenApi);
    for (const op of OPERATIONS) {
      expect(noLimiter?.perOperation[op]).toBeCloseTo(
        total(model.perOperation[op]) - model.perOperation[op].limiter,
      );
    }
  });

  it('prices a junk request: an API call, the authorizer and the catch-all, and one limiter write', () => {
    const junk = model.junkRequest;
    expect(junk.apiGateway).toBe(PRICES.restApiPerMillion);
    expect(junk.lambdaRequests).toBeCloseTo(2 * PRICES.lambdaRequestsPerMillion);
    // 1 ms (authorizer, billed at least 1 ms) + 2 ms (catch-all, rounded up) at 1 GB.
    expect(junk.lambdaDuration).toBeCloseTo(0.003 * PRICES.lambdaArm64PerGbSecond * 1e6);
    expect(junk.limiter).toBeCloseTo(1.06 * PRICES.dynamodbWritePerMillion);
    // No key to read, no store call of its own.
    expect([junk.authorizerReads, junk.dynamodb]).toEqual([0, 0]);
    expect(junkAdded(junk)).toBeCloseTo(total(junk) - PRICES.restApiPerMillion);
  });
});
