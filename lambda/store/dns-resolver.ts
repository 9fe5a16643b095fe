import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import dns2 from 'dns2';
import type { CaaRecord, DnsLookup } from '../domain/dns-verdict';

/**
 * The node:dns side of the DNS verdicts: a {@link DnsLookup} on node:dns's Resolver, for the
 * console function in AWS, local mode and the domains tool alike.
 */

/** Answers that mean "no such record" rather than "the lookup failed". */
const NO_ANSWER = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);
/** DNS response codes (RFC 1035 §4.1.1) that answer the question: no error, no such name. */
const RCODE_NOERROR = 0;
const RCODE_NXDOMAIN = 3;

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

/** `127.0.0.1:5353`, `[::1]:53`, `::1` → the host and port a DNS client sends to. */
function hostAndPort(server: string): { host: string; port: number } {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+)(?::(\d+))?$/.exec(server);
  if (!match) return { host: server, port: 53 };
  return { host: match[1] ?? server, port: Number(match[2] ?? 53) };
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
 * The A and AAAA records a name owns, from whole answers (node:dns gives only addresses): a
 * recursive resolver answers a CNAME's name with the CNAME and its target's records, owned by
 * the target; a record owned by the name itself stands beside the CNAME.
 */
async function ownAddresses(server: string, name: string, timeoutMs: number): Promise<string[]> {
  const { host, port } = hostAndPort(server);
  const ask = dns2.UDPClient({
    dns: host,
    port,
    timeout: timeoutMs,
    socketType: isIP(host) === 6 ? 'udp6' : 'udp4',
  });
  // Two tries, as node:dns's Resolver makes: one lost datagram is no DNS failure.
  const query = (type: string) => ask(name, type).catch(() => ask(name, type));
  const owned = (type: 'A' | 'AAAA') => async () => {
    const response = await query(type);
    const { rcode } = response.header as { rcode?: number };
    if (rcode === RCODE_NXDOMAIN) return [];
    if (rcode !== undefined && rcode !== RCODE_NOERROR) {
      throw Object.assign(new Error(`response code ${rcode}`), { code: `RCODE${rcode}` });
    }
    return response.answers
      .filter(
        (answer) =>
          answer.type === dns2.Packet.TYPE[type] &&
          answer.name.toLowerCase().replace(/\.$/, '') === name.toLowerCase().replace(/\.$/, ''),
      )
      .map((answer) => String((answer as { address?: string }).address));
  };
  return (await Promise.all([owned('A')(), owned('AAAA')()])).flat();
}

/**
 * A {@link DnsLookup} on node:dns's Resolver: the system's resolvers, or `server`
 * (`host` or `host:port`, e.g. `127.0.0.1:5353`). A fresh resolver per lookup object,
 * so no answer is cached between two runs.
 */
export function resolverLookup(server?: string, timeoutMs = 2_000): DnsLookup {
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
