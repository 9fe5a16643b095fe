import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { AuthDomainCertificate, authDomainHost } from '../../lib/constructs/auth-domain';
import {
  CONSOLE_OIDC_ENV,
  CONSOLE_TOKEN_VALIDITY,
  ConsoleIdentity,
  type ConsoleIdentityProps,
} from '../../lib/constructs/console-identity';
import { CONSOLE_API_PREFIX } from '../../lambda/api/console-routes';
import { EDGE_PARAMETERS } from '../../lib/edge-stack';
import {
  edgeOfProductionWithEdge,
  productionWithEdge,
  synthEnvironment,
  TEST_PLATFORM,
} from '../support/synth';
import {
  actionsOf,
  environmentOf,
  resourcesOfType,
  statementsOfFunction,
  templateJson,
  type CfnResource,
} from './template-queries';

const AUTH_HOST = `auth.${TEST_PLATFORM.domain}`;
const CONSOLE = `https://console.${TEST_PLATFORM.domain}`;

const template = productionWithEdge();

/** The one resource of a type; fails when there is not exactly one. */
function only(tpl: Template, type: string): [string, CfnResource] {
  const found = Object.entries(resourcesOfType(tpl, type));
  expect(found.map(([id]) => id)).toHaveLength(1);
  return found[0]!;
}

const [poolId, pool] = only(template, 'AWS::Cognito::UserPool');
const [clientId, client] = only(template, 'AWS::Cognito::UserPoolClient');
const [secretId, secret] = only(template, 'AWS::SecretsManager::Secret');

/** The template parameter that reads an SSM parameter at deploy, by the parameter's name. */
function ssmParameterId(name: string): string {
  const found = Object.entries(templateJson(template).Parameters ?? {}).find(
    ([, parameter]) => parameter.Type === 'AWS::SSM::Parameter::Value<String>' && parameter.Default === name,
  );
  if (!found) throw new Error(`No SSM parameter ${name}`);
  return found[0];
}

/** The console function: the one that answers /console/api. */
function consoleFunctionId(tpl: Template): string {
  const [id] = Object.entries(resourcesOfType(tpl, 'AWS::Lambda::Function')).find(([, fn]) =>
    String(fn.Properties.Description ?? '').startsWith(`${CONSOLE_API_PREFIX}/`),
  )!;
  return id;
}

describe('the user pool, in production where the edge serves it', () => {
  test('is on the Essentials feature plan', () => {
    expect(pool.Properties.UserPoolTier).toBe('ESSENTIALS');
  });

  test('offers passkeys as a first factor, passwords still allowed, and no email codes without SES', () => {
    expect(pool.Properties.Policies).toMatchObject({
      SignInPolicy: { AllowedFirstAuthFactors: ['PASSWORD', 'WEB_AUTHN'] },
    });
    // A passkey proves the device and its PIN or biometric.
    expect(pool.Properties.WebAuthnUserVerification).toBe('required');
    expect(pool.Properties.EmailConfiguration).toBeUndefined();
  });

  test("names the sign-in domain as the passkeys' relying party from the start", () => {
    expect(pool.Properties.WebAuthnRelyingPartyID).toBe(AUTH_HOST);
    expect(authDomainHost(TEST_PLATFORM.domain)).toBe(AUTH_HOST);
  });

  test('lets people sign themselves up with a verified email address, which is their name', () => {
    expect(pool.Properties).toMatchObject({
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: false },
      UsernameAttributes: ['email'],
      AutoVerifiedAttributes: ['email'],
      UsernameConfiguration: { CaseSensitive: false },
      UserAttributeUpdateSettings: { AttributesRequireVerificationBeforeUpdate: ['email'] },
      AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
    });
  });

  test('has deletion protection, and stays when it leaves the stack', () => {
    expect(pool.Properties.DeletionProtection).toBe('ACTIVE');
    expect(pool.DeletionPolicy).toBe('Retain');
    expect(pool.UpdateReplacePolicy).toBe('Retain');
  });

  test('requires long passwords of every character class, and offers TOTP as a second factor', () => {
    expect(pool.Properties.Policies).toMatchObject({
      PasswordPolicy: {
        MinimumLength: 12,
        RequireLowercase: true,
        RequireUppercase: true,
        RequireNumbers: true,
        RequireSymbols: true,
        PasswordHistorySize: 5,
      },
    });
    expect(pool.Properties.MfaConfiguration).toBe('OPTIONAL');
    expect(pool.Properties.EnabledMfas).toEqual(['SOFTWARE_TOKEN_MFA']);
  });
});

describe('its domain and managed login', () => {
  const [domainId, domain] = only(template, 'AWS::Cognito::UserPoolDomain');

  test('auth.<platform domain>, managed login version 2, with the certificate the edge stack hands over', () => {
    expect(domain.Properties).toEqual({
      Domain: AUTH_HOST,
      UserPoolId: { Ref: poolId },
      ManagedLoginVersion: 2,
      CustomDomainConfig: { CertificateArn: { Ref: ssmParameterId(EDGE_PARAMETERS.authCertificateArn) } },
    });
  });

  test('an alias A record for it in the platform zone, to the domain’s CloudFront distribution', () => {
    Template.fromJSON(templateJson(template)).hasResourceProperties('AWS::Route53::RecordSet', {
      Name: `${AUTH_HOST}.`,
      Type: 'A',
      HostedZoneId: TEST_PLATFORM.hostedZoneId,
      AliasTarget: { DNSName: { 'Fn::GetAtt': [domainId, 'CloudFrontDistribution'] } },
    });
  });

  test("the console client's branding uses Cognito's default style, once the domain exists", () => {
    const [, branding] = only(template, 'AWS::Cognito::ManagedLoginBranding');
    expect(branding.Properties).toEqual({
      UserPoolId: { Ref: poolId },
      ClientId: { Ref: clientId },
      UseCognitoProvidedValues: true,
    });
    expect((branding as { DependsOn?: string[] }).DependsOn).toContain(domainId);
  });
});

describe("the console's app client", () => {
  test('the authorization code flow alone, with openid, email and profile', () => {
    expect(client.Properties).toMatchObject({
      UserPoolId: { Ref: poolId },
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthScopes: ['openid', 'email', 'profile'],
      SupportedIdentityProviders: ['COGNITO'],
    });
  });

  test('is confidential: Cognito generates its secret (PKCE is sent by the client as well)', () => {
    expect(client.Properties.GenerateSecret).toBe(true);
  });

  test('choice-based sign-in for managed login, and no password flow through the API', () => {
    expect(client.Properties.ExplicitAuthFlows).toEqual(['ALLOW_USER_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']);
  });

  test("exactly the console's callback and sign-out URLs: no wildcard, no other host", () => {
    expect(client.Properties.CallbackURLs).toEqual([`${CONSOLE}/console/api/sign-in/callback`]);
    expect(client.Properties.LogoutURLs).toEqual([`${CONSOLE}/console/`]);
    for (const url of [
      ...(client.Properties.CallbackURLs as string[]),
      ...(client.Properties.LogoutURLs as string[]),
    ]) {
      expect(url).not.toContain('*');
      expect(new URL(url).origin).toBe(CONSOLE);
    }
  });

  test('short-lived tokens (the console keeps its own session), revocable, and no hint whether an account exists', () => {
    expect(client.Properties).toMatchObject({
      IdTokenValidity: CONSOLE_TOKEN_VALIDITY.idToken.toMinutes(),
      AccessTokenValidity: CONSOLE_TOKEN_VALIDITY.accessToken.toMinutes(),
      RefreshTokenValidity: CONSOLE_TOKEN_VALIDITY.refreshToken.toMinutes(),
      AuthSessionValidity: CONSOLE_TOKEN_VALIDITY.authSession.toMinutes(),
      TokenValidityUnits: { IdToken: 'minutes', AccessToken: 'minutes', RefreshToken: 'minutes' },
      EnableTokenRevocation: true,
      PreventUserExistenceErrors: 'ENABLED',
    });
  });
});

describe('the client secret and the console function', () => {
  const functionId = consoleFunctionId(template);

  test("the secret holds the client's generated secret, read from CloudFormation (no SDK call at deploy)", () => {
    expect(secret.Properties.SecretString).toEqual({ 'Fn::GetAtt': [clientId, 'ClientSecret'] });
    expect(secret.DeletionPolicy).toBe('Retain');
    expect(resourcesOfType(template, 'Custom::DescribeCognitoUserPoolClient')).toEqual({});
  });

  test('the function gets the issuer, the client id and the secret’s ARN, never its value', () => {
    const environment = environmentOf(template, functionId);
    expect(environment[CONSOLE_OIDC_ENV.clientId]).toEqual({ Ref: clientId });
    expect(environment[CONSOLE_OIDC_ENV.clientSecretArn]).toEqual({ Ref: secretId });
    // https://cognito-idp.<region>.amazonaws.com/<pool id>, the `iss` of the pool's tokens.
    expect(environment[CONSOLE_OIDC_ENV.issuer]).toEqual({
      'Fn::Join': [
        '',
        [
          'https://cognito-idp.',
          { Ref: 'AWS::Region' },
          '.',
          { Ref: 'AWS::URLSuffix' },
          '/',
          { Ref: poolId },
        ],
      ],
    });
    expect(Object.values(environment)).not.toContainEqual({ 'Fn::GetAtt': [clientId, 'ClientSecret'] });
  });

  test('may read that secret with GetSecretValue alone, and may do nothing else to the pool', () => {
    // In a policy of its own, which the function waits for.
    const [policyId] = Object.entries(resourcesOfType(template, 'AWS::IAM::Policy')).find(([, policy]) =>
      JSON.stringify(policy.Properties.PolicyDocument).includes(secretId),
    )!;
    expect(
      (resourcesOfType(template, 'AWS::Lambda::Function')[functionId] as { DependsOn?: string[] }).DependsOn,
    ).toContain(policyId);
    const statements = statementsOfFunction(template, functionId);
    const onSecret = statements.filter((statement) => JSON.stringify(statement.Resource).includes(secretId));
    expect(onSecret).toEqual([
      { Effect: 'Allow', Action: 'secretsmanager:GetSecretValue', Resource: { Ref: secretId } },
    ]);
    const cognito = statements.flatMap(actionsOf).filter((action) => action.startsWith('cognito-idp:'));
    expect(cognito).toEqual([]);
  });
});

describe('the certificate of auth.<platform domain>', () => {
  const edge = edgeOfProductionWithEdge();

  // In us-east-1: the certificate's construct is made nowhere else (the last test here), and
  // edge-stack.test.ts pins the app's edge stack there.
  test('is made in the edge stack, in us-east-1, DNS-validated in the platform zone', () => {
    edge.hasResourceProperties('AWS::CertificateManager::Certificate', {
      DomainName: AUTH_HOST,
      ValidationMethod: 'DNS',
      DomainValidationOptions: [{ DomainName: AUTH_HOST, HostedZoneId: TEST_PLATFORM.hostedZoneId }],
    });
  });

  test("its ARN is written in production's region, where the pool's domain reads it", () => {
    const [certificateId] = Object.entries(
      resourcesOfType(edge, 'AWS::CertificateManager::Certificate'),
    ).find(([, certificate]) => certificate.Properties.DomainName === AUTH_HOST)!;
    const writes = Object.values(resourcesOfType(edge, 'Custom::AWS')).map((call) =>
      JSON.stringify(call.Properties.Create),
    );
    const write = writes.find((call) => call.includes(EDGE_PARAMETERS.authCertificateArn));
    expect(write).toContain('"region\\":\\"eu-west-1\\"');
    expect(write).toContain(`{"Ref":"${certificateId}"}`);
  });

  test('cannot be made anywhere but us-east-1', () => {
    const stack = new Stack(new App(), 'Regional', { env: { region: 'eu-west-1' } });
    expect(() => new AuthDomainCertificate(stack, 'Certificate', { platform: TEST_PLATFORM })).toThrow(
      /in eu-west-1: Cognito's custom domain takes a certificate from us-east-1 only/,
    );
  });
});

describe('where there is no console, there is no pool', () => {
  test.each([
    ['staging', synthEnvironment('staging')],
    ['production without a platform domain', synthEnvironment('production')],
    [
      'production with a platform domain but no stated region (no edge)',
      synthEnvironment('production', { platformAddress: TEST_PLATFORM }),
    ],
  ])('%s', (_name, tpl) => {
    expect(Object.keys(resourcesOfType(tpl, 'AWS::Cognito::UserPool'))).toEqual([]);
    expect(Object.keys(resourcesOfType(tpl, 'AWS::Cognito::UserPoolClient'))).toEqual([]);
  });
});

/** The construct alone in a regional stack, with a stand-in function and certificate. */
function identityStack(props: Partial<ConsoleIdentityProps>): Template {
  // Without CDK's template validation: its WebAssembly compile costs several seconds of CPU in
  // each process, and it runs once per run over every stack the app deploys.
  const stack = new Stack(new App({ builtinCloudFormationValidation: false }), 'Identity', {
    env: { account: '123456789012', region: 'eu-west-1' },
  });
  const consoleFunction = new LambdaFunction(stack, 'Console', {
    runtime: Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: Code.fromInline('exports.handler = async () => ({})'),
  });
  new ConsoleIdentity(stack, 'Identity', {
    platform: TEST_PLATFORM,
    certificate: Certificate.fromCertificateArn(
      stack,
      'Certificate',
      'arn:aws:acm:us-east-1:123456789012:certificate/0d3e6e2f-1c2b-4a5d-8e9f-0123456789ab',
    ),
    consoleFunction,
    ...props,
  });
  return Template.fromStack(stack);
}

describe('with SES set up', () => {
  const withSes = identityStack({
    email: { fromEmail: 'no-reply@animalstore.example', sesVerifiedDomain: 'animalstore.example' },
  });

  test('email one-time codes become a first factor and a second factor, sent through SES', () => {
    withSes.hasResourceProperties('AWS::Cognito::UserPool', {
      Policies: Match.objectLike({
        SignInPolicy: { AllowedFirstAuthFactors: ['PASSWORD', 'EMAIL_OTP', 'WEB_AUTHN'] },
      }),
      EnabledMfas: ['SOFTWARE_TOKEN_MFA', 'EMAIL_OTP'],
      EmailConfiguration: {
        EmailSendingAccount: 'DEVELOPER',
        From: 'Animal Store <no-reply@animalstore.example>',
        SourceArn: {
          'Fn::Join': [
            '',
            ['arn:', { Ref: 'AWS::Partition' }, ':ses:eu-west-1:123456789012:identity/animalstore.example'],
          ],
        },
      },
    });
  });

  test("production's configuration turns them on (-c signInEmailFrom=…)", () => {
    const configured = productionWithEdge({
      signInEmail: { fromEmail: 'no-reply@animalstore.example', sesVerifiedDomain: 'animalstore.example' },
    });
    configured.hasResourceProperties('AWS::Cognito::UserPool', {
      Policies: Match.objectLike({
        SignInPolicy: { AllowedFirstAuthFactors: ['PASSWORD', 'EMAIL_OTP', 'WEB_AUTHN'] },
      }),
      EmailConfiguration: Match.objectLike({ EmailSendingAccount: 'DEVELOPER' }),
    });
  });

  test('a malformed sender stops synth with its fix', () => {
    expect(() => identityStack({ email: { fromEmail: 'no-reply' } })).toThrow(
      /sign-in email sender "no-reply": use one address of a verified SES identity/,
    );
  });
});

describe("an Enterprise tenant's own identity provider", () => {
  const withProviders = identityStack({
    enterpriseProviders: [
      {
        kind: 'saml',
        name: 'AcmeCorp',
        metadataUrl: 'https://idp.acme.example/metadata.xml',
        emailDomains: ['acme.example'],
      },
      {
        kind: 'oidc',
        name: 'Globex',
        issuerUrl: 'https://login.globex.example',
        clientId: 'animal-store',
        clientSecretName: 'animal-store/idp/globex',
        emailDomains: ['globex.example'],
      },
    ],
  });

  test('a SAML provider from its metadata URL, its email domain sent straight to it', () => {
    withProviders.hasResourceProperties('AWS::Cognito::UserPoolIdentityProvider', {
      ProviderName: 'AcmeCorp',
      ProviderType: 'SAML',
      IdpIdentifiers: ['acme.example'],
      ProviderDetails: Match.objectLike({ MetadataURL: 'https://idp.acme.example/metadata.xml' }),
    });
  });

  test('an OIDC provider whose client secret is a reference resolved at deploy, never the value', () => {
    withProviders.hasResourceProperties('AWS::Cognito::UserPoolIdentityProvider', {
      ProviderName: 'Globex',
      ProviderType: 'OIDC',
      ProviderDetails: Match.objectLike({
        oidc_issuer: 'https://login.globex.example',
        client_secret: '{{resolve:secretsmanager:animal-store/idp/globex:SecretString:::}}',
      }),
    });
  });

  test("the console's client offers both beside the pool's own accounts", () => {
    const providers = Object.entries(
      resourcesOfType(withProviders, 'AWS::Cognito::UserPoolIdentityProvider'),
    );
    const idOf = (name: string) =>
      providers.find(([, provider]) => provider.Properties.ProviderName === name)![0];
    withProviders.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      SupportedIdentityProviders: ['COGNITO', { Ref: idOf('AcmeCorp') }, { Ref: idOf('Globex') }],
    });
  });

  test('a provider without HTTPS, or a repeated name, stops synth with its fix', () => {
    const saml = {
      kind: 'saml',
      name: 'AcmeCorp',
      metadataUrl: 'http://idp.acme.example',
      emailDomains: [],
    } as const;
    expect(() =>
      identityStack({ enterpriseProviders: [saml, { ...saml, metadataUrl: 'https://x.example' }] }),
    ).toThrow(/"http:\/\/idp.acme.example" must be an https:\/\/ URL[\s\S]*"AcmeCorp": use a unique name/);
  });
});
