import { SignInRefusedError } from '../../../lambda/core/identity';
import { cognitoLogoutUrl, OpenIdIdentityProvider } from '../../../lambda/store/openid-identity-provider';
import { DEV_OWNER, DEV_VIEWER } from '../../../local/dev-people';
import {
  type LocalOidcProvider,
  newClientSecret,
  startLocalOidcProvider,
} from '../../../local/oidc-provider';
import { signInAtProvider } from '../../support/local-oidc';

/**
 * The console's OpenID client against the real local provider over real HTTP: a full sign-in,
 * and each tampering the issue names, refused with its reason.
 */
const REDIRECT_URI = 'http://localhost:9/console/api/sign-in/callback';
const CLIENT_ID = 'animal-store-console';
const secret = newClientSecret();
const clients = [{ clientId: CLIENT_ID, clientSecret: secret, redirectUris: [REDIRECT_URI] }];

let provider: LocalOidcProvider;
let foreign: LocalOidcProvider;
let client: OpenIdIdentityProvider;

beforeAll(async () => {
  [provider, foreign] = await Promise.all([
    startLocalOidcProvider({ port: 0, clients }),
    startLocalOidcProvider({ port: 0, clients }),
  ]);
  client = new OpenIdIdentityProvider({
    issuer: provider.issuer,
    clientId: CLIENT_ID,
    clientSecret: async () => secret,
    redirectUri: REDIRECT_URI,
  });
});

afterAll(async () => {
  await Promise.all([provider?.close(), foreign?.close()]);
});

async function refusalOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(SignInRefusedError);
  return (error as SignInRefusedError).refusal;
}

async function signedInReturn(person = DEV_OWNER, at = client) {
  const { url, pending } = await at.start('/console/');
  const visit = await signInAtProvider(url, person.email, person.password);
  if (!visit.callbackUrl) throw new Error(`no callback: ${visit.status} ${visit.html ?? ''}`);
  return { callbackUrl: visit.callbackUrl, pending };
}

test('a full sign-in returns the person the provider vouches for', async () => {
  const { url, pending } = await client.start('/console/keys');
  const authorization = new URL(url);
  expect(authorization.origin).toBe(provider.issuer);
  expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
  });
  expect(pending.returnTo).toBe('/console/keys');
  const visit = await signInAtProvider(url, DEV_OWNER.email, DEV_OWNER.password);
  expect(visit.callbackUrl?.startsWith(`${REDIRECT_URI}?`)).toBe(true);
  await expect(client.finish(visit.callbackUrl ?? '', pending)).resolves.toEqual({
    issuer: provider.issuer,
    subject: 'dev-owner',
    email: 'owner@dev.animalstore.localhost',
    emailVerified: true,
    name: 'Dev Owner',
  });
});

test('the viewer signs in as the viewer', async () => {
  const { callbackUrl, pending } = await signedInReturn(DEV_VIEWER);
  expect((await client.finish(callbackUrl, pending)).subject).toBe('dev-viewer');
});

test('a tampered state is refused', async () => {
  const { callbackUrl, pending } = await signedInReturn();
  const tampered = new URL(callbackUrl);
  tampered.searchParams.set('state', `${pending.state}x`);
  expect(await refusalOf(client.finish(tampered.href, pending))).toBe('state_mismatch');
});

test('a return kept for another sign-in (another state) is refused', async () => {
  const first = await signedInReturn();
  const second = await client.start('/console/');
  expect(await refusalOf(client.finish(first.callbackUrl, second.pending))).toBe('state_mismatch');
});

test('a replayed code is refused', async () => {
  const { callbackUrl, pending } = await signedInReturn();
  await client.finish(callbackUrl, pending);
  expect(await refusalOf(client.finish(callbackUrl, pending))).toBe('code_rejected');
});

test('a wrong PKCE verifier is refused by the provider', async () => {
  const { callbackUrl, pending } = await signedInReturn();
  const verifier = `${pending.codeVerifier.slice(0, -1)}${pending.codeVerifier.endsWith('A') ? 'B' : 'A'}`;
  expect(await refusalOf(client.finish(callbackUrl, { ...pending, codeVerifier: verifier }))).toBe(
    'code_rejected',
  );
});

test('a wrong nonce is refused', async () => {
  const { callbackUrl, pending } = await signedInReturn();
  expect(await refusalOf(client.finish(callbackUrl, { ...pending, nonce: `${pending.nonce}x` }))).toBe(
    'nonce_mismatch',
  );
});

test('a return from a foreign issuer is refused', async () => {
  const foreignClient = new OpenIdIdentityProvider({
    issuer: foreign.issuer,
    clientId: CLIENT_ID,
    clientSecret: async () => secret,
    redirectUri: REDIRECT_URI,
  });
  const { callbackUrl, pending } = await signedInReturn(DEV_OWNER, foreignClient);
  expect(new URL(callbackUrl).searchParams.get('iss')).toBe(foreign.issuer);
  expect(await refusalOf(client.finish(callbackUrl, pending))).toBe('wrong_issuer');
  // Nor may it drop its `iss`: this provider announces that it always sends one (RFC 9207).
  const stripped = new URL(callbackUrl);
  stripped.searchParams.delete('iss');
  expect(await refusalOf(client.finish(stripped.href, pending))).toBe('wrong_issuer');
});

test("a wrong password is refused on the provider's own page, which never returns to the client", async () => {
  const { url } = await client.start('/console/');
  const visit = await signInAtProvider(url, DEV_OWNER.email, 'not-the-password');
  expect(visit.status).toBe(401);
  expect(visit.callbackUrl).toBeUndefined();
  expect(visit.html).toContain('The email or the password is not right.');
  const unknown = await signInAtProvider(url, 'nobody@dev.animalstore.localhost', DEV_OWNER.password);
  expect(unknown.status).toBe(401);
});

test('the provider refuses an authorization request without PKCE', async () => {
  const { url } = await client.start('/console/');
  const withoutPkce = new URL(url);
  withoutPkce.searchParams.delete('code_challenge');
  withoutPkce.searchParams.delete('code_challenge_method');
  const visit = await signInAtProvider(withoutPkce.href, DEV_OWNER.email, DEV_OWNER.password);
  const callback = new URL(visit.callbackUrl ?? 'http://none/');
  expect(callback.searchParams.get('error')).toBe('invalid_request');
});

test('an error returned by the provider is a provider_error refusal', async () => {
  const { url, pending } = await client.start('/console/');
  const withoutPkce = new URL(url);
  withoutPkce.searchParams.delete('code_challenge');
  const visit = await signInAtProvider(withoutPkce.href, DEV_OWNER.email, DEV_OWNER.password);
  expect(await refusalOf(client.finish(visit.callbackUrl ?? '', pending))).toBe('provider_error');
});

test('plain HTTP is refused for an issuer that is not loopback', () => {
  const settings = { clientId: CLIENT_ID, clientSecret: async () => secret, redirectUri: REDIRECT_URI };
  expect(() => new OpenIdIdentityProvider({ ...settings, issuer: 'http://id.example.com' })).toThrow(/https/);
  expect(
    () => new OpenIdIdentityProvider({ ...settings, issuer: 'http://localhost.example.com:80' }),
  ).toThrow(/https/);
  expect(() => new OpenIdIdentityProvider({ ...settings, issuer: 'https://id.example.com' })).not.toThrow();
});

test('an unreachable provider is provider_unavailable', async () => {
  const closed = await startLocalOidcProvider({ port: 0, clients });
  await closed.close();
  const unreachable = new OpenIdIdentityProvider({
    issuer: closed.issuer,
    clientId: CLIENT_ID,
    clientSecret: async () => secret,
    redirectUri: REDIRECT_URI,
  });
  expect(await refusalOf(unreachable.start('/console/'))).toBe('provider_unavailable');
});

test("the sign-out address is the provider's end-session endpoint", async () => {
  const url = new URL((await client.signOutUrl('http://localhost:9/console/')) ?? '');
  expect(`${url.origin}${url.pathname}`).toBe(`${provider.issuer}/session/end`);
});

test("Cognito's sign-out, which its discovery does not name, is /logout on the pool's domain with the registered sign-out URL", () => {
  const cognito = {
    issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbCdEf123',
    authorization_endpoint: 'https://auth.animalstore.example/oauth2/authorize',
  };
  expect(cognitoLogoutUrl(cognito, 'client-1', 'https://console.animalstore.example/console/')).toBe(
    'https://auth.animalstore.example/logout?client_id=client-1&logout_uri=https%3A%2F%2Fconsole.animalstore.example%2Fconsole%2F',
  );
  // Another provider without an end-session endpoint has no sign-out to go through.
  expect(
    cognitoLogoutUrl(
      { issuer: 'https://idp.example', authorization_endpoint: 'https://idp.example/authorize' },
      'client-1',
      'https://console.animalstore.example/console/',
    ),
  ).toBeUndefined();
});
