import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type EdgeRoute, type HttpsEdge, startHttpsEdge } from '../../local/https-edge';
import {
  type CertificateStatus,
  createLocalCertificateAuthority,
  type LocalCertificateAuthority,
} from '../../local/local-certificate-authority';
import { type SandboxDns, startSandboxDns } from '../../local/sandbox-dns';
import { resolverLookup } from '../../tools/domains-dns';
import { type TextAnswer, textOf } from '../support/text-answer';

/**
 * The three local blocks together, driven as the domains service will drive them: the tenant's
 * record in the sandbox DNS, a certificate from the local CA after HTTP validation through the
 * edge, then HTTPS through the custom host to a plain upstream standing in for the local API.
 */

/** Local mode's `{platform_cname_target}`: `domains.<platform domain>`, on loopback. */
const TARGET = 'domains.localhost';
const SHOP = 'shop.example.test';
const WWW = 'www.example.test';
const PATIENCE_MS = 30 * 60_000;

let dir: string;
let dns: SandboxDns;
let upstream: Server;
let hosts: (string | undefined)[];
let edge: HttpsEdge;
let ca: LocalCertificateAuthority;
/** The CA's clock, moved by hand; it starts at the wall clock so issued certificates are valid now. */
let time: number;

/** What the domains service does on add and on re-request: a fresh token, served by the edge. */
function requestCertificate(domain: string, route: EdgeRoute): CertificateStatus {
  const status = ca.request(domain);
  if (status.state !== 'pending-validation') throw new Error(`expected pending, got ${status.state}`);
  edge.setRoute(domain, { ...route, validationToken: status.validation });
  return status;
}

/** What the service does on verify: one try; once issued, the edge serves the domain with it. */
async function verify(domain: string, route: EdgeRoute): Promise<CertificateStatus> {
  const status = await ca.attempt(domain);
  if (status.state === 'issued') edge.setRoute(domain, { ...route, certificate: status.certificate });
  return status;
}

/** Resolves through the sandbox, as a machine whose resolver is the sandbox would. */
const sandboxLookup: LookupFunction = (hostname, options, callback) => {
  resolverLookup(dns.address)
    .a(hostname)
    .then(
      (addresses) => {
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} not found`), { code: 'ENOTFOUND' }), '', 4);
        } else if (options.all) {
          callback(
            null,
            addresses.map((address) => ({ address, family: 4 })),
          );
        } else {
          callback(null, addresses[0] ?? '', 4);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
};

/** `GET https://<host>:<edge port><path>`, resolved through the sandbox, trusting only the local CA's root. */
function get(url: string): Promise<TextAnswer> {
  return textOf((done) =>
    httpsRequest(url, { ca: ca.rootCertificatePem, lookup: sandboxLookup, agent: false }, done),
  );
}

const shopUrl = (pathAndQuery: string) => `https://${SHOP}:${edge.httpsPort}${pathAndQuery}`;
const HANDSHAKE_REFUSED = { code: 'EPROTO', message: expect.stringMatching(/alert handshake failure/) };

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'local-flow-'));
  hosts = [];
  upstream = createServer((request, response) => {
    hosts.push(request.headers.host);
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ servedAs: request.headers.host, path: request.url }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  dns = await startSandboxDns({ file: path.join(dir, 'sandbox-dns.json') });
  dns.setRecord({ name: TARGET, type: 'A', value: '127.0.0.1' });
  edge = await startHttpsEdge({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    platformDomain: 'localhost',
  });
  time = Date.now();
  ca = await createLocalCertificateAuthority({
    dataDir: dir,
    dns: resolverLookup(dns.address),
    target: TARGET,
    httpPort: edge.httpPort,
    clock: () => time,
    patienceMs: PATIENCE_MS,
  });
});

afterAll(async () => {
  await edge.close();
  await dns.close();
  await new Promise((resolve) => upstream.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('local mode, end to end: record → validation → certificate → HTTPS through the custom host', () => {
  const shop: EdgeRoute = { role: 'serve', project: 'acme' };

  it('issues once the CNAME reaches the edge, and serves the domain as its project over HTTPS', async () => {
    dns.setRecord({ name: SHOP, type: 'CNAME', value: TARGET });
    requestCertificate(SHOP, shop);

    expect(await verify(SHOP, shop)).toMatchObject({ state: 'issued', domain: SHOP, attempts: 1 });

    const answer = await get(shopUrl('/v1/pets'));
    const upstreamPort = (upstream.address() as AddressInfo).port;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ servedAs: `acme.localhost:${upstreamPort}`, path: '/v1/pets' });
    expect(hosts).toEqual([`acme.localhost:${upstreamPort}`]);
  });

  // The line the README can give a newcomer; run only where curl is installed.
  const curlPath = ['/usr/bin/curl', '/usr/local/bin/curl', '/bin/curl'].find((candidate) =>
    existsSync(candidate),
  );
  (curlPath ? it : it.skip)(
    'answers curl --cacert <root.pem> --resolve, as a newcomer would type it',
    async () => {
      const rootPath = ca.rootCertificatePath ?? '';
      expect(rootPath).toBe(path.join(dir, 'local-ca', 'root.pem'));
      const port = edge.httpsPort;
      const args = [
        '--silent',
        '--show-error',
        '--cacert',
        rootPath,
        '--resolve',
        `${SHOP}:${port}:127.0.0.1`,
      ];
      const output = await new Promise<string>((resolve, reject) =>
        execFile(curlPath ?? 'curl', [...args, shopUrl('/v1/pets')], (error, stdout, stderr) =>
          error ? reject(new Error(`curl failed: ${stderr}`)) : resolve(stdout),
        ),
      );
      expect(JSON.parse(output)).toMatchObject({
        path: '/v1/pets',
        servedAs: expect.stringMatching(/^acme\.localhost:/),
      });
    },
  );

  it('answers 301 to the primary for a redirect domain, keeping path and query', async () => {
    const www: EdgeRoute = { role: 'redirect', project: 'acme', primary: SHOP };
    dns.setRecord({ name: WWW, type: 'CNAME', value: TARGET });
    requestCertificate(WWW, www);
    expect(await verify(WWW, www)).toMatchObject({ state: 'issued' });

    const answer = await get(`https://${WWW}:${edge.httpsPort}/v1/pets?status=sold&limit=2`);

    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe(shopUrl('/v1/pets?status=sold&limit=2'));
  });

  it('keeps a domain whose CNAME is missing pending, with the reason, and never serves it', async () => {
    const domain = 'shop.elsewhere.test';
    requestCertificate(domain, shop);

    expect(await verify(domain, shop)).toMatchObject({
      state: 'pending-validation',
      reason: {
        kind: 'dns-not-pointing',
        message: `${domain} has no CNAME to ${TARGET} yet (nor any address).`,
      },
    });
    expect(edge.routes().get(domain)?.certificate).toBeUndefined();
    // The other domains' certificates are untouched by it.
    expect(ca.status(SHOP)).toMatchObject({ state: 'issued' });
  });

  it('times out after the patience; a new request then issues, and the domain is served', async () => {
    const domain = 'late.example.test';
    const late: EdgeRoute = { role: 'serve', project: 'globex' };
    requestCertificate(domain, late);
    expect(await verify(domain, late)).toMatchObject({ state: 'pending-validation' });

    time += PATIENCE_MS;
    expect(await verify(domain, late)).toMatchObject({
      state: 'validation-timed-out',
      reason: { kind: 'dns-not-pointing' },
    });

    dns.setRecord({ name: domain, type: 'CNAME', value: TARGET });
    requestCertificate(domain, late);
    expect(await verify(domain, late)).toMatchObject({ state: 'issued' });
    const answer = await get(`https://${domain}:${edge.httpsPort}/v1/pets`);
    expect(JSON.parse(answer.body).servedAs).toMatch(/^globex\.localhost:/);
  });

  it('refuses the host at once after removal', async () => {
    expect((await get(shopUrl('/v1/pets'))).status).toBe(200);

    edge.removeRoute(SHOP);
    ca.forget(SHOP);

    await expect(get(shopUrl('/v1/pets'))).rejects.toMatchObject(HANDSHAKE_REFUSED);
    // The redirect that pointed at it still answers; the service decides whether it may stay.
    expect((await get(`https://${WWW}:${edge.httpsPort}/`)).status).toBe(301);
  });
});
