import {
  domainServesProject,
  originSecretMatches,
  parseViewerAddress,
  viewerHostName,
} from '../../../lambda/core/edge-request';

describe('edge request rules', () => {
  test('CloudFront-Viewer-Address gives the viewer IP, IPv4 or IPv6 (bracketed or bare), never the port', () => {
    expect(parseViewerAddress('198.51.100.10:46532')).toBe('198.51.100.10');
    expect(parseViewerAddress('[2001:DB8::1]:443')).toBe('2001:db8::1');
    expect(parseViewerAddress('2001:db8:0:0:0:0:0:1:443')).toBe('2001:db8:0:0:0:0:0:1');
    expect(parseViewerAddress(' 203.0.113.5:0 ')).toBe('203.0.113.5');
  });

  test.each([
    '',
    '198.51.100.10',
    '198.51.100.10:',
    '198.51.100.10:65536',
    '198.51.100.10:0443',
    '198.51.100.10:1:2',
    '[198.51.100.10]:443',
    '[2001:db8::1]',
    'example.com:443',
    '198.51.100.10:443, 192.0.2.1:443',
    '999.1.1.1:80',
  ])('a malformed viewer address names nobody: %j', (value) => {
    expect(parseViewerAddress(value)).toBeUndefined();
  });

  test('the secret matches only an accepted value, whole', () => {
    const current = 'a'.repeat(64);
    expect(originSecretMatches(current, [current])).toBe(true);
    expect(originSecretMatches(current, ['b'.repeat(64), current])).toBe(true);
    expect(originSecretMatches(current.slice(1), [current])).toBe(false);
    expect(originSecretMatches(`${current} `, [current])).toBe(false);
    expect(originSecretMatches('', [''])).toBe(false);
    expect(originSecretMatches(current, [])).toBe(false);
  });

  test('a viewer host is compared without port, case or trailing dot', () => {
    expect(viewerHostName('Shop.Example.COM.:8443')).toBe('shop.example.com');
    expect(viewerHostName('shop.example.com')).toBe('shop.example.com');
    expect(viewerHostName('localhost')).toBeUndefined();
    expect(viewerHostName('a b.example')).toBeUndefined();
  });

  test('a viewer host over 253 characters names no domain, so it is never looked up', () => {
    const longest = `${'a.'.repeat(125)}com`;
    expect(longest).toHaveLength(253);
    expect(viewerHostName(longest)).toBe(longest);
    expect(viewerHostName(`a${longest}`)).toBeUndefined();
    expect(viewerHostName(`${'a'.repeat(3_000)}.example.com`)).toBeUndefined();
  });

  test('a domain serves its own project only while active or redirecting', () => {
    expect(domainServesProject({ project: 'acme', state: 'active' }, 'acme')).toBe(true);
    expect(domainServesProject({ project: 'acme', state: 'redirect' }, 'acme')).toBe(true);
    expect(domainServesProject({ project: 'acme', state: 'certificate-pending' }, 'acme')).toBe(false);
    expect(domainServesProject({ project: 'acme', state: 'active' }, 'other')).toBe(false);
    expect(domainServesProject({ project: 'acme', state: 'active' }, undefined)).toBe(false);
    expect(domainServesProject(undefined, 'acme')).toBe(false);
  });
});
