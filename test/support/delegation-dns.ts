import dns2 from 'dns2';

/**
 * A DNS server on loopback that answers NS questions as public DNS would for delegated domains:
 * the name servers set for a domain, NXDOMAIN for a domain with none, SERVFAIL for one set to
 * fail. The sandbox DNS of local mode (local/sandbox-dns.ts) holds no NS records: tenants never
 * write them, and the preflight's delegation check is the only reader.
 */

const { Packet } = dns2;
type Packet = InstanceType<typeof Packet>;

/** Response codes (RFC 1035 §4.1.1). */
const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3 } as const;

export interface DelegationDns {
  /** `127.0.0.1:<port>`, what node:dns's Resolver and `--resolver` take. */
  readonly address: string;
  /** The NS records public DNS returns for `domain`; `'servfail'` makes its lookups fail. */
  delegate(domain: string, answer: readonly string[] | 'servfail'): void;
  /** Forgets every domain: each answers NXDOMAIN. */
  clear(): void;
  close(): Promise<void>;
}

export async function startDelegationDns(): Promise<DelegationDns> {
  const domains = new Map<string, readonly string[] | 'servfail'>();
  const udp = dns2.createUDPServer({ type: 'udp4' });
  udp.on('request', ((request: Packet, send: (response: Packet) => Promise<unknown>) => {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    const [question] = request.questions;
    const name = (question?.name ?? '').toLowerCase().replace(/\.$/, '');
    const answer = domains.get(name);
    if (answer === 'servfail') {
      response.header.rcode = RCODE.SERVFAIL;
    } else if (!answer) {
      response.header.rcode = RCODE.NXDOMAIN;
    } else if (question?.type === Packet.TYPE.NS) {
      for (const ns of answer) {
        response.answers.push({
          name,
          type: Packet.TYPE.NS,
          class: Packet.CLASS.IN,
          ttl: 172800,
          ns,
        } as never);
      }
    }
    void send(response).catch(() => undefined);
  }) as never);
  udp.on('requestError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(0, '127.0.0.1', () => {
      udp.off('error', reject);
      resolve();
    });
  });
  return {
    address: `127.0.0.1:${udp.address().port}`,
    delegate: (domain, answer) => domains.set(domain, answer),
    clear: () => domains.clear(),
    close: () => new Promise<void>((resolve) => udp.close(() => resolve())),
  };
}
