import { toErrorResponse } from '../../../lambda/api/error-response';
import { StoreRefusedInputError, StoreUnavailableError } from '../../../lambda/core/errors';
import { issueConsoleToken, newUsageId } from '../../../lambda/core/project';
import { ApiKeyRepository } from '../../../lambda/store/api-key-repository';
import { createDocumentClient } from '../../../lambda/store/dynamodb-client';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { RateLimitStore } from '../../../lambda/store/rate-limit-store';
import { LOCAL_TABLE_NAMES } from '../../../local/local-tables';
import { startTestStore, type TestStore } from '../../support/embedded-store';

/**
 * The store refusing the request's own values (DynamoDB's ValidationException, here for a key
 * over 2,048 bytes, which the embedded store enforces as DynamoDB does) is the caller's mistake:
 * a 400 that names the problem without the store's words; only a store that cannot answer is
 * the 503 "store unavailable".
 */

const LONG = 'a'.repeat(3_000);

let store: TestStore;

beforeAll(async () => {
  store = await startTestStore();
});
afterAll(() => store.close());

describe('a value the store refuses', () => {
  it.each([
    ['a read (GetItem)', () => new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects).get(LONG)],
    [
      'a conditional write (PutItem)',
      () =>
        new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects).create({
          name: LONG,
          plan: 'free',
          createdAt: '2026-11-25T00:00:00.000Z',
          consoleTokenHash: issueConsoleToken('acme').hash,
          consoleTokenIssuedAt: '2026-11-25T00:00:00.000Z',
          usageId: newUsageId(),
        }),
    ],
    [
      'a conditional update (UpdateItem)',
      () => new ApiKeyRepository(store.documents, LOCAL_TABLE_NAMES.apiKeys).revoke(LONG, new Date()),
    ],
    [
      "the limiter's counter",
      () => new RateLimitStore(store.documents, LOCAL_TABLE_NAMES.rateLimits).read(`ip:${LONG}`),
    ],
  ])('in %s is StoreRefusedInputError', async (_, call) => {
    await expect(call()).rejects.toBeInstanceOf(StoreRefusedInputError);
  });

  it('answers 400 invalid_parameter, naming neither the store nor its exception', async () => {
    const error = await new ProjectRepository(store.documents, LOCAL_TABLE_NAMES.projects)
      .get(LONG)
      .catch((caught: unknown) => caught);
    expect((error as Error & { cause?: Error }).cause?.name).toBe('ValidationException');
    const response = toErrorResponse(error);
    expect(response.statusCode).toBe(400);
    const body = JSON.parse(response.body) as { code: string; message: string; status: number };
    expect(body).toEqual({
      code: 'invalid_parameter',
      message: expect.stringMatching(/too long/),
      status: 400,
    });
    expect(body.message).not.toMatch(/Validation|Exception|DynamoDB|store|2048|2,048/i);
    expect(response.headers).toMatchObject({ 'X-Content-Type-Options': 'nosniff' });
  });

  it('is told apart from a store that cannot answer, which stays 503 store unavailable', async () => {
    const unreachable = createDocumentClient('http://127.0.0.1:9');
    try {
      const error = await new ProjectRepository(unreachable, LOCAL_TABLE_NAMES.projects)
        .get('acme')
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      const response = toErrorResponse(error);
      expect([response.statusCode, JSON.parse(response.body).code]).toEqual([503, 'service_unavailable']);
    } finally {
      unreachable.destroy();
    }
  });
});
