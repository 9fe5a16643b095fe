import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { openIdSignInFromEnv, secretStringSource } from '../../../lambda/store/oidc-from-environment';

/** Secrets Manager cannot run here: its client is mocked, shaped as its documented GetSecretValue. */
const secrets = mockClient(SecretsManagerClient);
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:console-oidc-client-AbCdEf';
const CALLBACK = 'https://console.example.com/console/api/sign-in/callback';
const saved = { ...process.env };

afterEach(() => {
  secrets.reset();
  process.env = { ...saved };
});

test('the secret is read once, and again only after a failed read', async () => {
  secrets
    .on(GetSecretValueCommand, { SecretId: SECRET_ARN })
    .rejectsOnce(new Error('throttled'))
    .resolves({ ARN: SECRET_ARN, Name: 'console-oidc-client', SecretString: 'client-secret' });
  const read = secretStringSource(new SecretsManagerClient({ region: 'eu-west-1' }), SECRET_ARN);
  await expect(read()).rejects.toThrow('throttled');
  await expect(read()).resolves.toBe('client-secret');
  await expect(read()).resolves.toBe('client-secret');
  expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
});

test('without OIDC_ISSUER the console takes console tokens only', () => {
  delete process.env.OIDC_ISSUER;
  expect(openIdSignInFromEnv(CALLBACK)).toBeUndefined();
});

test('an issuer without its client id or secret fails at start, naming them', () => {
  process.env.OIDC_ISSUER = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc';
  delete process.env.OIDC_CLIENT_ID;
  expect(() => openIdSignInFromEnv(CALLBACK)).toThrow(/OIDC_CLIENT_ID and OIDC_CLIENT_SECRET_ARN/);
});

test('a plain-HTTP issuer that is not loopback fails at start', () => {
  Object.assign(process.env, {
    OIDC_ISSUER: 'http://id.example.com',
    OIDC_CLIENT_ID: 'console',
    OIDC_CLIENT_SECRET_ARN: SECRET_ARN,
  });
  expect(() => openIdSignInFromEnv(CALLBACK)).toThrow(/https/);
});

test("the sign-in cookie's key is derived from the client secret, read once", async () => {
  Object.assign(process.env, {
    OIDC_ISSUER: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc',
    OIDC_CLIENT_ID: 'console',
    OIDC_CLIENT_SECRET_ARN: SECRET_ARN,
  });
  secrets.on(GetSecretValueCommand).resolves({ SecretString: 'client-secret' });
  const settings = openIdSignInFromEnv(CALLBACK, new SecretsManagerClient({ region: 'eu-west-1' }));
  const key = await settings?.pendingKey();
  expect(key).toHaveLength(32);
  expect((await settings?.pendingKey())?.equals(key ?? Buffer.alloc(0))).toBe(true);
  expect(settings?.callbackUrl).toBe(CALLBACK);
  expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
});
