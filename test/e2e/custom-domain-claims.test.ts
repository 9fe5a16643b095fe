import { CLAIM_WINDOW_MS } from '../../lambda/core/custom-domains/domain-claims';
import { EDGE_DOMAIN_CACHE_SECONDS } from '../../lambda/core/edge-request';
import { type DomainsTestApi, startDomainsTestApi } from '../support/local-domains';

/**
 * Who owns a name, end to end in local mode: claims in several projects at once, the first
 * project whose DNS proof holds owns it, a takeover needs the new project's proof, and an
 * unverified claim is released after its window. Real HTTP, the sandbox DNS on loopback, the
 * local edge and certificate authority; the domains' clock is the test's.
 */

type TestProject = Awaited<ReturnType<DomainsTestApi['createProject']>>;

let t: DomainsTestApi;

beforeAll(async () => {
  t = await startDomainsTestApi();
});

afterAll(async () => {
  await t.close();
});

async function domainsOf(project: TestProject): Promise<Record<string, unknown>[]> {
  return (await t.console(project.consoleToken, 'GET', '/domains')).body.domains as Record<string, unknown>[];
}

async function verify(project: TestProject, name: string) {
  return t.console(project.consoleToken, 'POST', `/domains/${name}/verify`);
}

/** Verifies until the local authority has issued the certificate and the domain is active. */
async function makeActive(project: TestProject, name: string): Promise<void> {
  expect((await verify(project, name)).body).toMatchObject({ verified: true });
  const listed = await domainsOf(project);
  expect(listed.find((domain) => domain.name === name)).toMatchObject({ state: 'active' });
}

describe('a name pending in one project is no obstacle to its owner (squatting)', () => {
  const VICTIM = 'www.victim-shop.test';
  let owner: TestProject;
  let squatter: TestProject;

  it("lets the owner add and verify the name a squatter added first, and refuses the squatter's verify", async () => {
    owner = await t.createProject('pro');
    squatter = await t.createProject('pro');
    // B adds the name before its owner has set any DNS.
    expect((await t.console(squatter.consoleToken, 'POST', '/domains', { name: VICTIM })).status).toBe(201);

    // The owner points the CNAME at its own target and adds the name in its project.
    await t.record(VICTIM, 'CNAME', owner.target);
    const added = await t.console(owner.consoleToken, 'POST', '/domains', { name: VICTIM });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ state: 'pending-dns', record: { value: owner.target } });
    await makeActive(owner, VICTIM);

    // The squatter's list says the name serves another project now, never which.
    const [pending] = await domainsOf(squatter);
    expect(pending).toMatchObject({ name: VICTIM, state: 'pending-dns' });
    expect(pending?.notices).toContainEqual(expect.stringMatching(/serves another project now/));
    expect(JSON.stringify(pending)).not.toContain(owner.name);

    const refused = await verify(squatter, VICTIM);
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({
      verified: false,
      verdict: 'cname-mismatch',
      domain: { name: VICTIM, state: 'failed' },
    });
    expect(refused.body.summary).toMatch(
      new RegExp(`^${VICTIM.replace(/\./g, '\\.')} serves another project now`),
    );
    // Told that, never who.
    expect(JSON.stringify(refused.body)).not.toContain(owner.name);
    expect(await domainsOf(squatter)).toEqual([expect.objectContaining({ name: VICTIM, state: 'failed' })]);
  });

  it("serves the owner's project on the name, and never the squatter's", async () => {
    expect((await t.viaEdge(VICTIM, '/v1/pets', await t.issueKey(owner.name))).status).toBe(200);
    expect((await t.viaEdge(VICTIM, '/v1/pets', await t.issueKey(squatter.name))).status).toBe(401);
  });
});

describe('takeover', () => {
  const MOVING = 'shop.moving.test';
  let first: TestProject;
  let second: TestProject;

  it("refuses another project's verify while the DNS shows the owner's proof: the owner keeps serving", async () => {
    first = await t.createProject('pro');
    second = await t.createProject('business');
    await t.record(MOVING, 'CNAME', first.target);
    await t.console(first.consoleToken, 'POST', '/domains', { name: MOVING });
    await makeActive(first, MOVING);
    await t.console(second.consoleToken, 'POST', '/domains', { name: MOVING });

    expect((await verify(second, MOVING)).body).toMatchObject({ verified: false, verdict: 'cname-mismatch' });
    expect((await t.viaEdge(MOVING, '/v1/pets', await t.issueKey(first.name))).status).toBe(200);
    expect(await domainsOf(first)).toEqual([expect.objectContaining({ name: MOVING, state: 'active' })]);
  });

  it('moves a verified domain to the project whose proof the DNS shows now, and tells the former owner why', async () => {
    await t.record(MOVING, 'CNAME', second.target);

    expect((await verify(second, MOVING)).body).toMatchObject({ verified: true, verdict: 'verified' });
    expect(await domainsOf(second)).toEqual([expect.objectContaining({ name: MOVING, state: 'active' })]);
    // The edge's tenant was rerouted: the name serves the new owner's project only, once the
    // origin's 2-second cache of the name's record has passed (the test's clock).
    t.advance(EDGE_DOMAIN_CACHE_SECONDS * 1000);
    expect((await t.viaEdge(MOVING, '/v1/pets', await t.issueKey(second.name))).status).toBe(200);
    expect((await t.viaEdge(MOVING, '/v1/pets', await t.issueKey(first.name))).status).toBe(401);

    const [lost] = await domainsOf(first);
    expect(lost).toMatchObject({ name: MOVING, state: 'failed' });
    expect(lost?.reason).toMatch(/now serves another project/);
    expect(lost?.reason).not.toContain(second.name);
  });
});

describe('an unverified claim', () => {
  it(`is released after ${CLAIM_WINDOW_MS / 86_400_000} days, and frees its place`, async () => {
    const idle = await t.createProject('pro');
    await t.console(idle.consoleToken, 'POST', '/domains', { name: 'idle.claim.test' });
    t.advance(CLAIM_WINDOW_MS - 60_000);
    expect(await domainsOf(idle)).toEqual([expect.objectContaining({ name: 'idle.claim.test' })]);

    t.advance(60_000);
    expect(await domainsOf(idle)).toEqual([]);
    const gone = await verify(idle, 'idle.claim.test');
    expect(gone).toMatchObject({ status: 404, body: { code: 'domain_not_found' } });
  });
});
