import { readFileSync } from 'node:fs';
import path from 'node:path';
import { STANDARD_PLANS, type StandardPlanName } from '../lambda/api/plans';

/**
 * The README is the front door: what the service is, the quick start, the first five
 * minutes and links, within 200 lines. Its tables of facts live in doc/ (generated and
 * checked by test/docs/); this checks the few facts the README itself states.
 */

const ROOT = path.join(__dirname, '..');
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
/** The prose with line breaks as spaces, since Prettier may wrap a sentence anywhere. */
const prose = readme.replace(/\s+/g, ' ');
const number = (n: number) => n.toLocaleString('en-US');

describe('README', () => {
  it('fits in 200 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it('gives the two quick-start commands that CI and users rely on, and the Chromium CI installs', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    const ci = readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toMatch(/^npm test/m);
    expect(ci).toMatch(/apt-get install -y .*chromium/);
    expect(readme).toContain('apt-get install -y chromium');
  });

  it('names the plan of the development key that npm start issues, with its limit', () => {
    const source = readFileSync(path.join(ROOT, 'local', 'start.ts'), 'utf8');
    const plan = /issueApiKey\('([a-z]+)'/.exec(source)?.[1] as StandardPlanName;
    expect(Object.keys(STANDARD_PLANS)).toContain(plan);
    const name = plan.charAt(0).toUpperCase() + plan.slice(1);
    expect(prose).toContain(
      `development API key on the ${name} plan** (${number(STANDARD_PLANS[plan].perMinute)} requests per minute)`,
    );
  });

  it('exhausts a Free minute with exactly the Free plan’s limit', () => {
    const { perMinute, perDay } = STANDARD_PLANS.free;
    expect(readme).toContain('npm run keys -- create --plan free');
    expect(prose).toContain(`Free plan (${perMinute} requests per minute, ${number(perDay)} per day)`);
    expect(readme).toContain(`for i in $(seq ${perMinute + 1}); do`);
    expect(readme).toMatch(new RegExp(`^# +${perMinute} 200$`, 'm'));
    expect(readme).toMatch(/^# +1 429$/m);
  });
});
