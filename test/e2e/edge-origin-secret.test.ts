import { CustomDomainRepository } from '../../lambda/store/custom-domain-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type DomainsTestApi, startDomainsTestApi } from '../support/local-domains';

/**
 * The origin secret end to end in local mode: the local HTTPS edge adds this run's secret and
 * the viewer's address and host, as CloudFront does, and the authorizer believes them only with
 * the secret. A removed domain is refused by the origin at once even while the edge still
 * routes it (CloudFront's propagation, simulated by deleting the record and keeping the route).
 */

const SHOP = 'shop.edge-secret.test';

let t: DomainsTestApi;
let project: Awaited<ReturnType<DomainsTestApi['createProject']>>;
let apiKey: string;

beforeAll(async () => {
  t = await startDomainsTestApi();
  project = await t.createProject('pro');
  apiKey = await t.issueKey(project.name);
  await t.console(project.consoleToken, 'POST', '/domains', { name: SHOP });
  await t.record(SHOP, 'CNAME', project.target);
  const verified = await t.console(project.consoleToken, 'POST', `/domains/${SHOP}/verify`);
  expect(verified.body).toMatchObject({ verified: true });
  const listed = await t.console(project.consoleToken, 'GET', '/domains');
  expect(listed.body.domains).toEqual([expect.objectContaining({ name: SHOP, state: 'active' })]);
});

afterAll(async () => {
  await t?.close();
});

describe('requests through the local edge carry the origin secret', () => {
  it('serves the active domain with its project', async () => {
    const served = await t.viaEdge(SHOP, '/v1/pets', apiKey);
    expect(served.status).toBe(200);
    expect(served.headers['x-ratelimit-limit']).toBeDefined();
  });

  it("a direct call to the origin with the edge's headers and a wrong secret claims no custom domain", async () => {
    const forged = await fetch(`${t.api.baseUrl}/pets`, {
      headers: {
        Host: `${project.name}.localhost`,
        Authorization: `Bearer ${apiKey}`,
        'x-animal-store-edge': 'not-the-secret',
        'CloudFront-Viewer-Address': '192.0.2.1:443',
        'X-Forwarded-Host': 'never-attached.example',
      },
    });
    // Served as the project's address: the claimed host is ignored, not checked.
    expect(forged.status).toBe(200);
  });

  it('a removed domain is refused by the origin at once, while the edge still routes it', async () => {
    const documents = createDocumentClient(t.api.dynamodbEndpoint);
    try {
      expect(
        await new CustomDomainRepository(documents, LOCAL_TABLE_NAMES.customDomains).delete(
          SHOP,
          project.name,
        ),
      ).toBe(true);
    } finally {
      documents.destroy();
    }
    // The authorizer's cache of the domain (2 s on the domains' clock) runs out.
    t.advance(2_000);
    const refused = await t.viaEdge(SHOP, '/v1/pets', apiKey);
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body)).toEqual({
      code: 'not_found',
      message: `No project is served at ${SHOP}.`,
      status: 404,
    });
  });
});
