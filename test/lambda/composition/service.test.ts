import { randomBytes } from 'node:crypto';
import { MAX_API_KEY_CACHE_SECONDS } from '../../../lambda/api/limits';
import type { Principal } from '../../../lambda/api/principal';
import { composeService, type ServiceSettings } from '../../../lambda/composition/service';
import { issueApiKey } from '../../../lambda/core/api-key';
import { PLANS } from '../../../lambda/core/plans';
import { issueConsoleToken } from '../../../lambda/core/project';
import { counterIdOf, projectIdentity } from '../../../lambda/core/rate-limiter';
import { type LocalTablePorts, localTablePorts } from '../../../local/local-ports';
import { startTestStore, type TestStore } from '../../support/embedded-store';
import { authorizerEvent, lambdaContext, proxyEvent } from '../../support/events';

/**
 * The composition root given a test's ports (the embedded store's tables and a clock the test
 * holds): the parts it builds work together over them, as each Lambda function's do over AWS's.
 */

const START = Date.UTC(2029, 2, 3, 12, 0, 0);

let store: TestStore;
beforeAll(async () => {
  store = await startTestStore();
});
afterAll(() => store.close());

function composed(settings: Partial<ServiceSettings> = {}) {
  const clock = { ms: START };
  const ports = localTablePorts(store.documents, () => clock.ms);
  const service = composeService(ports, { cursorKey: 'composition-test', ...settings });
  return { clock, ports, service };
}

async function projectWithKey(ports: LocalTablePorts) {
  const name = `comp-${randomBytes(4).toString('hex')}`;
  const at = new Date(START).toISOString();
  await ports.projects.create({
    name,
    plan: 'pro',
    createdAt: at,
    consoleTokenHash: issueConsoleToken(name).hash,
    consoleTokenIssuedAt: at,
    usageId: `usage-${name}`,
  });
  const issued = issueApiKey(name, 'composition test', new Date(START));
  await ports.apiKeys.put(issued.record);
  return { name, apiKey: issued.apiKey, keyId: issued.record.keyId };
}

const bearer = (apiKey: string) => authorizerEvent({ Authorization: `Bearer ${apiKey}` });

describe('composeService', () => {
  it('authorizes a key, serves its project with the operations it built, and counts in the counters given', async () => {
    const { clock, ports, service } = composed();
    const { name, apiKey, keyId } = await projectWithKey(ports);

    const decision = await service.authorizer(bearer(apiKey));
    expect(decision.context).toMatchObject({ authenticated: 'true', project: name, keyId, plan: 'pro' });
    expect(decision.usageIdentifierKey).toBe(`usage-${name}`);

    const principal: Principal = {
      authenticated: true,
      keyId,
      project: name,
      plan: 'pro',
      limits: PLANS.pro.limits,
    };
    const created = await service.operations.createPet(
      proxyEvent({
        httpMethod: 'POST',
        resource: '/v1/pets',
        path: '/v1/pets',
        headers: { Host: 'abc123.execute-api.eu-west-1.amazonaws.com', 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
        principal,
      }),
      lambdaContext,
    );
    expect(created.statusCode).toBe(201);
    const pet = JSON.parse(created.body) as { id: number; name: string };
    const read = await service.operations.getPet(
      proxyEvent({
        resource: '/v1/pets/{petId}',
        path: `/v1/pets/${pet.id}`,
        pathParameters: { petId: String(pet.id) },
        principal,
      }),
      lambdaContext,
    );
    expect(read.statusCode).toBe(200);
    expect(JSON.parse(read.body)).toEqual(pet);

    // Both calls counted on the project's counter in the given store, in the given clock's day.
    const counter = await ports.counters.read(counterIdOf(projectIdentity(name), clock.ms));
    expect(counter?.dayCount).toBe(2);
  });

  it(`caches key lookups for at most ${MAX_API_KEY_CACHE_SECONDS} seconds, whatever the settings ask`, async () => {
    const { clock, ports, service } = composed({ cacheSeconds: 3600 });
    const { apiKey, keyId } = await projectWithKey(ports);
    expect((await service.authorizer(bearer(apiKey))).context).toMatchObject({ authenticated: 'true' });

    await ports.apiKeys.revoke(keyId, new Date(clock.ms));
    clock.ms += (MAX_API_KEY_CACHE_SECONDS - 1) * 1000;
    expect((await service.authorizer(bearer(apiKey))).context).toMatchObject({ authenticated: 'true' });
    clock.ms += 2000;
    expect((await service.authorizer(bearer(apiKey))).context).toMatchObject({
      authenticated: 'false',
      failure: 'invalid_api_key',
    });
  });

  it('answers the rest of /v1 with the catch-all it built', async () => {
    const { service } = composed();
    const result = await service.catchAll(
      proxyEvent({ resource: '/v1/{proxy+}', path: '/v1/nowhere', principal: null }),
      lambdaContext,
    );
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body)).toMatchObject({ code: 'not_found', status: 404 });
  });
});
