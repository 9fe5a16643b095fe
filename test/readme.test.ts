import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isAgreedPlan, isPlanName, PLANS, type PlanName, type StandardPlan } from '../lambda/core/plans';
import { DEV_OWNER } from '../local/dev-people';
import { DEV_PROJECT, DEV_PROJECT_DEFAULT_PLAN } from '../local/dev-project';
import { generatedBlocks } from '../tools/doc-tables';
import { CHROMIUM } from './support/chromium';

/**
 * The README is the front door: what the service is, the quick start, the first five
 * minutes and links, within 200 lines. Its tables of facts live in doc/, and the plan figures
 * it states are a generated block (`npm run docs:tables`, checked by test/docs/); this checks
 * the few facts the README itself states.
 */

const ROOT = path.join(__dirname, '..');
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
/** The prose with line breaks as spaces, since Prettier may wrap a sentence anywhere. */
const prose = readme.replace(/\s+/g, ' ');
const number = (n: number) => n.toLocaleString('en-US');

/** A plan of the plan table with fixed numbers (an agreed plan has none to state). */
function standardPlan(name: string | undefined): { name: PlanName; plan: StandardPlan } {
  if (name === undefined || !isPlanName(name)) throw new Error(`${String(name)} is not in the plan table`);
  const plan = PLANS[name];
  if (isAgreedPlan(plan)) throw new Error(`${name} is an agreed plan`);
  return { name, plan };
}

describe('README', () => {
  it('fits in 200 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it('gives the two quick-start commands that CI and users rely on, and the Chromium CI installs', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    const ci = readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toMatch(/^npm test/m);
    // The package that holds the browser the tests launch (test/support/chromium.ts).
    const browserPackage = path.basename(CHROMIUM);
    expect(ci).toMatch(new RegExp(`apt-get install -y .*\\b${browserPackage}\\b`));
    expect(readme).toContain(`apt-get install -y ${browserPackage}\``);
  });

  it('names the development project that npm start creates and its plan, linking to the plan table', () => {
    const { plan } = standardPlan(DEV_PROJECT_DEFAULT_PLAN);
    expect(prose).toContain(
      `development project \`${DEV_PROJECT}\` on the ${plan.title} plan** ([its limits](doc/limits.md#plans)`,
    );
    expect(readme).toContain(`Project ${DEV_PROJECT} (${DEV_PROJECT_DEFAULT_PLAN} plan)`);
    expect(readme).toContain(`http://${DEV_PROJECT}.localhost:3000/v1`);
  });

  it('exhausts a Free minute with a Free project and its key, at exactly the Free plan’s limit (a generated block)', () => {
    const { plan } = standardPlan('free');
    const { perMinute, perDay } = plan.limits;
    expect(readme).toContain('npm run projects -- create demo --plan free --json');
    expect(readme).toContain('npm run keys -- create --project demo --json');
    expect(prose).toContain(
      `Free project (${number(perMinute)} requests per minute, ${number(perDay)} per day)`,
    );
    expect(readme).toContain(`for i in $(seq ${perMinute + 1}); do`);
    expect(readme).toMatch(new RegExp(`^# +${perMinute} 200$`, 'm'));
    expect(readme).toMatch(/^# +1 429$/m);
    expect(generatedBlocks(readme).get('free-minute')).toContain(`for i in $(seq ${perMinute + 1}); do`);
  });

  it('shows the JSON the projects and keys tools print, with the fields they print', () => {
    const projectLine = /^# (\{"name":"demo".*\})$/m.exec(readme)?.[1];
    const keyLine = /^# (\{"id":.*"project":"demo"\})$/m.exec(readme)?.[1];
    expect(Object.keys(JSON.parse(projectLine ?? '{}'))).toEqual(['name', 'plan', 'address', 'consoleToken']);
    expect(Object.keys(JSON.parse(keyLine ?? '{}'))).toEqual(['id', 'apiKey', 'project']);
  });

  it('states the API Gateway ceiling on keys, which bounds the projects of an account and region', () => {
    expect(prose).toContain('10,000 API keys per account and region');
  });

  it('signs in as the development owner of local/dev-people.ts, with its email and password', () => {
    expect(prose).toContain(`\`${DEV_OWNER.email}\` with password \`${DEV_OWNER.password}\``);
  });
});
