import { InvalidResolverAddress, parseResolverAddress } from '../../../lambda/store/dns-resolver';

describe('DNS server addresses, as node:dns takes them', () => {
  it.each(['127.0.0.1', '127.0.0.1:5353', '::1', '[::1]:5353'])('accepts %s', (address) => {
    expect(parseResolverAddress(address)).toBe(address);
  });

  it.each(['dns.google', '127.0.0.1:0', '127.0.0.1:65536', '[::1', ''])(
    'refuses %j, saying what works and naming no flag (the tool adds its own)',
    (address) => {
      const refusal = (() => {
        try {
          parseResolverAddress(address);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(refusal).toBeInstanceOf(InvalidResolverAddress);
      expect((refusal as Error).message).toBe(
        `${JSON.stringify(address)} is not a DNS server address: use an IP address with an optional port, e.g. 127.0.0.1:5353 or [::1]:5353.`,
      );
    },
  );
});
