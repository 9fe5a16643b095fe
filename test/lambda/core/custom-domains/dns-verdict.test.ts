import { caaAllowsAmazon, type CaaRecord } from '../../../../lambda/core/custom-domains/dns-verdict';

/** CAA as RFC 8659 reads it, for the records a resolver hands over (the DNS cases are in test/e2e). */
const caa = (critical: number, tag: string, value: string): CaaRecord => ({ critical, tag, value });

describe('whether a CAA set lets Amazon issue', () => {
  it.each([
    ['no record of a known tag', [caa(0, 'iodef', 'mailto:x@example.test')], true],
    ['issue amazon.com, with parameters', [caa(0, 'issue', 'amazon.com; cansignhttpexchanges=yes')], true],
    ['a tag in capitals (tags match case-insensitively, §4.1)', [caa(0, 'ISSUE', 'letsencrypt.org')], false],
    ['an empty issuer, which names no authority (§4.2)', [caa(0, 'issue', ';')], false],
    ['issuewild only, which binds wildcard certificates alone (§4.3)', [caa(0, 'issuewild', ';')], true],
    ['the critical flag on a known tag', [caa(128, 'issue', 'amazon.com')], true],
    [
      'the critical flag on an unknown tag (§4.1)',
      [caa(0, 'issue', 'amazon.com'), caa(128, 'tbs', 'x')],
      false,
    ],
    ['the critical bit among other flags', [caa(0, 'issue', 'amazon.com'), caa(129, 'tbs', 'x')], false],
    ['an unknown tag without the critical flag', [caa(0, 'issue', 'amazon.com'), caa(0, 'tbs', 'x')], true],
  ])('%s', (_, records, allowed) => {
    expect(caaAllowsAmazon(records)).toBe(allowed);
  });
});
