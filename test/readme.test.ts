import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_CATALOGUE } from '../lambda/api/errors';
import { ANONYMOUS_LIMITS, STANDARD_PLANS } from '../lambda/api/plans';

const readme = readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('lists exactly the error codes of the catalogue, each with its status', () => {
    const section = readme.slice(
      readme.indexOf('### Error codes'),
      readme.indexOf('## Choices where the spec is silent'),
    );
    const rows = [...section.matchAll(/^\| `([a-z_]+)` +\| (\d{3}) +\|/gm)].map(([, code, status]) => [
      code,
      Number(status),
    ]);
    expect(rows).toEqual(Object.entries(ERROR_CATALOGUE).map(([code, { status }]) => [code, status]));
  });

  it('gives the two quick-start commands that CI and users rely on', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    expect(readFileSync(path.join(__dirname, '..', '.ci', 'run'), 'utf8')).toMatch(/^npm test/m);
  });

  it('states the limits of the plan table', () => {
    const section = readme.slice(readme.indexOf('## Plans and rate limits'));
    const number = (n: number) => n.toLocaleString('en-US');
    for (const [plan, { perMinute, perDay }] of Object.entries(STANDARD_PLANS)) {
      expect(section).toMatch(
        new RegExp(`\\| \`${plan}\` +\\| ${number(perMinute)} +\\| ${number(perDay)} +\\|`),
      );
    }
    const { perMinute, perDay } = ANONYMOUS_LIMITS;
    expect(section).toMatch(
      new RegExp(`\\| no valid key \\(per client IP\\) +\\| ${perMinute} +\\| ${perDay} +\\|`),
    );
  });
});
