import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';
import dns2 from 'dns2';

/**
 * The A and AAAA records a name owns, read from whole DNS answers (node:dns hands over the
 * addresses alone). A resolver answers the A question of a CNAME's name with the CNAME and the
 * target's records, owned by the target; a record owned by the name itself stands beside the
 * CNAME (RFC 1034 §3.6.2), whatever its address. dns2 encodes and parses the packets; the
 * socket is connected, so a server that is not there fails at once (ICMP port unreachable)
 * instead of at the timeout, and nothing outlives the question.
 */

const { Packet } = dns2;
/** Response codes (RFC 1035 §4.1.1) that answer the question: no error, no such name. */
const RCODE_NOERROR = 0;
const RCODE_NXDOMAIN = 3;

/** `127.0.0.1:5353`, `[::1]:53`, `::1`, `127.0.0.1` → the host and port to send to. */
export function hostAndPort(server: string): { host: string; port: number } {
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+)(?::(\d+))?$/.exec(server);
  if (!match) return { host: server, port: 53 };
  return { host: match[1] ?? server, port: Number(match[2] ?? 53) };
}

/** One question over UDP, answered or failed within `timeoutMs`; the socket is closed either way. */
function ask(
  host: string,
  port: number,
  name: string,
  type: 'A' | 'AAAA',
  timeoutMs: number,
): Promise<InstanceType<typeof Packet>> {
  const query = new Packet();
  query.header.id = randomInt(0x10000);
  query.header.rd = 1;
  query.questions.push({
    name,
    type: Packet.TYPE[type],
    class: Packet.CLASS.IN,
  } as (typeof query.questions)[number]);
  const socket = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
  return new Promise<InstanceType<typeof Packet>>((resolve, reject) => {
    const finish = (outcome: () => void) => {
      clearTimeout(timer);
      socket.close();
      outcome();
    };
    const timer = setTimeout(
      () =>
        finish(() => reject(Object.assign(new Error(`no answer in ${timeoutMs} ms`), { code: 'ETIMEOUT' }))),
      timeoutMs,
    );
    socket.on('error', (error) => finish(() => reject(error)));
    socket.on('message', (message) => {
      let response;
      try {
        response = Packet.parse(message);
      } catch {
        return; // An unparseable datagram is dropped; the timer still runs.
      }
      // A stray answer to another question is not this one's.
      if (response.header.id === query.header.id) finish(() => resolve(response));
    });
    socket.connect(port, host, () => socket.send(query.toBuffer()));
  });
}

/** The records of `type` owned by `name` in the server's answer; none for NXDOMAIN. */
async function owned(server: string, name: string, type: 'A' | 'AAAA', timeoutMs: number): Promise<string[]> {
  const { host, port } = hostAndPort(server);
  // Two tries, as node:dns's Resolver makes: one lost datagram is no DNS failure.
  const response = await ask(host, port, name, type, timeoutMs).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ETIMEOUT') throw error;
    return ask(host, port, name, type, timeoutMs);
  });
  const { rcode } = response.header as { rcode?: number };
  if (rcode === RCODE_NXDOMAIN) return [];
  if (rcode !== undefined && rcode !== RCODE_NOERROR) {
    throw Object.assign(new Error(`response code ${rcode}`), { code: `RCODE${rcode}` });
  }
  const owner = name.toLowerCase().replace(/\.$/, '');
  // A truncated answer (over 512 bytes: dozens of addresses) is read as far as it goes.
  return response.answers
    .filter(
      (answer) => answer.type === Packet.TYPE[type] && answer.name.toLowerCase().replace(/\.$/, '') === owner,
    )
    .map((answer) => String((answer as { address?: string }).address));
}

/** The A and AAAA records `name` owns itself, asked of `server` (`host`, `host:port`, `[v6]:port`). */
export async function ownAddresses(server: string, name: string, timeoutMs: number): Promise<string[]> {
  const [a, aaaa] = await Promise.all([
    owned(server, name, 'A', timeoutMs),
    owned(server, name, 'AAAA', timeoutMs),
  ]);
  return [...a, ...aaaa];
}
