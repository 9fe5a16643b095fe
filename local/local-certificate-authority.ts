/* eslint-disable max-lines -- one stand-in for ACM's HTTP-validated issuance, kept whole while its root key, issuance and validation state are one object; the seam when it grows is the X.509 signing (createRoot, loadRoot, issueLeaf) apart from the validation state machine. */
// @peculiar/x509 builds on tsyringe, which needs the Reflect metadata API before it loads.
import 'reflect-metadata';
import { randomBytes, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { isIP } from 'node:net';
import path from 'node:path';
import * as x509 from '@peculiar/x509';
import { now } from '../lambda/shared/clock';
import { caaAllowsAmazon, type CaaRecord, type DnsLookup } from '../lambda/core/custom-domains/dns-verdict';
import type { TlsCertificate } from './https-edge';

/**
 * Local mode's certificate authority. It issues a certificate for a custom domain the way
 * CloudFront's managed certificates are issued with `ValidationTokenHost: 'cloudfront'`: once
 * the domain's DNS reaches the edge, it fetches a token over plain HTTP at
 * `http://<domain>/.well-known/pki-validation/<name>.txt` from the edge, which serves it for the
 * pending domain. Its root is trusted with `curl --cacert` (never installed system-wide).
 *
 * Nothing runs in the background: the owner calls `attempt()` when it wants a try, with the
 * clock it gave, so a test decides every step.
 */

/** CloudFront's `CertificateStatus` values that local mode produces (GetManagedCertificateDetails). */
export type CertificateState = 'pending-validation' | 'issued' | 'validation-timed-out';

/** Why a certificate is still pending: the first check that failed, in words for the tenant. */
export interface PendingReason {
  readonly kind: 'dns-not-pointing' | 'caa-blocks' | 'token-not-served' | 'dns-lookup-failed';
  readonly message: string;
}

/** The HTTP validation token, as ACM's `HttpRedirect.RedirectFrom` names its place. */
export interface ValidationToken {
  /** `/.well-known/pki-validation/<name>.txt` */
  readonly path: string;
  /** The body that URL must answer with (surrounding white space is ignored). */
  readonly content: string;
  /** `http://<domain>/.well-known/pki-validation/<name>.txt`: where the authority looks. */
  readonly url: string;
}

/** An issued leaf: ECDSA P-256, SAN = the domain, serverAuth, 90 days. */
export interface IssuedCertificate extends TlsCertificate {
  readonly serialNumber: string;
  /** ISO 8601. */
  readonly notBefore: string;
  readonly notAfter: string;
}

interface StatusBase {
  readonly domain: string;
  /** Milliseconds since the epoch, on the authority's clock. */
  readonly requestedAt: number;
  /** Validation tries made for this request. */
  readonly attempts: number;
}

/** Where a domain's certificate stands; a new `request` starts over. */
export type CertificateStatus =
  | (StatusBase & {
      readonly state: 'pending-validation';
      readonly validation: ValidationToken;
      /** Why the last try failed; absent before the first. */
      readonly reason?: PendingReason;
    })
  | (StatusBase & {
      readonly state: 'issued';
      readonly issuedAt: number;
      readonly certificate: IssuedCertificate;
    })
  | (StatusBase & {
      readonly state: 'validation-timed-out';
      readonly timedOutAt: number;
      readonly reason?: PendingReason;
    });

export interface LocalCertificateAuthorityOptions {
  /**
   * Local mode's data folder: the root is kept in `<dataDir>/local-ca/` (`root.pem`,
   * `root-key.pem`) and reused on restart. A new root each time when omitted.
   */
  readonly dataDir?: string;
  /** How the authority resolves names: the sandbox DNS in local mode. */
  readonly dns: DnsLookup;
  /** The edge's shared target: a domain's CNAME chain must end there or at a project's target under it. */
  readonly target: string;
  /** Port the edge's plain HTTP listens on (80 in AWS). */
  readonly httpPort: number;
  /** Milliseconds since the epoch. @default the service clock */
  readonly clock?: () => number;
  /** How long a request stays pending before it times out. @default 72 hours, as ACM */
  readonly patienceMs?: number;
  /** How long one token fetch may take. @default 5000 */
  readonly fetchTimeoutMs?: number;
}

export interface LocalCertificateAuthority {
  /** PEM of the root, for a client's trust list (`ca:`, `curl --cacert`). */
  readonly rootCertificatePem: string;
  /** Where the root is written, when there is a data folder. */
  readonly rootCertificatePath?: string;
  /** Requests a certificate: a fresh token, pending; replaces any earlier request for the domain. */
  request(domain: string): CertificateStatus;
  /** One validation try for a pending request (issues on success); other states are returned as they are. */
  attempt(domain: string): Promise<CertificateStatus>;
  status(domain: string): CertificateStatus | undefined;
  /** Drops the domain's request (the domain was removed). */
  forget(domain: string): void;
}

/** ACM retries for 72 hours, then the certificate is VALIDATION_TIMED_OUT (DescribeCertificate). */
export const DEFAULT_PATIENCE_MS = 72 * 60 * 60_000;
/** The folder of the well-known path CAs use for HTTP validation, ACM included (RFC 8615 registry: pki-validation). */
export const VALIDATION_PATH_PREFIX = '/.well-known/pki-validation/';
const LEAF_DAYS = 90;
/** Backdated like public CAs do, so a client whose clock is a little behind accepts it. */
const BACKDATE_MS = 60 * 60_000;
const ROOT_YEARS = 10;
const MAX_CNAME_HOPS = 8;
const MAX_TOKEN_BYTES = 4096;
const DAY_MS = 24 * 60 * 60_000;

const crypto = webcrypto;
type CryptoKey = webcrypto.CryptoKey;
const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGNING_ALGORITHM = { name: 'ECDSA', hash: 'SHA-256' };

const normalize = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/** A positive 128-bit serial in hex, with no leading zero byte (RFC 5280 §4.1.2.2). */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return bytes.toString('hex');
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

interface Root {
  readonly certificate: x509.X509Certificate;
  readonly key: CryptoKey;
  readonly pem: string;
}

async function createRoot(at: number): Promise<{ root: Root; keyPem: string }> {
  const keys = await crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomSerial(),
      name: 'CN=Animal Store local CA, O=Animal Store local mode',
      notBefore: new Date(at - BACKDATE_MS),
      notAfter: new Date(at + ROOT_YEARS * 365 * DAY_MS),
      signingAlgorithm: SIGNING_ALGORITHM,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  const pem = certificate.toString('pem');
  return { root: { certificate, key: keys.privateKey, pem }, keyPem: await privateKeyPem(keys.privateKey) };
}

async function loadRoot(certificatePem: string, keyPem: string): Promise<Root> {
  const [der] = x509.PemConverter.decode(keyPem);
  if (!der) throw new Error('no PEM block');
  const key = await crypto.subtle.importKey('pkcs8', der, KEY_ALGORITHM, false, ['sign']);
  return { certificate: new x509.X509Certificate(certificatePem), key, pem: certificatePem };
}

/** The root of `dataDir`, made on first use; a fresh one in memory without a folder. */
async function openRoot(dataDir: string | undefined, at: number): Promise<{ root: Root; path?: string }> {
  if (!dataDir) return { root: (await createRoot(at)).root };
  const folder = path.join(dataDir, 'local-ca');
  const certificatePath = path.join(folder, 'root.pem');
  const keyPath = path.join(folder, 'root-key.pem');
  if (existsSync(certificatePath) && existsSync(keyPath)) {
    try {
      return {
        root: await loadRoot(readFileSync(certificatePath, 'utf8'), readFileSync(keyPath, 'utf8')),
        path: certificatePath,
      };
    } catch (error) {
      throw new Error(
        `The local CA in ${folder} is unreadable (${error instanceof Error ? error.message : String(error)}): delete the folder to make a new one (clients must then trust the new root.pem).`,
        { cause: error },
      );
    }
  }
  const { root, keyPem } = await createRoot(at);
  mkdirSync(folder, { recursive: true });
  writeFileSync(keyPath, keyPem, { mode: 0o600 });
  chmodSync(keyPath, 0o600);
  writeFileSync(certificatePath, root.pem);
  return { root, path: certificatePath };
}

async function issueLeaf(root: Root, domain: string, at: number): Promise<IssuedCertificate> {
  const keys = await crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
  const notBefore = new Date(at - BACKDATE_MS);
  const notAfter = new Date(notBefore.getTime() + LEAF_DAYS * DAY_MS);
  const serialNumber = randomSerial();
  const certificate = await x509.X509CertificateGenerator.create(
    {
      serialNumber,
      subject: `CN=${domain}`,
      issuer: root.certificate.subject,
      notBefore,
      notAfter,
      signingAlgorithm: SIGNING_ALGORITHM,
      publicKey: keys.publicKey,
      signingKey: root.key,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
        new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: domain }], false),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        await x509.AuthorityKeyIdentifierExtension.create(root.certificate, false, crypto),
      ],
    },
    crypto,
  );
  return {
    certificatePem: certificate.toString('pem'),
    privateKeyPem: await privateKeyPem(keys.privateKey),
    serialNumber,
    notBefore: notBefore.toISOString(),
    notAfter: notAfter.toISOString(),
  };
}

const isLoopback = (address: string) =>
  (isIP(address) === 4 && address.startsWith('127.')) || address === '::1';

/** GETs the token from one address, with the domain as Host, as a validating CA does. */
function fetchToken(
  address: string,
  port: number,
  domain: string,
  tokenPath: string,
  timeoutMs: number,
): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const request = httpRequest(
      {
        host: address,
        port,
        path: tokenPath,
        headers: { host: port === 80 ? domain : `${domain}:${port}`, accept: 'text/plain' },
        agent: false,
        timeout: timeoutMs,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_TOKEN_BYTES) chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', (error) => resolve({ error: error.message }));
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    request.end();
  });
}

/** Creates the authority (and its root, unless `dataDir` already holds one). */
export async function createLocalCertificateAuthority(
  options: LocalCertificateAuthorityOptions,
): Promise<LocalCertificateAuthority> {
  const clock = options.clock ?? now;
  const patienceMs = options.patienceMs ?? DEFAULT_PATIENCE_MS;
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 5_000;
  const target = normalize(options.target);
  const { dns, httpPort } = options;
  const { root, path: rootCertificatePath } = await openRoot(options.dataDir, clock());
  const requests = new Map<string, CertificateStatus>();

  /** Every name and address a resolver sees for `name`: its CNAME chain and final addresses. */
  const resolve = async (name: string) => {
    const chain = [name];
    for (let hop = 0; hop < MAX_CNAME_HOPS; hop += 1) {
      const [next] = await dns.cname(chain[chain.length - 1] ?? name);
      if (next === undefined || chain.includes(normalize(next))) break;
      chain.push(normalize(next));
    }
    const [a, aaaa] = await Promise.all([dns.a(name), dns.aaaa(name)]);
    return { chain, addresses: [...a, ...aaaa] };
  };

  /** RFC 8659: the closest CAA set, the name then its parents (the root excluded). */
  const closestCaa = async (domain: string): Promise<{ owner: string; records: CaaRecord[] } | undefined> => {
    const labels = domain.split('.');
    for (let i = 0; i < labels.length; i += 1) {
      const owner = labels.slice(i).join('.');
      const records = await dns.caa(owner);
      if (records.length > 0) return { owner, records };
    }
    return undefined;
  };

  /** The first check that fails, or undefined when the token was served. */
  const validate = async (domain: string, token: ValidationToken): Promise<PendingReason | undefined> => {
    const [seen, edge] = await Promise.all([resolve(domain), resolve(target)]);
    const end = seen.chain[seen.chain.length - 1] ?? domain;
    // A project's own target (`<target id>.domains.localhost`) is a name under the shared one.
    if (seen.chain.length > 1 && end !== target && !end.endsWith(`.${target}`)) {
      return {
        kind: 'dns-not-pointing',
        message: `The CNAME of ${domain} leads to ${end}, not to ${target}.`,
      };
    }
    if (seen.addresses.length === 0) {
      return {
        kind: 'dns-not-pointing',
        message: `${domain} has no CNAME to ${target} yet (nor any address).`,
      };
    }
    const strangers = seen.addresses.filter((address) => !edge.addresses.includes(address));
    if (strangers.length > 0) {
      return {
        kind: 'dns-not-pointing',
        message: `${domain} resolves to ${strangers.join(', ')}, which is not the edge (${target}: ${edge.addresses.join(', ') || 'no address'}).`,
      };
    }
    const caa = await closestCaa(domain);
    if (caa && !caaAllowsAmazon(caa.records)) {
      return {
        kind: 'caa-blocks',
        message: `CAA records on ${caa.owner} do not allow Amazon to issue: add ${caa.owner} CAA 0 issue "amazon.com".`,
      };
    }
    // Only this machine is ever contacted: a sandbox name could point anywhere.
    const address = seen.addresses.find(isLoopback);
    if (address === undefined) {
      return {
        kind: 'dns-not-pointing',
        message: `${domain} resolves to ${seen.addresses.join(', ')}: the local CA validates only names that reach the local edge on loopback.`,
      };
    }
    const answer = await fetchToken(address, httpPort, domain, token.path, fetchTimeoutMs);
    if ('error' in answer) {
      return {
        kind: 'token-not-served',
        message: `GET ${token.url} failed at ${address}:${httpPort} (${answer.error}).`,
      };
    }
    if (answer.status !== 200) {
      return { kind: 'token-not-served', message: `GET ${token.url} answered ${answer.status}.` };
    }
    if (answer.body.trim() !== token.content) {
      return {
        kind: 'token-not-served',
        message: `GET ${token.url} answered with something other than the validation token.`,
      };
    }
    return undefined;
  };

  const known = (domain: string): CertificateStatus => {
    const status = requests.get(normalize(domain));
    if (!status) throw new Error(`No certificate was requested for ${normalize(domain)}: request one first.`);
    return status;
  };

  return {
    rootCertificatePem: root.pem,
    ...(rootCertificatePath ? { rootCertificatePath } : {}),
    request: (name) => {
      const domain = normalize(name);
      if (isIP(domain) !== 0 || domain.includes('*') || !domain.includes('.')) {
        // HTTP validation cannot cover a wildcard (ACM user guide, HTTP validation), nor an address.
        throw new Error(
          `${JSON.stringify(name)} cannot have a certificate: give one domain name, e.g. shop.example.test.`,
        );
      }
      const file = `${randomBytes(16).toString('hex')}.txt`;
      const status: CertificateStatus = {
        state: 'pending-validation',
        domain,
        requestedAt: clock(),
        attempts: 0,
        validation: {
          path: `${VALIDATION_PATH_PREFIX}${file}`,
          content: randomBytes(32).toString('hex'),
          url: `http://${domain}${VALIDATION_PATH_PREFIX}${file}`,
        },
      };
      requests.set(domain, status);
      return status;
    },
    attempt: async (name) => {
      const current = known(name);
      if (current.state !== 'pending-validation') return current;
      const startedAt = clock();
      if (startedAt - current.requestedAt >= patienceMs) {
        const timedOut: CertificateStatus = {
          state: 'validation-timed-out',
          domain: current.domain,
          requestedAt: current.requestedAt,
          attempts: current.attempts,
          timedOutAt: startedAt,
          ...(current.reason ? { reason: current.reason } : {}),
        };
        requests.set(current.domain, timedOut);
        return timedOut;
      }
      let reason: PendingReason | undefined;
      try {
        reason = await validate(current.domain, current.validation);
      } catch (error) {
        reason = {
          kind: 'dns-lookup-failed',
          message: error instanceof Error ? error.message : String(error),
        };
      }
      const next: CertificateStatus = reason
        ? { ...current, attempts: current.attempts + 1, reason }
        : {
            state: 'issued',
            domain: current.domain,
            requestedAt: current.requestedAt,
            attempts: current.attempts + 1,
            issuedAt: clock(),
            certificate: await issueLeaf(root, current.domain, clock()),
          };
      // A request or removal made while this try ran wins over its result.
      if (requests.get(current.domain) !== current) return known(current.domain);
      requests.set(current.domain, next);
      return next;
    },
    status: (name) => requests.get(normalize(name)),
    forget: (name) => {
      requests.delete(normalize(name));
    },
  };
}
