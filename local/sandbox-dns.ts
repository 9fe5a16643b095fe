import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIPv4, isIPv6, type Socket } from 'node:net';
import path from 'node:path';
import dns2 from 'dns2';

/**
 * Local mode's sandbox DNS: an authoritative server on loopback that stands in for the whole DNS,
 * so a newcomer can create a tenant's records (`shop.example.test CNAME <target>`) without owning
 * a domain. Node's Resolver (and so `resolverLookup` of lambda/store/dns-resolver.ts) is pointed at it.
 */

const { Packet } = dns2;
type Packet = InstanceType<typeof Packet>;
type Resource = Packet['answers'][number];

/** The record types the sandbox holds: what a tenant's DNS needs and the verdicts read. */
export const SANDBOX_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'CAA', 'TXT'] as const;
export type SandboxRecordType = (typeof SANDBOX_RECORD_TYPES)[number];

/** A record as stored and listed: name and CNAME values lower-case without the trailing dot. */
export interface SandboxRecord {
  readonly name: string;
  readonly type: SandboxRecordType;
  /**
   * A: `192.0.2.1`; AAAA: `2001:db8::1`; CNAME: a name; CAA: `0 issue "amazon.com"`;
   * TXT: the text (split into 255-byte strings on the wire).
   */
  readonly value: string;
  /** Seconds. */
  readonly ttl: number;
  /**
   * The project that wrote it (`/console/api/sandbox/records`, with its console credentials);
   * none for local mode's own records: the target's address, and records kept from a data
   * folder written before records had owners.
   */
  readonly owner?: string;
}

/** What `setRecord` takes: the TTL defaults to the spec's 3600. */
export type SandboxRecordInput = Omit<SandboxRecord, 'ttl'> & { readonly ttl?: number };

/** A record the sandbox refuses, with a message meant for the person who typed it. */
export class InvalidSandboxRecord extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidSandboxRecord';
  }
}

/** The spec's TTL for the tenant's record. */
export const DEFAULT_SANDBOX_TTL = 3600;
/** Longest CNAME chain the server follows in one answer (resolvers give up around there too). */
const MAX_CNAME_HOPS = 8;
const MAX_TTL = 2 ** 31 - 1;
/** Response codes (RFC 1035 §4.1.1); dns2's typings lack them. */
const RCODE = { NOERROR: 0, FORMERR: 1, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** `Shop.Example.TEST.` → `shop.example.test`; refuses what is not a DNS name. */
export function normalizeDnsName(name: string): string {
  const normalized = name.trim().toLowerCase().replace(/\.$/, '');
  const labels = normalized.split('.');
  // A wildcard owner (RFC 4592) is `*` as the first label only: local mode's `*.domains.localhost`.
  const named = labels[0] === '*' && labels.length > 2 ? labels.slice(1) : labels;
  if (normalized.length === 0 || normalized.length > 253 || !named.every((label) => LABEL.test(label))) {
    throw new InvalidSandboxRecord(
      `${JSON.stringify(name)} is not a DNS name: use labels of letters, digits and hyphens separated by dots, e.g. shop.example.test.`,
    );
  }
  return normalized;
}

/** The CAA presentation format, RFC 8659 §4.1: `flags tag "value"` (quotes optional). */
const CAA = /^(\d{1,3})\s+([A-Za-z0-9]+)\s+(?:"((?:[^"\\]|\\.)*)"|(\S+))$/;

function parseCaa(value: string): { flags: number; tag: string; value: string } {
  const match = CAA.exec(value.trim());
  const flags = Number(match?.[1]);
  if (!match || flags > 255) {
    throw new InvalidSandboxRecord(
      `CAA value ${JSON.stringify(value)} is not of the form: flags tag "value", e.g. 0 issue "amazon.com".`,
    );
  }
  return { flags, tag: (match[2] ?? '').toLowerCase(), value: match[3] ?? match[4] ?? '' };
}

/** The stored form of a record, or why it cannot be stored. */
function normalizeRecord(input: SandboxRecordInput): SandboxRecord {
  if (!(SANDBOX_RECORD_TYPES as readonly string[]).includes(input.type)) {
    throw new InvalidSandboxRecord(
      `Record type ${JSON.stringify(input.type)} is not held by the sandbox: use one of ${SANDBOX_RECORD_TYPES.join(', ')}.`,
    );
  }
  const name = normalizeDnsName(input.name);
  const ttl = input.ttl ?? DEFAULT_SANDBOX_TTL;
  if (!Number.isInteger(ttl) || ttl < 0 || ttl > MAX_TTL) {
    throw new InvalidSandboxRecord(
      `TTL ${String(ttl)} must be a whole number of seconds from 0 to ${MAX_TTL}.`,
    );
  }
  const raw = input.value.trim();
  const value = ((): string => {
    switch (input.type) {
      case 'A':
        if (!isIPv4(raw))
          throw new InvalidSandboxRecord(`A value ${JSON.stringify(raw)} is not an IPv4 address.`);
        return raw;
      case 'AAAA':
        if (!isIPv6(raw))
          throw new InvalidSandboxRecord(`AAAA value ${JSON.stringify(raw)} is not an IPv6 address.`);
        return raw.toLowerCase();
      case 'CNAME':
        return normalizeDnsName(raw);
      case 'CAA': {
        const caa = parseCaa(raw);
        return `${caa.flags} ${caa.tag} "${caa.value}"`;
      }
      case 'TXT':
        return input.value;
    }
  })();
  return { name, type: input.type, value, ttl, ...(input.owner ? { owner: input.owner } : {}) };
}

const sameRecord = (a: Pick<SandboxRecord, 'name' | 'type' | 'value'>, b: typeof a) =>
  a.name === b.name && a.type === b.type && a.value === b.value;

/** What the records give for one question: the answer section and the response code. */
interface Answer {
  readonly rcode: number;
  readonly answers: Resource[];
}

/** TXT on the wire: character-strings of at most 255 bytes (RFC 1035 §3.3.14). */
function txtStrings(text: string): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const strings: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += 255) strings.push(bytes.subarray(start, start + 255));
  return strings.length > 0 ? strings : [Buffer.alloc(0)];
}

function toResource(owner: string, record: SandboxRecord): Resource {
  const base = { name: owner, type: Packet.TYPE[record.type], class: Packet.CLASS.IN, ttl: record.ttl };
  switch (record.type) {
    case 'A':
    case 'AAAA':
      return { ...base, address: record.value } as Resource;
    case 'CNAME':
      return { ...base, domain: record.value } as Resource;
    case 'CAA':
      return { ...base, ...parseCaa(record.value) } as Resource;
    case 'TXT':
      return { ...base, data: txtStrings(record.value) as unknown as string[] } as Resource;
  }
}

/**
 * The records of a name: its own, else, for a name that does not exist, those of the wildcard
 * one label up (`*.domains.localhost` answers for `<target id>.domains.localhost`; RFC 4592's
 * closest encloser, simplified to the parent).
 */
function recordsAt(records: readonly SandboxRecord[], name: string): SandboxRecord[] {
  const own = records.filter((record) => record.name === name);
  if (own.length > 0 || records.some((record) => record.name.endsWith(`.${name}`))) return own;
  const wildcard = `*${name.slice(name.indexOf('.'))}`;
  return name.includes('.') ? records.filter((record) => record.name === wildcard) : [];
}

/**
 * Answers a question as an authoritative server for every name: records of the type asked;
 * else the name's CNAME, followed (an A question for a CNAME name answers the CNAME and the
 * target's A); NXDOMAIN when the last name of the chain does not exist (RFC 6604), NODATA
 * (NOERROR, no answer) when it exists with other data or only below it (RFC 8020).
 */
function answerQuestion(records: readonly SandboxRecord[], questionName: string, qtype: number): Answer {
  const answers: Resource[] = [];
  // The first owner keeps the question's spelling: some resolvers match it byte for byte.
  let owner = questionName.replace(/\.$/, '');
  let current = owner.toLowerCase();
  const seen = new Set<string>();
  for (let hop = 0; hop <= MAX_CNAME_HOPS && !seen.has(current); hop += 1) {
    seen.add(current);
    const here = recordsAt(records, current);
    const direct = here.filter((record) => qtype === Packet.TYPE.ANY || Packet.TYPE[record.type] === qtype);
    if (direct.length > 0) {
      answers.push(...direct.map((record) => toResource(owner, record)));
      return { rcode: RCODE.NOERROR, answers };
    }
    const cname = here.find((record) => record.type === 'CNAME');
    if (!cname) {
      const exists =
        here.length > 0 || records.some((record) => record.name.endsWith(`.${current}`)) || current === '';
      return { rcode: exists ? RCODE.NOERROR : RCODE.NXDOMAIN, answers };
    }
    answers.push(toResource(owner, cname));
    owner = cname.value;
    current = cname.value;
  }
  // A loop or a chain too long: what is there so far, as a server that stops following.
  return { rcode: RCODE.NOERROR, answers };
}

export interface SandboxDnsOptions {
  /** Port for both UDP and TCP; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** An IP address (resolvers take no name for their server). @default '127.0.0.1' */
  readonly host?: string;
  /**
   * JSON file the records are kept in, read at start and rewritten on each change (local mode:
   * in its data folder, so a restart keeps the tenant's records). In memory only when omitted.
   */
  readonly file?: string;
  /** Records to start with (after those of `file`). */
  readonly records?: readonly SandboxRecordInput[];
}

/** The running sandbox: its address for `resolver.setServers` and the records API. */
export interface SandboxDns {
  /** `127.0.0.1:<port>` (or `[::1]:<port>`): what `resolverLookup` and `--resolver` take. */
  readonly address: string;
  readonly host: string;
  readonly port: number;
  /**
   * Adds a record, or changes the TTL of the same record. A name holds at most one CNAME (a new
   * one replaces it), but a CNAME beside other data is kept: the domains service must see that
   * conflict. Takes effect at the next question.
   */
  setRecord(record: SandboxRecordInput): SandboxRecord;
  /** Removes the records of that name and type (only the one with `value` when given); returns how many. */
  removeRecord(record: { name: string; type: SandboxRecordType; value?: string }): number;
  /** The records, sorted; only those of `name` when given. */
  records(name?: string): SandboxRecord[];
  /** Stops answering and frees the port. */
  close(): Promise<void>;
}

/** The file's shape: `{ "records": [...] }`. */
interface SandboxFile {
  readonly records: readonly SandboxRecordInput[];
}

function readRecordFile(file: string): readonly SandboxRecordInput[] {
  if (!existsSync(file)) return [];
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as SandboxFile;
    if (!Array.isArray(parsed.records)) throw new Error('no "records" array');
    return parsed.records;
  } catch (error) {
    throw new Error(
      `The sandbox DNS file ${file} is unreadable (${error instanceof Error ? error.message : String(error)}): fix it or delete it to start with no records.`,
      { cause: error },
    );
  }
}

/** Written whole, then renamed over the old one, so a crash never leaves half a file. */
function writeRecordFile(file: string, records: readonly SandboxRecord[]): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ records } satisfies SandboxFile, null, 2)}\n`);
  renameSync(temporary, file);
}

type Handler = (request: Packet, send: (response: Packet) => unknown) => void;

/** Binds UDP then TCP on the same port (resolvers retry a truncated answer over TCP there). */
async function bindBoth(
  host: string,
  port: number,
  handle: Handler,
): Promise<{ udp: InstanceType<typeof dns2.UDPServer>; tcp: InstanceType<typeof dns2.TCPServer> }> {
  // With port 0, TCP may find the port UDP got already taken: try another a few times.
  for (let attempt = 1; ; attempt += 1) {
    const udp = dns2.createUDPServer({ type: isIPv6(host) ? 'udp6' : 'udp4' });
    udp.on('request', handle as never);
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(port, host, () => {
        udp.off('error', reject);
        resolve();
      });
    });
    const bound = udp.address().port;
    const tcp = dns2.createTCPServer(handle as never);
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(bound, host, () => {
          tcp.off('error', reject);
          resolve();
        });
      });
      return { udp, tcp };
    } catch (error) {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      if (port !== 0 || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 10) throw error;
    }
  }
}

/** Starts the sandbox DNS server on loopback (UDP and TCP on one port). */
export async function startSandboxDns(options: SandboxDnsOptions = {}): Promise<SandboxDns> {
  const host = options.host ?? '127.0.0.1';
  let records: SandboxRecord[] = [];
  const save = () => {
    if (options.file) writeRecordFile(options.file, records);
  };
  const put = (input: SandboxRecordInput): SandboxRecord => {
    const record = normalizeRecord(input);
    records = records.filter(
      (other) =>
        !sameRecord(other, record) &&
        !(record.type === 'CNAME' && other.type === 'CNAME' && other.name === record.name),
    );
    records.push(record);
    return record;
  };
  for (const input of [...(options.file ? readRecordFile(options.file) : []), ...(options.records ?? [])]) {
    put(input);
  }

  const handle: Handler = (request, send) => {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    const [question] = request.questions;
    if (request.header.opcode !== 0) {
      response.header.rcode = RCODE.NOTIMP;
    } else if (!question || request.questions.length !== 1) {
      response.header.rcode = RCODE.FORMERR;
    } else if (question.class !== Packet.CLASS.IN && question.class !== Packet.CLASS.ANY) {
      response.header.rcode = RCODE.REFUSED;
    } else {
      // No SOA in negative answers: without one a resolver does not cache them (RFC 2308 §5),
      // so a record added a moment later is seen at once.
      const { rcode, answers } = answerQuestion(records, question.name, question.type);
      response.header.rcode = rcode;
      response.answers.push(...answers);
    }
    // dns2's UDP send returns a promise, its TCP send nothing: a lost answer is the client's to retry.
    void Promise.resolve(send(response)).catch(() => undefined);
  };
  const { udp, tcp } = await bindBoth(host, options.port ?? 0, handle);
  // A malformed packet is dropped (dns2 reports it here); a server must not stop for one.
  udp.on('requestError', () => undefined);
  tcp.on('requestError', () => undefined);
  const connections = new Set<Socket>();
  tcp.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  save();

  const port = udp.address().port;
  return {
    address: isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`,
    host,
    port,
    setRecord: (input) => {
      const record = put(input);
      save();
      return record;
    },
    removeRecord: ({ name, type, value }) => {
      const target = normalizeDnsName(name);
      const match = value === undefined ? undefined : normalizeRecord({ name, type, value });
      const before = records.length;
      records = records.filter((record) =>
        match ? !sameRecord(record, match) : !(record.name === target && record.type === type),
      );
      const removed = before - records.length;
      if (removed > 0) save();
      return removed;
    },
    records: (name) => {
      const only = name === undefined ? undefined : normalizeDnsName(name);
      return records
        .filter((record) => only === undefined || record.name === only)
        .sort(
          (a, b) =>
            a.name.localeCompare(b.name) || a.type.localeCompare(b.type) || a.value.localeCompare(b.value),
        )
        .map((record) => ({ ...record }));
    },
    close: async () => {
      // Open TCP connections would keep the server alive for dns2's idle timeout (10 s).
      for (const socket of connections) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}
