import { issueConsoleToken, newUsageId, type ProjectRecord } from '../../../lambda/core/project';
import { ProjectRepository } from '../../../lambda/store/project-repository';
import { PROJECTS_TABLE } from '../../../lambda/store/table-schema';
import { startTestStore, type TestStore } from '../../support/embedded-store';

let store: TestStore;
let projects: ProjectRepository;

beforeAll(async () => {
  store = await startTestStore();
  await store.createTable(PROJECTS_TABLE, 'test-projects');
  projects = new ProjectRepository(store.documents, 'test-projects');
});
afterAll(() => store.close());

function record(name: string, overrides: Partial<ProjectRecord> = {}): ProjectRecord {
  return {
    name,
    plan: 'free',
    createdAt: '2026-11-22T00:00:00.000Z',
    consoleTokenHash: issueConsoleToken(name).hash,
    consoleTokenIssuedAt: '2026-11-22T00:00:00.000Z',
    usageId: newUsageId(),
    ...overrides,
  };
}

describe('ProjectRepository', () => {
  it('creates a project once and reads it back', async () => {
    const acme = record('acme');
    expect(await projects.create(acme)).toBe(true);
    expect(await projects.create(record('acme', { plan: 'pro' }))).toBe(false);
    expect(await projects.get('acme')).toEqual(acme);
    expect(await projects.get('nobody')).toBeUndefined();
  });

  it('changes plans, keeping agreed numbers only on an agreed plan', async () => {
    await projects.create(record('bigco'));
    expect(await projects.setPlan('bigco', 'enterprise', { perMinute: 2_000, perDay: 1_000_000 })).toBe(true);
    expect(await projects.get('bigco')).toMatchObject({
      plan: 'enterprise',
      agreedLimits: { perMinute: 2_000, perDay: 1_000_000 },
    });
    expect(await projects.setPlan('bigco', 'pro')).toBe(true);
    const after = await projects.get('bigco');
    expect(after?.plan).toBe('pro');
    expect(after).not.toHaveProperty('agreedLimits');
    expect(await projects.setPlan('nobody', 'pro')).toBe(false);
  });

  it('replaces the console token hash and the usage identifier', async () => {
    await projects.create(record('tokens'));
    const { hash } = issueConsoleToken('tokens');
    expect(await projects.setConsoleToken('tokens', hash, new Date('2026-11-23T00:00:00Z'))).toBe(true);
    expect(await projects.setUsageId('tokens', 'u-2')).toBe(true);
    expect(await projects.get('tokens')).toMatchObject({
      consoleTokenHash: hash,
      consoleTokenIssuedAt: '2026-11-23T00:00:00.000Z',
      usageId: 'u-2',
    });
  });

  it('lists by name and deletes', async () => {
    await projects.create(record('zeta'));
    const names = (await projects.list()).map((project) => project.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('zeta');
    expect(await projects.delete('zeta')).toBe(true);
    expect(await projects.delete('zeta')).toBe(false);
    expect(await projects.get('zeta')).toBeUndefined();
  });
});
