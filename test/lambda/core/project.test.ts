import { PLANS } from '../../../lambda/core/plans';
import {
  allowedOrigin,
  consoleTokenMatches,
  MAX_ALLOWED_ORIGINS,
  normalizeOrigin,
  parseAllowedOrigins,
  issueConsoleToken,
  parseConsoleToken,
  projectLimits,
  projectNameProblem,
  projectOfHost,
} from '../../../lambda/core/project';

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
    // A project name is a label: one over 63 characters names no project, and is never looked up.
    `pct_${'a'.repeat(64)}_${'a'.repeat(43)}`,
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

describe('allowed origins', () => {
  it.each([
    ['https://app.example.com', 'https://app.example.com'],
    ['http://localhost:5173', 'http://localhost:5173'],
    ['HTTPS://App.Example.COM', 'https://app.example.com'],
    ['https://app.example.com:443', 'https://app.example.com'],
    ['http://app.example.com:80', 'http://app.example.com'],
    ['https://app.example.com:8443', 'https://app.example.com:8443'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['http://[::1]:3000', 'http://[::1]:3000'],
    ['https://bücher.example', 'https://xn--bcher-kva.example'],
  ])('normalizes %s to %s, as a browser serializes it', (text, origin) => {
    expect(normalizeOrigin(text)).toEqual({ origin });
  });

  it.each([
    ['https://app.example.com/', /has a path.*use https:\/\/app\.example\.com\./],
    ['https://app.example.com/app', /has a path, query or fragment/],
    ['https://app.example.com?x=1', /has a path, query or fragment/],
    ['https://app.example.com#top', /has a path, query or fragment/],
    ['https://*.example.com', /wildcard/],
    ['*', /wildcard/],
    ['null', /cannot be allowed/],
    ['ftp://files.example.com', /must use http or https, not ftp/],
    ['chrome-extension://abcdef', /must use http or https/],
    ['app.example.com', /is not an origin/],
    ['https://', /is not an origin/],
    ['https://user:pass@app.example.com', /user name or password/],
    ['https://app.example.com:99999', /no valid host or port/],
    [`https://${'a'.repeat(300)}.com`, /longer than/],
  ])('refuses %j, naming it and the problem', (text, message) => {
    const result = normalizeOrigin(text);
    expect(result).toEqual({ problem: expect.stringMatching(message) });
    if ('problem' in result) expect(result.problem).toContain(JSON.stringify(text));
  });

  it('parses a list: normalized, repeats dropped in order, every bad origin named', () => {
    expect(parseAllowedOrigins(['https://b.example', 'HTTPS://B.example:443', 'http://a.example'])).toEqual({
      origins: ['https://b.example', 'http://a.example'],
    });
    expect(parseAllowedOrigins([])).toEqual({ origins: [] });
    const bad = parseAllowedOrigins(['https://ok.example', 'https://x.example/p', 'null']);
    expect(bad.problems).toHaveLength(2);
  });

  it(`allows at most ${MAX_ALLOWED_ORIGINS} origins`, () => {
    const origins = (count: number) => Array.from({ length: count }, (_, i) => `https://app${i}.example`);
    expect(parseAllowedOrigins(origins(MAX_ALLOWED_ORIGINS)).problems).toBeUndefined();
    expect(parseAllowedOrigins(origins(MAX_ALLOWED_ORIGINS + 1)).problems).toEqual([
      expect.stringContaining(`at most ${MAX_ALLOWED_ORIGINS} origins`),
    ]);
  });

  it("finds a request's origin on the list only when it is there exactly, after normalization", () => {
    const list = ['https://app.example.com', 'http://localhost:5173'];
    expect(allowedOrigin('https://app.example.com', list)).toBe('https://app.example.com');
    expect(allowedOrigin('HTTPS://APP.example.com:443', list)).toBe('https://app.example.com');
    for (const other of [
      'https://evil.example',
      'http://app.example.com',
      'https://app.example.com.evil.example',
      'http://localhost:5174',
      'null',
      '',
    ]) {
      expect(allowedOrigin(other, list)).toBeUndefined();
    }
    expect(allowedOrigin(undefined, list)).toBeUndefined();
    expect(allowedOrigin('https://app.example.com', undefined)).toBeUndefined();
    expect(allowedOrigin('https://app.example.com', [])).toBeUndefined();
  });
});
