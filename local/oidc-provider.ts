import { generateKeyPairSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Provider from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import { DEV_PEOPLE, type DevPerson } from './dev-people';
import { memoryAdapter } from './oidc-memory-adapter';
import { loadOidcProvider } from './oidc-provider-module';
import {
  SIGN_IN_STYLESHEET,
  SIGN_IN_STYLESHEET_PATH,
  signInPageHtml,
  signInPageSecurityHeaders,
  signOutPageHtml,
} from './oidc-sign-in-page';

/**
 * Local mode's OpenID provider (issue 26): `oidc-provider`, a certified implementation, on a
 * loopback port beside the API, so the console's sign-in runs the same code as against Cognito,
 * offline. Its development-only interactions are off: its own sign-in page checks a password
 * of the development people (local/dev-people.ts). Its signing key and cookie keys are made at
 * each start, so nothing it issued survives a restart.
 */

/** A client the provider knows: the console, a confidential client with exact URLs. */
export interface LocalOidcClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris?: readonly string[];
}

export interface LocalOidcProviderOptions {
  /** 0 picks a free one. */
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  readonly clients: readonly LocalOidcClient[];
  /** @default DEV_PEOPLE */
  readonly people?: readonly DevPerson[];
}

export interface LocalOidcProvider {
  /** e.g. `http://127.0.0.1:3900` */
  readonly issuer: string;
  readonly people: readonly DevPerson[];
  close(): Promise<void>;
}

/** A fresh random client secret for a run. */
export function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

const MAX_FORM_BYTES = 4096;

/** What a page of the provider's own (its sign-out) sets on the Koa context it is given. */
interface KoaPage {
  set(headers: Record<string, string>): void;
  type: string;
  body: string;
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** Compares in constant time for equal lengths (the length of a development password is no secret). */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

function send(response: ServerResponse, status: number, type: string, body: string, headers = {}): void {
  response.writeHead(status, { 'Content-Type': type, ...headers });
  response.end(body);
}

/**
 * Where the provider's pages may send a form: the clients' origins, since the provider answers
 * a form with a redirect to a client (its callback, its page after sign-out).
 */
function formTargetsOf(clients: readonly LocalOidcClient[]): string[] {
  const uris = clients.flatMap((client) => [
    ...client.redirectUris,
    ...(client.postLogoutRedirectUris ?? []),
  ]);
  return [...new Set(uris.map((uri) => new URL(uri).origin))];
}

/** The provider's configuration: the clients, the people, PKCE always, dev interactions off. */
function configuration(
  options: LocalOidcProviderOptions,
  people: readonly DevPerson[],
): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pageHeaders = signInPageSecurityHeaders(formTargetsOf(options.clients));
  return {
    clients: options.clients.map((client) => ({
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uris: client.redirectUris,
      post_logout_redirect_uris: client.postLogoutRedirectUris ?? [],
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    jwks: {
      keys: [
        {
          ...privateKey.export({ format: 'jwk' }),
          use: 'sig',
          alg: 'RS256',
          kid: randomBytes(8).toString('hex'),
        },
      ],
    },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    adapter: memoryAdapter(),
    features: {
      devInteractions: { enabled: false },
      // The console's sign-out goes on to here; the page is this provider's, as its sign-in page.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: KoaPage, form: string) => {
          ctx.set(pageHeaders);
          ctx.type = 'html';
          ctx.body = signOutPageHtml(form);
        },
      },
    },
    // Email and name go in the ID token itself, as Cognito puts them: the console reads no userinfo.
    conformIdTokenClaims: false,
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: 600,
      Interaction: 600,
      Grant: 12 * 3600,
      Session: 12 * 3600,
    },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, subject: string) => {
      const person = people.find((candidate) => candidate.subject === subject);
      if (!person) return undefined;
      return {
        accountId: person.subject,
        claims: async () => ({
          sub: person.subject,
          email: person.email,
          email_verified: person.emailVerified ?? true,
          name: person.name,
        }),
      };
    },
    // Every client here is the platform's own console: it is granted what it asks, with no consent page.
    loadExistingGrant: async (ctx: OidcContext) => {
      const { client, session, result, provider } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const grantId = result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      if (grantId) return provider.Grant.find(grantId);
      const grant = new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  };
}

/** The interaction's routes: its sign-in page and its form; everything else is the provider's. */
function interactionRoutes(
  provider: Provider,
  people: readonly DevPerson[],
  formTargets: readonly string[],
): (request: IncomingMessage, response: ServerResponse) => Promise<boolean> {
  const pageHeaders = signInPageSecurityHeaders(formTargets);
  const page = (response: ServerResponse, status: number, html: string) =>
    send(response, status, 'text/html; charset=utf-8', html, pageHeaders);
  return async (request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path === SIGN_IN_STYLESHEET_PATH && request.method === 'GET') {
      send(response, 200, 'text/css; charset=utf-8', SIGN_IN_STYLESHEET, { 'Cache-Control': 'no-cache' });
      return true;
    }
    const match = /^\/interaction\/([\w-]+)(\/login)?$/.exec(path);
    if (!match) return false;
    const details = await provider.interactionDetails(request, response);
    const clientId = String(details.params.client_id ?? '');
    const action = `/interaction/${details.uid}/login`;
    if (details.prompt.name !== 'login') {
      // Consent is granted by loadExistingGrant; any other prompt is not one this provider asks.
      await provider.interactionFinished(request, response, { error: 'access_denied' });
      return true;
    }
    if (!match[2] && request.method === 'GET') {
      page(response, 200, signInPageHtml({ action, clientId }));
      return true;
    }
    if (!match[2] || request.method !== 'POST') return false;
    const form = await readForm(request);
    const email = (form?.get('email') ?? '').trim();
    const password = form?.get('password') ?? '';
    const person = people.find((candidate) => candidate.email.toLowerCase() === email.toLowerCase());
    // Both compared, so a wrong email and a wrong password take the same path.
    const passwordMatches = sameText(person?.password ?? '', password) && person !== undefined;
    if (!person || !passwordMatches) {
      page(
        response,
        401,
        signInPageHtml({ action, clientId, email, error: 'The email or the password is not right.' }),
      );
      return true;
    }
    await provider.interactionFinished(
      request,
      response,
      { login: { accountId: person.subject } },
      { mergeWithLastSubmission: false },
    );
    return true;
  };
}

/** Starts the provider on loopback; its issuer is `http://<host>:<port>`. */
export async function startLocalOidcProvider(options: LocalOidcProviderOptions): Promise<LocalOidcProvider> {
  const Provider = await loadOidcProvider();
  const people = options.people ?? DEV_PEOPLE;
  const host = options.host ?? '127.0.0.1';
  let handle: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) =>
    send(response, 503, 'text/plain', 'starting');
  const server: Server = createServer((request, response) => handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, configuration(options, people));
  const providerCallback = provider.callback();
  const interactions = interactionRoutes(provider, people, formTargetsOf(options.clients));
  handle = (request, response) => {
    interactions(request, response).then(
      (handled) => {
        if (!handled) providerCallback(request, response);
      },
      () => {
        // An unknown or expired interaction (its cookie missing): start the sign-in again.
        if (!response.headersSent) {
          send(
            response,
            400,
            'text/plain; charset=utf-8',
            'This sign-in has expired: start it again from the console.',
          );
        }
      },
    );
  };
  return {
    issuer,
    people,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
