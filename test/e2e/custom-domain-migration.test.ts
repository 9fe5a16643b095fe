import { issueConsoleToken, newUsageId } from '../../lambda/core/project';
import { isTargetId, projectTarget } from '../../lambda/core/custom-domains/project-target';
import { CustomDomainRepository } from '../../lambda/store/custom-domain-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { giveProjectsTargets } from '../../local/local-domains';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { type DomainsTestApi, startDomainsTestApi } from '../support/local-domains';

/**
 * A data folder from before per-project targets: its projects get a target id at start, and a
 * domain verified then keeps its CNAME to the shared target, accepted for it alone until it
 * verifies with its project's own proof. Real HTTP and the sandbox DNS on loopback.
 */

const SHARED = 'domains.localhost';
const LEGACY = 'www.old-shop.test';

let t: DomainsTestApi;
let documents: ReturnType<typeof createDocumentClient>;
let projects: ProjectRepository;
let token: string;
const name = `old-${Date.now().toString(36)}`;

beforeAll(async () => {
  t = await startDomainsTestApi();
  documents = createDocumentClient(t.api.dynamodbEndpoint);
  projects = new ProjectRepository(documents, LOCAL_TABLE_NAMES.projects);
  const issued = issueConsoleToken(name);
  token = issued.token;
  const at = new Date().toISOString();
  // As an older release stored them: a project without a target id, a verified domain without a proof.
  await projects.create({
    name,
    plan: 'pro',
    createdAt: at,
    consoleTokenHash: issued.hash,
    consoleTokenIssuedAt: at,
    usageId: newUsageId(),
  });
  await new CustomDomainRepository(documents, LOCAL_TABLE_NAMES.customDomains).create({
    name: LEGACY,
    project: name,
    role: 'primary',
    state: 'active',
    since: at,
    addedAt: at,
    attached: true,
    certificate: 'issued',
    servedAt: at,
    version: 3,
  });
  await t.record(LEGACY, 'CNAME', SHARED);
});

afterAll(async () => {
  documents.destroy();
  await t.close();
});

const verify = (domain: string) => t.console(token, 'POST', `/domains/${domain}/verify`);

it('gives every project without a target id one, once', async () => {
  expect(await giveProjectsTargets(projects)).toBeGreaterThanOrEqual(1);
  const targetId = (await projects.get(name))?.targetId;
  expect(isTargetId(targetId)).toBe(true);

  expect(await giveProjectsTargets(projects)).toBe(0);
  expect((await projects.get(name))?.targetId).toBe(targetId);
});

it('accepts the shared target for a domain verified before, and shows it the project’s own target', async () => {
  const target = projectTarget((await projects.get(name))?.targetId ?? '', SHARED);

  expect((await verify(LEGACY)).body).toMatchObject({
    verified: true,
    summary: `Verified: ${LEGACY} is a CNAME of ${SHARED}.`,
    domain: { name: LEGACY, record: { value: target } },
  });
});

it('refuses the shared target for a domain added now', async () => {
  await t.console(token, 'POST', '/domains', { name: 'new.old-shop.test' });
  await t.record('new.old-shop.test', 'CNAME', SHARED);

  expect((await verify('new.old-shop.test')).body).toMatchObject({
    verified: false,
    verdict: 'cname-mismatch',
  });
});

it('stops accepting the shared target once the domain has verified with its own target', async () => {
  const target = projectTarget((await projects.get(name))?.targetId ?? '', SHARED);
  await t.record(LEGACY, 'CNAME', target);
  expect((await verify(LEGACY)).body).toMatchObject({ verified: true });

  await t.record(LEGACY, 'CNAME', SHARED);
  expect((await verify(LEGACY)).body).toMatchObject({ verified: false, verdict: 'cname-mismatch' });
});
