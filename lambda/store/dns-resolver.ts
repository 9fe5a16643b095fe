import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { CaaRecord, DnsLookup } from '../core/custom-domains/dns-verdict';
import type { TxtLookup } from '../core/custom-domains/domain-ownership';
import { ownAddresses } from './dns-own-addresses';

/**
 * The node:dns side of the DNS verdicts: a {@link DnsLookup} on node:dns's Resolver, for the
 * console function in AWS, local mode and the domains tool alike.
 */

/** Answers that mean "no such record" rather than "the lookup failed". */
const NO_ANSWER = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

/** A DNS server address that node:dns's Resolver cannot take; its message says what works. */
export class InvalidResolverAddress extends Error {
  constructor(value: string) {
    super(
      `${JSON.stringify(value)} is not a DNS server address: use an IP address with an optional port, e.g. 127.0.0.1:5353 or [::1]:5353.`,
    );
    this.name = 'InvalidResolverAddress';
  }
}

/**
 * Checks a DNS server address as node:dns's Resolver takes it: an IP address with an
 * optional port (`127.0.0.1`, `127.0.0.1:5353`, `::1`, `[::1]:5353`). Host names are
 * refused: the resolver cannot look up its own address.
 */
export function parseResolverAddress(value: string): string {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(value) ?? /^([^:]+)(?::(\d+))?$/.exec(value);
  const [host, port] = match ? [match[1] ?? '', match[2]] : [value, undefined];
  const validPort = port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
  if (isIP(host) === 0 || !validPort) throw new InvalidResolverAddress(value);
  return value;
}

/**
 * A node:dns CAA answer: `{critical, <tag>: value}`, the tag as the key (any tag, unknown ones
 * included: RFC 8659 §4.1 makes a critical unknown one forbid issuance), matched case-insensitively.
 */
function caaRecordOf(answer: Record<string, unknown>): CaaRecord[] {
  const tag = Object.keys(answer).find((key) => key !== 'critical');
  if (tag === undefined) return [];
  return [{ critical: Number(answer.critical ?? 0), tag: tag.toLowerCase(), value: String(answer[tag]) }];
}

/**
 * A {@link DnsLookup} on node:dns's Resolver: the system's resolvers, or `server`
 * (`host` or `host:port`, e.g. `127.0.0.1:5353`). A fresh resolver per lookup object,
 * so no answer is cached between two runs.
 */
export function resolverLookup(server?: string, timeoutMs = 2_000): DnsLookup & TxtLookup {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (server) resolver.setServers([parseResolverAddress(server)]);
  const ask = async <T>(name: string, type: string, query: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await query();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (NO_ANSWER.has(code)) return [];
      throw new Error(
        `DNS lookup of ${type} ${name} failed (${code || String(error)}) at ${server ?? 'the system resolver'}: check the resolver address and the network.`,
        { cause: error },
      );
    }
  };
  return {
    cname: (name) => ask(name, 'CNAME', () => resolver.resolveCname(name)),
    a: (name) => ask(name, 'A', () => resolver.resolve4(name)),
    aaaa: (name) => ask(name, 'AAAA', () => resolver.resolve6(name)),
    // A record's character-strings are one text (RFC 7208 §3.3 reads them so).
    txt: (name) =>
      ask(name, 'TXT', async () => (await resolver.resolveTxt(name)).map((parts) => parts.join(''))),
    caa: (name) =>
      ask(name, 'CAA', async () =>
        (await resolver.resolveCaa(name)).flatMap((record) =>
          caaRecordOf(record as unknown as Record<string, unknown>),
        ),
      ),
    // The same server node:dns asks (the system's first one by default), one try per family.
    ownAddresses: (name) =>
      ask(name, 'A/AAAA', () =>
        ownAddresses(server ?? resolver.getServers()[0] ?? '127.0.0.1', name, timeoutMs),
      ),
  };
}
