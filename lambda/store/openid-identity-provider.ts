import * as oidc from 'openid-client';
import {
  type IdentityProvider,
  type PendingSignIn,
  type Person,
  type SignInRefusal,
  SignInRefusedError,
} from '../core/identity';

/**
 * The console's OpenID Connect client (issue 26), over `openid-client`: the authorization code
 * flow with PKCE (S256), `state` and `nonce`, as a confidential client (`client_secret_basic`).
 * Cognito in AWS, the local `oidc-provider` in local mode. `openid-client` checks the return
 * fully: `state`, the `iss` response parameter (RFC 9207), the code at the token endpoint with
 * its verifier, and the ID token's signature (from the provider's JWKS), issuer, audience,
 * expiry and nonce. Every failure is a {@link SignInRefusedError}.
 */

export interface OpenIdSettings {
  /** The provider's issuer URL; plain HTTP only for a loopback host (local mode). */
  readonly issuer: string;
  readonly clientId: string;
  /** Read when first needed (Secrets Manager in AWS); never logged. */
  readonly clientSecret: () => Promise<string>;
  /** The console's callback, registered exactly at the provider. */
  readonly redirectUri: string;
  /** @default 'openid email profile' */
  readonly scope?: string;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** True when a URL's host is this machine's loopback, the one place plain HTTP is allowed. */
export function isLoopbackUrl(url: URL): boolean {
  return LOOPBACK_HOSTS.has(url.hostname.toLowerCase());
}

/** The issuer as a URL, refused at construction unless HTTPS, or HTTP on loopback. */
function issuerUrl(issuer: string): URL {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new Error(
      `OIDC issuer ${JSON.stringify(issuer)} is not a URL: set OIDC_ISSUER to the provider's issuer.`,
    );
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackUrl(url))) return url;
  throw new Error(
    `OIDC issuer ${issuer} must use https: (plain http is allowed only for a loopback host, in local mode).`,
  );
}

/** The errors along a chain of causes, outermost first. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at = error; at !== undefined && chain.length < 5; at = (at as { cause?: unknown }).cause) {
    chain.push(at);
    if (typeof at !== 'object' || at === null) break;
  }
  return chain;
}

/** Which refusal an `openid-client` failure is: its error classes, codes and the claim compared. */
export function refusalOf(error: unknown): SignInRefusal {
  if (error instanceof oidc.AuthorizationResponseError) return 'provider_error';
  if (error instanceof oidc.ResponseBodyError) {
    return error.error === 'invalid_grant' ? 'code_rejected' : 'provider_error';
  }
  for (const cause of causes(error)) {
    const {
      message = '',
      code,
      claim,
    } = (cause ?? {}) as { message?: string; code?: string; claim?: string };
    if (claim === 'nonce') return 'nonce_mismatch';
    if (claim === 'iss') return 'wrong_issuer';
    if (code === 'OAUTH_INVALID_RESPONSE' && message.includes('"state"')) return 'state_mismatch';
    if (code === 'OAUTH_INVALID_RESPONSE' && message.includes('"iss"')) return 'wrong_issuer';
    if (code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || code === 'OAUTH_RESPONSE_IS_NOT_JSON') {
      return 'provider_unavailable';
    }
  }
  // fetch's own failure (refused connection, timeout): the provider could not be reached. By
  // name, not class, and as a cause too: fetch's TypeError may come from another realm (a VM
  // context, as jest's), which openid-client then wraps in its ClientError.
  const unreachable = ['TypeError', 'AbortError', 'TimeoutError'];
  if (causes(error).some((cause) => unreachable.includes((cause as { name?: string } | null)?.name ?? '')))
    return 'provider_unavailable';
  return 'token_invalid';
}

function refused(error: unknown, what: string): SignInRefusedError {
  if (error instanceof SignInRefusedError) return error;
  const refusal = refusalOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  return new SignInRefusedError(refusal, `${what}: ${refusal} (${detail})`);
}

/**
 * Cognito's sign-out, which its discovery does not name: `/logout` on the pool's domain (the
 * authorization endpoint's), with the client and its registered sign-out URL (`logout_uri`).
 * Undefined for any other provider without an end-session endpoint.
 */
export function cognitoLogoutUrl(
  metadata: { readonly issuer: string; readonly authorization_endpoint?: string },
  clientId: string,
  afterSignOut: string,
): string | undefined {
  const issuer = new URL(metadata.issuer);
  if (
    !/^cognito-idp\.[a-z0-9-]+\.amazonaws\.com$/.test(issuer.hostname) ||
    !metadata.authorization_endpoint
  ) {
    return undefined;
  }
  const logout = new URL('/logout', metadata.authorization_endpoint);
  logout.search = new URLSearchParams({ client_id: clientId, logout_uri: afterSignOut }).toString();
  return logout.href;
}

export class OpenIdIdentityProvider implements IdentityProvider {
  private readonly issuer: URL;
  private configuration?: Promise<oidc.Configuration>;

  constructor(private readonly settings: OpenIdSettings) {
    this.issuer = issuerUrl(settings.issuer);
    new URL(settings.redirectUri);
  }

  /** Discovery, once per process (again after a failure). */
  private config(): Promise<oidc.Configuration> {
    this.configuration ??= (async () => {
      const secret = await this.settings.clientSecret();
      return oidc.discovery(
        this.issuer,
        this.settings.clientId,
        { redirect_uris: [this.settings.redirectUri], response_types: ['code'] },
        oidc.ClientSecretBasic(secret),
        {
          timeout: 5,
          ...(this.issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}),
        },
      );
    })();
    const pending = this.configuration;
    pending.catch(() => {
      if (this.configuration === pending) this.configuration = undefined;
    });
    return pending;
  }

  private async configOrRefuse(): Promise<oidc.Configuration> {
    try {
      return await this.config();
    } catch (error) {
      throw new SignInRefusedError(
        'provider_unavailable',
        `The identity provider ${this.issuer.href} could not be discovered: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  async start(returnTo: string): Promise<{ url: string; pending: PendingSignIn }> {
    const config = await this.configOrRefuse();
    const pending: PendingSignIn = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      returnTo,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope: this.settings.scope ?? 'openid email profile',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending };
  }

  async finish(callbackUrl: string, pending: PendingSignIn): Promise<Person> {
    const config = await this.configOrRefuse();
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, new URL(callbackUrl), {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      throw refused(error, 'The sign-in was refused');
    }
    if (!claims || typeof claims.email !== 'string') {
      throw new SignInRefusedError('token_invalid', 'The ID token names no email address (scope "email").');
    }
    const identityProvider = identityProviderOf(claims.identities);
    return {
      issuer: claims.iss,
      subject: claims.sub,
      email: claims.email,
      emailVerified: claims.email_verified === true,
      ...(typeof claims.name === 'string' ? { name: claims.name } : {}),
      ...(identityProvider === undefined ? {} : { identityProvider }),
    };
  }

  async signOutUrl(afterSignOut: string): Promise<string | undefined> {
    const config = await this.configOrRefuse();
    const metadata = config.serverMetadata();
    if (!metadata.end_session_endpoint) {
      return cognitoLogoutUrl(metadata, this.settings.clientId, afterSignOut);
    }
    return oidc.buildEndSessionUrl(config, { post_logout_redirect_uri: afterSignOut }).href;
  }
}

/**
 * The federated provider Cognito names in an ID token's `identities` claim (an array of
 * `{providerName, providerType, …}`, present only for a person who signed in through one).
 */
export function identityProviderOf(identities: unknown): string | undefined {
  if (!Array.isArray(identities)) return undefined;
  const [first] = identities as unknown[];
  const name = (first as { providerName?: unknown } | undefined)?.providerName;
  return typeof name === 'string' && name.length > 0 ? name : undefined;
}
