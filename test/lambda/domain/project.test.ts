import { PLANS } from '../../../lambda/domain/plans';
import {
  consoleTokenMatches,
  issueConsoleToken,
  parseConsoleToken,
  projectLimits,
  projectNameProblem,
  projectOfHost,
} from '../../../lambda/domain/project';

const RESERVED = ['console', 'domains', 'www'];

describe('projectNameProblem', () => {
  it.each(['abc', 'acme-pets', 'a1b', 'x'.repeat(63), '123'])('accepts %s', (name) => {
    expect(projectNameProblem(name, RESERVED)).toBeUndefined();
  });

  it.each([
    ['ab', /3 to 63 characters/],
    ['x'.repeat(64), /3 to 63 characters/],
    ['Acme', /lower-case letters/],
    ['-acme', /start or end with a hyphen/],
    ['acme-', /start or end with a hyphen/],
    ['ac_me', /lower-case letters/],
    ['ac.me', /lower-case letters/],
    ['xn--bcher-kva', /xn--/],
    ['console', /reserved/],
    ['www', /reserved/],
  ])('refuses %s', (name, message) => {
    expect(projectNameProblem(name, RESERVED)).toMatch(message);
  });
});

describe('projectLimits', () => {
  it('reads a standard plan from the plan table', () => {
    expect(projectLimits({ plan: 'free' })).toEqual(PLANS.free.limits);
    expect(projectLimits({ plan: 'business', agreedLimits: { perMinute: 1, perDay: 1 } })).toEqual(
      PLANS.business.limits,
    );
  });

  it('reads an agreed plan from the project', () => {
    expect(
      projectLimits({ plan: 'enterprise', agreedLimits: { perMinute: 2_500, perDay: 900_000 } }),
    ).toEqual({
      perMinute: 2_500,
      perDay: 900_000,
    });
  });

  it('grants nothing on an agreed plan without numbers', () => {
    expect(projectLimits({ plan: 'enterprise' })).toEqual({ perMinute: 0, perDay: 0 });
  });
});

describe('console tokens', () => {
  it('name their project and match only their own hash', () => {
    const { token, hash } = issueConsoleToken('acme-pets');
    const parsed = parseConsoleToken(token);
    expect(parsed?.project).toBe('acme-pets');
    expect(hash).not.toContain(parsed?.secret ?? '?');
    expect(consoleTokenMatches({ consoleTokenHash: hash }, parsed?.secret ?? '')).toBe(true);
    expect(
      consoleTokenMatches({ consoleTokenHash: issueConsoleToken('acme-pets').hash }, parsed?.secret ?? ''),
    ).toBe(false);
  });

  it.each([
    // Secrets are base64url: `_` and `-` at the start, the middle and the end must parse.
    `_${'a'.repeat(42)}`,
    `${'a'.repeat(42)}_`,
    `-${'b'.repeat(20)}_${'c'.repeat(21)}`,
    '_'.repeat(43),
  ])('parse with the secret %s', (secret) => {
    expect(parseConsoleToken(`pct_acme_${secret}`)).toEqual({ project: 'acme', secret });
  });

  it.each([
    '',
    'pct_',
    'pct_acme',
    'pct__' + 'a'.repeat(43),
    'ask_acme_' + 'a'.repeat(43),
    `pct_acme_${'a'.repeat(42)}`,
  ])('refuse %j', (token) => {
    expect(parseConsoleToken(token)).toBeUndefined();
  });
});

describe('projectOfHost', () => {
  it.each([
    ['acme.animalstore.example', 'acme'],
    ['ACME.AnimalStore.Example', 'acme'],
    ['acme.animalstore.example.', 'acme'],
    ['acme.localhost:3000', 'acme', 'localhost'],
  ])('reads %s as project %s', (host, project, platform = 'animalstore.example') => {
    expect(projectOfHost(host, platform)).toBe(project);
  });

  it.each([
    ['animalstore.example'],
    ['a.acme.animalstore.example'],
    ['acme.animalstore.example.evil.test'],
    ['abc123.execute-api.eu-west-1.amazonaws.com'],
    ['127.0.0.1:3000'],
    [''],
  ])('reads %s as no project', (host) => {
    expect(projectOfHost(host, 'animalstore.example')).toBeUndefined();
  });

  it('names no project without a platform domain', () => {
    expect(projectOfHost('acme.animalstore.example', undefined)).toBeUndefined();
  });
});
