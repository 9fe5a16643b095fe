import { randomBytes } from 'node:crypto';
import { SIGN_IN_CALLBACK_PATH } from '../lambda/api/console-routes';
import type { ConsoleSignInSettings } from '../lambda/composition/console';
import { pendingSignInKey } from '../lambda/core/pending-sign-in';
import { OpenIdIdentityProvider } from '../lambda/store/openid-identity-provider';
import { CONSOLE_PAGE_PATH } from './console-site';
import { type LocalOidcProvider, newClientSecret, startLocalOidcProvider } from './oidc-provider';

/** The console's client id at the local provider (Cognito's app client has its own). */
export const LOCAL_CONSOLE_CLIENT_ID = 'animal-store-console';

export interface LocalSignIn {
  readonly provider: LocalOidcProvider;
  /** What the console function is given, as its AWS composition gives it from the environment. */
  readonly settings: ConsoleSignInSettings;
}

/**
 * Local mode's sign-in: the local OpenID provider on `providerPort`, knowing the console at
 * `http://localhost:<consolePort>` as its one confidential client (a secret of this run), and
 * the console's client of it, as in AWS but with the secret passed directly.
 */
export async function startLocalSignIn(consolePort: number, providerPort: number): Promise<LocalSignIn> {
  const consoleOrigin = `http://localhost:${consolePort}`;
  const callbackUrl = `${consoleOrigin}${SIGN_IN_CALLBACK_PATH}`;
  const clientSecret = newClientSecret();
  const provider = await startLocalOidcProvider({
    port: providerPort,
    clients: [
      {
        clientId: LOCAL_CONSOLE_CLIENT_ID,
        clientSecret,
        redirectUris: [callbackUrl],
        postLogoutRedirectUris: [`${consoleOrigin}${CONSOLE_PAGE_PATH}`],
      },
    ],
  });
  const key = pendingSignInKey(randomBytes(32));
  return {
    provider,
    settings: {
      identity: new OpenIdIdentityProvider({
        issuer: provider.issuer,
        clientId: LOCAL_CONSOLE_CLIENT_ID,
        clientSecret: async () => clientSecret,
        redirectUri: callbackUrl,
      }),
      pendingKey: async () => key,
      callbackUrl,
      movedHosts: [`127.0.0.1:${consolePort}`],
    },
  };
}
