import {
  Agent,
  createServer as createHttpServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request as httpRequest,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createSecureContext, type SecureContext, type TLSSocket } from 'node:tls';
import { errorBody } from '../lambda/api/errors';
import { JSON_HEADERS } from '../lambda/api/http';

/**
 * Local mode's edge: what CloudFront's multi-tenant distribution does for custom domains, on one
 * machine. HTTPS picks each active domain's certificate by SNI and forwards the request to the
 * project's own address (`<project>.<platform domain>`), as the distribution's origin is in AWS;
 * a redirect domain answers 301 to its primary. Plain HTTP serves the validation token of a
 * domain whose certificate is pending and sends everything else to HTTPS.
 */

/** A certificate and its key, PEM. */
export interface TlsCertificate {
  /** The leaf, optionally followed by intermediates. */
  readonly certificatePem: string;
  /** PKCS#8. */
  readonly privateKeyPem: string;
}

/** The token plain HTTP answers with while the domain's certificate is validated. */
export interface EdgeValidationToken {
  /** e.g. `/.well-known/pki-validation/<name>.txt` */
  readonly path: string;
  readonly content: string;
}

interface RouteBase {
  /** The project the domain belongs to: requests go to `<project>.<platform domain>`. */
  readonly project: string;
  /** Without one, HTTPS handshakes for the domain fail: it is not active yet. */
  readonly certificate?: TlsCertificate;
  readonly validationToken?: EdgeValidationToken;
}

/** What the edge does with one custom domain. */
export type EdgeRoute =
  | (RouteBase & { readonly role: 'serve' })
  | (RouteBase & {
      readonly role: 'redirect';
      /** The domain visitors are sent to, keeping path and query. */
      readonly primary: string;
    });

export interface HttpsEdgeOptions {
  /** The local API, e.g. `http://127.0.0.1:3000`: every project's origin. */
  readonly upstream: string;
  /** Local mode's platform domain: the origin host is `<project>.<platformDomain>:<upstream port>`. */
  readonly platformDomain: string;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** 0 picks a free one. @default 0 */
  readonly httpsPort?: number;
  /** 0 picks a free one. @default 0 */
  readonly httpPort?: number;
  /** Headers added to every request sent to the origin (e.g. the secret origin header). */
  readonly originHeaders?: Readonly<Record<string, string>>;
}

export interface HttpsEdge {
  readonly host: string;
  readonly httpsPort: number;
  readonly httpPort: number;
  /** Adds or replaces a domain's route; takes effect at the next handshake and the next request. */
  setRoute(domain: string, route: EdgeRoute): void;
  /** Removes a domain: its next request, even on an open connection, is refused. */
  removeRoute(domain: string): boolean;
  routes(): ReadonlyMap<string, EdgeRoute>;
  /** Stops both listeners and drops open connections. */
  close(): Promise<void>;
}

/** Headers that belong to one connection (RFC 9110 §7.6.1), never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/** What a viewer could claim about itself: the edge states these itself. */
const VIEWER_CLAIMS = new Set([
  'cloudfront-viewer-address',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
]);

const normalize = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/** The host a request names, without port, case or trailing dot. */
function hostOf(request: IncomingMessage): string | undefined {
  const header = request.headers.host;
  if (!header) return undefined;
  const name = header.startsWith('[')
    ? header.slice(0, header.indexOf(']') + 1)
    : header.replace(/:\d*$/, '');
  return normalize(name);
}

function sendError(response: ServerResponse, code: 'not_found' | 'bad_gateway', message: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const error = errorBody(code, message);
  const body = JSON.stringify(error);
  response.writeHead(error.status, {
    ...JSON_HEADERS,
    'Content-Length': Buffer.byteLength(body),
  });
  response.end(body);
}

const unknownHost = (response: ServerResponse, host: string | undefined) =>
  sendError(
    response,
    'not_found',
    host ? `No custom domain ${host} is served here.` : 'The request names no host (Host header).',
  );

/** RFC 7239: a value that is not a token is quoted (an IPv6 address also bracketed). */
function forwardedValue(value: string, ipv6 = false): string {
  const text = ipv6 ? `[${value}]` : value;
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(text) ? text : `"${text.replace(/["\\]/g, '\\$&')}"`;
}

function forwardedHeaders(request: IncomingMessage, viewerHost: string): Record<string, string> {
  const address = (request.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  const port = request.socket.remotePort ?? 0;
  return {
    // As CloudFront states it (the service believes it only beside the origin secret).
    'cloudfront-viewer-address': address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`,
    'x-forwarded-for': address,
    'x-forwarded-host': viewerHost,
    'x-forwarded-proto': 'https',
    forwarded: `for=${forwardedValue(address, address.includes(':'))};host=${forwardedValue(viewerHost)};proto=https`,
  };
}

/** The request's headers for the origin: hop-by-hop and viewer claims dropped. */
function originRequestHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || VIEWER_CLAIMS.has(name) || named.has(name)) continue;
    kept[name] = value;
  }
  return kept;
}

function responseHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

async function listen(server: HttpServer | HttpsServer, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Starts the edge: HTTPS and plain HTTP listeners on loopback. */
export async function startHttpsEdge(options: HttpsEdgeOptions): Promise<HttpsEdge> {
  const host = options.host ?? '127.0.0.1';
  const upstream = new URL(options.upstream);
  const upstreamPort = Number(upstream.port || (upstream.protocol === 'https:' ? 443 : 80));
  const routes = new Map<string, EdgeRoute>();
  const contexts = new Map<string, SecureContext>();
  // Its own pool, so close() can drop the connections it keeps to the origin.
  const agent = new Agent({ keepAlive: true });
  let httpsPort = 0;

  const activeRoute = (domain: string | undefined) => {
    const route = domain === undefined ? undefined : routes.get(domain);
    return route?.certificate ? route : undefined;
  };

  const httpsUrl = (domain: string, path: string) =>
    `https://${domain}${httpsPort === 443 ? '' : `:${httpsPort}`}${path}`;

  const proxy = (request: IncomingMessage, response: ServerResponse, project: string) => {
    const headers = {
      ...originRequestHeaders(request.headers),
      ...forwardedHeaders(request, request.headers.host ?? ''),
      ...options.originHeaders,
      host: `${project}.${options.platformDomain}:${upstreamPort}`,
    };
    const toOrigin = httpRequest(
      {
        hostname: upstream.hostname,
        port: upstreamPort,
        method: request.method,
        path: request.url,
        headers,
        agent,
      },
      (fromOrigin) => {
        response.writeHead(fromOrigin.statusCode ?? 502, responseHeaders(fromOrigin.headers));
        fromOrigin.pipe(response);
      },
    );
    toOrigin.on('error', () => sendError(response, 'bad_gateway', 'The edge could not reach the origin.'));
    // A viewer that goes away stops the origin request too.
    response.on('close', () => {
      if (!response.writableFinished) toOrigin.destroy();
    });
    request.pipe(toOrigin);
  };

  const https = createHttpsServer(
    {
      SNICallback: (servername, callback) => {
        const domain = normalize(servername);
        const context = activeRoute(domain) ? contexts.get(domain) : undefined;
        // No certificate, no handshake: the default context has none, so the client gets a
        // handshake_failure alert (an error here would only drop the connection).
        callback(null, context);
      },
    },
    (request, response) => {
      const servername = (request.socket as TLSSocket).servername;
      const domain = hostOf(request);
      const route = activeRoute(domain);
      // The Host must be the name the connection was made for (no fronting another domain).
      if (!route || !domain || (servername && normalize(servername) !== domain)) {
        unknownHost(response, domain);
        return;
      }
      if (route.role === 'redirect') {
        response.writeHead(301, {
          Location: httpsUrl(normalize(route.primary), request.url ?? '/'),
          'Content-Length': 0,
        });
        response.end();
        return;
      }
      proxy(request, response, route.project);
    },
  );

  const http = createHttpServer((request, response) => {
    const domain = hostOf(request);
    const route = domain === undefined ? undefined : routes.get(domain);
    if (!route || !domain) {
      unknownHost(response, domain);
      return;
    }
    const path = new URL(request.url ?? '/', 'http://edge').pathname;
    const token = route.validationToken;
    if (token && path === token.path && (request.method === 'GET' || request.method === 'HEAD')) {
      response.writeHead(200, {
        'Content-Type': 'text/plain; charset=utf-8',
        'Content-Length': Buffer.byteLength(token.content),
      });
      response.end(request.method === 'HEAD' ? undefined : token.content);
      return;
    }
    response.writeHead(301, { Location: httpsUrl(domain, request.url ?? '/'), 'Content-Length': 0 });
    response.end();
  });

  try {
    httpsPort = await listen(https, options.httpsPort ?? 0, host);
    const httpPort = await listen(http, options.httpPort ?? 0, host);
    return {
      host,
      httpsPort,
      httpPort,
      setRoute: (name, route) => {
        const domain = normalize(name);
        // Built now, so a bad certificate is refused here rather than at a visitor's handshake.
        const context = route.certificate
          ? createSecureContext({
              cert: route.certificate.certificatePem,
              key: route.certificate.privateKeyPem,
            })
          : undefined;
        routes.set(domain, route);
        if (context) contexts.set(domain, context);
        else contexts.delete(domain);
      },
      removeRoute: (name) => {
        const domain = normalize(name);
        contexts.delete(domain);
        return routes.delete(domain);
      },
      routes: () => new Map(routes),
      close: async () => {
        const closed = [https, http].map(
          (server) => new Promise<void>((resolve) => server.close(() => resolve())),
        );
        https.closeAllConnections();
        http.closeAllConnections();
        agent.destroy();
        await Promise.all(closed);
      },
    };
  } catch (error) {
    https.close();
    http.close();
    agent.destroy();
    throw error;
  }
}
