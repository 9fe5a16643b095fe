/**
 * People, as an OpenID provider vouches for them (issue 26). The console signs a person in with
 * the authorization code flow and PKCE; this is what the rest of the service may know of them.
 * The provider is a port: Cognito in AWS, a local `oidc-provider` in local mode, both spoken to
 * through `openid-client` (lambda/store/).
 */

/** A signed-in person: the provider's subject is their identity; email and name are as shown. */
export interface Person {
  /** The ID token's `iss`. */
  readonly issuer: string;
  /** The ID token's `sub`: stable for the person at this issuer. */
  readonly subject: string;
  readonly email: string;
  /** The provider's `email_verified`; invitations (issue 27) accept only verified addresses. */
  readonly emailVerified: boolean;
  readonly name?: string;
  /**
   * The enterprise identity provider that asserted the email (Cognito's `identities[0].providerName`,
   * issue 27); absent for the user pool's own accounts and the local provider. Such an email
   * accepts invitations only within that provider's own email domains (lambda/core/invitations.ts).
   */
  readonly identityProvider?: string;
}

/**
 * What a sign-in keeps between sending the browser to the provider and its return: kept by the
 * console (never in the page's reach) and used once.
 */
export interface PendingSignIn {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  /** The console path to land on after sign-in. */
  readonly returnTo: string;
}

/** Why a return from the provider is refused; each is a distinct, testable refusal. */
export type SignInRefusal =
  | 'state_mismatch'
  | 'code_rejected'
  | 'nonce_mismatch'
  | 'wrong_issuer'
  | 'token_invalid'
  | 'provider_error'
  | 'provider_unavailable';

export class SignInRefusedError extends Error {
  constructor(
    readonly refusal: SignInRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'SignInRefusedError';
  }
}

/** The provider, as the console uses it. */
export interface IdentityProvider {
  /** Where to send the browser, and what to keep until it comes back. */
  start(returnTo: string): Promise<{ readonly url: string; readonly pending: PendingSignIn }>;
  /**
   * Checks a return (the callback URL as received) against what was kept: `state`, the code
   * with its PKCE verifier, and the ID token (issuer, audience, expiry, nonce, signature from
   * the provider's keys). Throws {@link SignInRefusedError}.
   */
  finish(callbackUrl: string, pending: PendingSignIn): Promise<Person>;
  /** The provider's sign-out address, returning to `afterSignOut`; undefined when it has none. */
  signOutUrl(afterSignOut: string): Promise<string | undefined>;
}
