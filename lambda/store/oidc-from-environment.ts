import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { IdentityProvider } from '../core/identity';
import { pendingSignInKey } from '../core/pending-sign-in';
import { optionalEnv, RUNTIME_ENV } from '../shared/runtime-env';
import { OpenIdIdentityProvider } from './openid-identity-provider';

/**
 * The console's OpenID client in AWS, from the stack's environment (issue 26): the issuer, the
 * app client's id, and its secret in Secrets Manager, read at the first sign-in of a function
 * instance and kept (a failed read is tried again at the next). The secret is never logged.
 */

/** Reads a secret's current string once, and again only after a failure. */
export function secretStringSource(client: SecretsManagerClient, secretId: string): () => Promise<string> {
  let reading: Promise<string> | undefined;
  return () => {
    reading ??= (async () => {
      const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
      if (!SecretString)
        throw new Error(`Secret ${secretId} has no string value: store the client secret as one.`);
      return SecretString;
    })();
    const current = reading;
    current.catch(() => {
      if (reading === current) reading = undefined;
    });
    return current;
  };
}

export interface OpenIdSignInSettings {
  readonly identity: IdentityProvider;
  readonly pendingKey: () => Promise<Buffer>;
  readonly callbackUrl: string;
}

/**
 * The sign-in's settings when OIDC_ISSUER is set (then the client id and the secret's ARN must
 * be too); undefined without it, and the console takes console tokens only.
 */
export function openIdSignInFromEnv(
  callbackUrl: string,
  client: SecretsManagerClient = new SecretsManagerClient({}),
): OpenIdSignInSettings | undefined {
  const issuer = optionalEnv(RUNTIME_ENV.oidcIssuer);
  if (issuer === undefined) return undefined;
  const clientId = optionalEnv(RUNTIME_ENV.oidcClientId);
  const secretArn = optionalEnv(RUNTIME_ENV.oidcClientSecretArn);
  if (clientId === undefined || secretArn === undefined) {
    throw new Error(
      `${RUNTIME_ENV.oidcIssuer} is set, so ${RUNTIME_ENV.oidcClientId} and ${RUNTIME_ENV.oidcClientSecretArn} must be too: the stack sets all three.`,
    );
  }
  const clientSecret = secretStringSource(client, secretArn);
  let key: Promise<Buffer> | undefined;
  return {
    identity: new OpenIdIdentityProvider({ issuer, clientId, clientSecret, redirectUri: callbackUrl }),
    // The cookie's key comes from the client secret: material only this function reads.
    pendingKey: () => {
      key ??= clientSecret().then((secret) => pendingSignInKey(secret));
      key.catch(() => (key = undefined));
      return key;
    },
    callbackUrl,
  };
}
