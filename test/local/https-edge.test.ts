import 'reflect-metadata';
import { webcrypto, X509Certificate } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, request as httpRequest, type Server } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import * as x509 from '@peculiar/x509';
import { type HttpsEdge, startHttpsEdge, type TlsCertificate } from '../../local/https-edge';
import { type TextAnswer, textOf } from '../support/text-answer';

const SHOP = 'shop.example.test';
const WWW = 'www.example.test';
const SECRET = { 'x-origin-verify': 'local-secret' };

/** A self-signed certificate for `domain`: the test's client trusts it as its own root. */
async function selfSigned(domain: string): Promise<TlsCertificate> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: `CN=${domain}`,
      keys,
      signingAlgorithm: algorithm,
      notBefore: new Date(Date.now() - 60 * 60_000),
      notAfter: new Date(Date.now() + 24 * 60 * 60_000),
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: domain }]),
      ],
    },
    webcrypto,
  );
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    certificatePem: certificate.toString('pem'),
    privateKeyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'),
  };
}

interface Seen {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

let upstream: Server;
let seen: Seen[];
let edge: HttpsEdge;
let shopCertificate: TlsCertificate;
let wwwCertificate: TlsCertificate;

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The certificate the edge presented. */
  readonly peer?: X509Certificate;
  readonly reusedSocket: boolean;
}

/** An HTTPS request to the edge on 127.0.0.1, for `servername`, trusting only `ca`. */
function viaHttps(
  servername: string,
  path: string,
  options: {
    ca?: string;
    host?: string;
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    agent?: Agent;
  } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: '127.0.0.1',
        port: edge.httpsPort,
        servername,
        path,
        method: options.method ?? 'GET',
        headers: { host: `${options.host ?? servername}:${edge.httpsPort}`, ...options.headers },
        ca: options.ca ?? [shopCertificate.certificatePem, wwwCertificate.certificatePem],
        agent: options.agent ?? false,
      },
      (response) => {
        const socket = response.socket as TLSSocket;
        const raw = socket.getPeerX509Certificate?.();
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body,
            ...(raw ? { peer: raw } : {}),
            reusedSocket: request.reusedSocket,
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/** A plain HTTP request to the edge, as the CA's validation or a browser typing http:// makes it. */
function viaHttp(host: string, path: string, method = 'GET'): Promise<TextAnswer> {
  return textOf((done) =>
    httpRequest(
      { host: '127.0.0.1', port: edge.httpPort, path, method, headers: { host }, agent: false },
      done,
    ),
  );
}

beforeAll(async () => {
  [shopCertificate, wwwCertificate] = await Promise.all([selfSigned(SHOP), selfSigned(WWW)]);
  upstream = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      seen.push({ method: request.method, url: request.url, headers: request.headers, body });
      if (request.url === '/hang-up') {
        request.socket.destroy();
        return;
      }
      const status = request.method === 'POST' ? 201 : 200;
      response.writeHead(status, { 'Content-Type': 'application/json', 'X-From': 'upstream' });
      response.end(JSON.stringify({ host: request.headers.host }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => upstream.close(resolve));
});

beforeEach(async () => {
  seen = [];
  edge = await startHttpsEdge({
    upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    platformDomain: 'localhost',
    originHeaders: SECRET,
  });
});

afterEach(async () => {
  await edge.close();
});

const upstreamPort = () => (upstream.address() as AddressInfo).port;
/** What a client sees when the edge has no certificate for the name: a TLS alert, no HTTP at all. */
const HANDSHAKE_REFUSED = { code: 'EPROTO', message: expect.stringMatching(/alert handshake failure/) };

const expectErrorBody = (
  answer: Pick<Answer, 'status' | 'headers' | 'body'>,
  status: number,
  code: string,
) => {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(JSON.parse(answer.body)).toEqual({ code, message: expect.any(String), status });
};

describe('the local HTTPS edge', () => {
  it('listens on loopback, HTTPS and HTTP on ports of their own', () => {
    expect(edge.host).toBe('127.0.0.1');
    expect(edge.httpsPort).toBeGreaterThan(0);
    expect(edge.httpPort).toBeGreaterThan(0);
    expect(edge.httpPort).not.toBe(edge.httpsPort);
  });

  it('serves an active domain by SNI, as its project: Host is the project’s address, the viewer’s claims replaced', async () => {
    edge.setRoute('Shop.Example.Test.', { role: 'serve', project: 'acme', certificate: shopCertificate });

    const answer = await viaHttps(SHOP, '/v1/pets?limit=2', {
      headers: {
        'X-Forwarded-For': '203.0.113.9',
        Forwarded: 'for=203.0.113.9',
        'X-Forwarded-Host': 'evil.test',
      },
    });

    expect(answer.status).toBe(200);
    expect(answer.headers['x-from']).toBe('upstream');
    expect(JSON.parse(answer.body)).toEqual({ host: `acme.localhost:${upstreamPort()}` });
    expect(answer.peer?.subjectAltName).toBe(`DNS:${SHOP}`);
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.url).toBe('/v1/pets?limit=2');
    expect(request?.headers).toMatchObject({
      host: `acme.localhost:${upstreamPort()}`,
      'x-forwarded-host': `${SHOP}:${edge.httpsPort}`,
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '127.0.0.1',
      forwarded: `for=127.0.0.1;host="${SHOP}:${edge.httpsPort}";proto=https`,
      'x-origin-verify': 'local-secret',
    });
  });

  it('forwards the method and body, and relays the origin’s status', async () => {
    edge.setRoute(SHOP, { role: 'serve', project: 'acme', certificate: shopCertificate });

    const answer = await viaHttps(SHOP, '/v1/pets', {
      method: 'POST',
      body: '{"name":"Rex","categoryId":1}',
      headers: { 'Content-Type': 'application/json' },
    });

    expect(answer.status).toBe(201);
    expect(seen[0]).toMatchObject({ method: 'POST', body: '{"name":"Rex","categoryId":1}' });
  });

  it('presents each domain’s own certificate', async () => {
    edge.setRoute(SHOP, { role: 'serve', project: 'acme', certificate: shopCertificate });
    edge.setRoute(WWW, { role: 'serve', project: 'globex', certificate: wwwCertificate });

    const [shop, www] = await Promise.all([
      viaHttps(SHOP, '/v1/pets', { ca: shopCertificate.certificatePem }),
      viaHttps(WWW, '/v1/pets', { ca: wwwCertificate.certificatePem }),
    ]);

    expect(shop.peer?.subjectAltName).toBe(`DNS:${SHOP}`);
    expect(www.peer?.subjectAltName).toBe(`DNS:${WWW}`);
    expect(JSON.parse(www.body)).toEqual({ host: `globex.localhost:${upstreamPort()}` });
  });

  it('fails the handshake for a domain it does not serve, or whose certificate is pending', async () => {
    edge.setRoute(SHOP, { role: 'serve', project: 'acme' });

    await expect(viaHttps(SHOP, '/v1/pets')).rejects.toMatchObject(HANDSHAKE_REFUSED);
    await expect(viaHttps('unknown.example.test', '/v1/pets')).rejects.toMatchObject(HANDSHAKE_REFUSED);
    expect(seen).toEqual([]);
  });

  it('answers 301 to the primary for a redirect domain, keeping path and query', async () => {
    edge.setRoute(WWW, {
      role: 'redirect',
      project: 'acme',
      primary: 'Shop.Example.Test',
      certificate: wwwCertificate,
    });

    const answer = await viaHttps(WWW, '/v1/pets?status=sold&limit=2');

    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe(`https://${SHOP}:${edge.httpsPort}/v1/pets?status=sold&limit=2`);
    expect(seen).toEqual([]);
  });

  it('refuses a Host other than the name the connection was made for', async () => {
    edge.setRoute(SHOP, { role: 'serve', project: 'acme', certificate: shopCertificate });
    edge.setRoute(WWW, { role: 'serve', project: 'globex', certificate: wwwCertificate });

    expectErrorBody(await viaHttps(SHOP, '/v1/pets', { host: WWW }), 404, 'not_found');
    expect(seen).toEqual([]);
  });

  it('refuses a removed domain at once: the next request on an open connection, then the handshake', async () => {
    edge.setRoute(SHOP, { role: 'serve', project: 'acme', certificate: shopCertificate });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await viaHttps(SHOP, '/v1/pets', { agent })).status).toBe(200);

      expect(edge.removeRoute(SHOP)).toBe(true);
      const refused = await viaHttps(SHOP, '/v1/pets', { agent });
      expect(refused.reusedSocket).toBe(true);
      expectErrorBody(refused, 404, 'not_found');
      expect(JSON.parse(refused.body).message).toBe(`No custom domain ${SHOP} is served here.`);

      await expect(viaHttps(SHOP, '/v1/pets')).rejects.toMatchObject(HANDSHAKE_REFUSED);
      expect(seen).toHaveLength(1);
      expect(edge.routes().size).toBe(0);
    } finally {
      agent.destroy();
    }
  });

  it('answers 502 with the Error body when the origin fails', async () => {
    edge.setRoute(SHOP, { role: 'serve', project: 'acme', certificate: shopCertificate });

    expectErrorBody(await viaHttps(SHOP, '/hang-up'), 502, 'bad_gateway');
  });

  it('refuses a certificate it cannot use, keeping the route it had', () => {
    edge.setRoute(SHOP, { role: 'serve', project: 'acme', certificate: shopCertificate });

    expect(() =>
      edge.setRoute(SHOP, {
        role: 'serve',
        project: 'acme',
        certificate: {
          certificatePem: shopCertificate.certificatePem,
          privateKeyPem: wwwCertificate.privateKeyPem,
        },
      }),
    ).toThrow();
    expect(edge.routes().get(SHOP)?.certificate).toBe(shopCertificate);
  });
});

describe('the local edge over plain HTTP', () => {
  const token = { path: '/.well-known/pki-validation/0123abcd.txt', content: 'the-token' };

  it('serves a pending domain’s validation token at its path', async () => {
    edge.setRoute(SHOP, { role: 'serve', project: 'acme', validationToken: token });

    const answer = await viaHttp(`${SHOP}:${edge.httpPort}`, token.path);
    expect(answer).toMatchObject({ status: 200, body: 'the-token' });
    expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(await viaHttp('SHOP.example.test.', token.path, 'HEAD')).toMatchObject({ status: 200, body: '' });
  });

  it('sends every other request of a known domain to HTTPS', async () => {
    edge.setRoute(SHOP, {
      role: 'serve',
      project: 'acme',
      certificate: shopCertificate,
      validationToken: token,
    });

    const answer = await viaHttp(SHOP, '/v1/pets?limit=1');
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe(`https://${SHOP}:${edge.httpsPort}/v1/pets?limit=1`);
    expect((await viaHttp(SHOP, '/.well-known/pki-validation/other.txt')).status).toBe(301);
    expect((await viaHttp(SHOP, token.path, 'POST')).status).toBe(301);
    expect(seen).toEqual([]);
  });

  it('answers 404 with the Error body for a host it does not serve', async () => {
    expectErrorBody(await viaHttp('unknown.example.test', token.path), 404, 'not_found');
  });
});
