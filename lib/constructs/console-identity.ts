import { type CfnResource, Duration, RemovalPolicy, SecretValue, Stack, Validations } from 'aws-cdk-lib';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AccountRecovery,
  CfnManagedLoginBranding,
  type CfnUserPoolClient,
  FeaturePlan,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  PasskeyUserVerification,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
  UserPoolEmail,
} from 'aws-cdk-lib/aws-cognito';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { CloudFrontTarget } from 'aws-cdk-lib/aws-route53-targets';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { SIGN_IN_CALLBACK_PATH } from '../../lambda/api/console-routes';
import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import type { PlatformAddressConfig } from '../config/platform';
import { type SignInEmailConfig, signInEmailProblems } from '../config/sign-in-email';
import { authDomainHost } from './auth-domain';
import { consoleSiteOrigin } from './console-site';
import { CONSOLE_PAGE_PREFIX } from './console-path-function';
import {
  addEnterpriseProvider,
  type EnterpriseProvider,
  enterpriseProviderProblems,
} from './enterprise-providers';

export type { EnterpriseProvider, SignInEmailConfig };

/**
 * Where the provider sends the browser back with the code: the console function's callback
 * route (lambda/api/console-routes.ts), under `/console/api/*` so the console distribution
 * sends it to the function.
 */
export const CONSOLE_SIGN_IN_CALLBACK_PATH = SIGN_IN_CALLBACK_PATH;

/** Where the provider's sign-out returns: the console page. */
export const CONSOLE_SIGNED_OUT_PATH = `/${CONSOLE_PAGE_PREFIX}/`;

/** The console's exact callback URL, `https://console.<platform domain>/console/api/sign-in/callback`. */
export function consoleCallbackUrl(platformDomain: string): string {
  return `${consoleSiteOrigin(platformDomain)}${CONSOLE_SIGN_IN_CALLBACK_PATH}`;
}

/** The console's exact sign-out URL, `https://console.<platform domain>/console/`. */
export function consoleSignedOutUrl(platformDomain: string): string {
  return `${consoleSiteOrigin(platformDomain)}${CONSOLE_SIGNED_OUT_PATH}`;
}

/**
 * The console function's variables for its OpenID client (the contract with the sign-in code):
 * the issuer it discovers, its client id, and the ARN of its client secret (never the value).
 */
export const CONSOLE_OIDC_ENV = {
  issuer: RUNTIME_ENV.oidcIssuer,
  clientId: RUNTIME_ENV.oidcClientId,
  clientSecretArn: RUNTIME_ENV.oidcClientSecretArn,
} as const;

/**
 * The console client's token lifetimes. The console reads the ID token once, at the callback,
 * and then keeps its own session (the `__Host-` cookie), so the tokens only need to outlive
 * the exchange: Cognito's minimums for the ID, access and refresh tokens (the console never
 * keeps the refresh token). The sign-in itself (managed login's session) may take 10 minutes:
 * time to read an emailed code or find a security key.
 */
export const CONSOLE_TOKEN_VALIDITY = {
  idToken: Duration.minutes(5),
  accessToken: Duration.minutes(5),
  refreshToken: Duration.minutes(60),
  authSession: Duration.minutes(10),
} as const;

/** Properties of {@link ConsoleIdentity}. */
export interface ConsoleIdentityProps {
  /** The platform domain and its zone: the pool's domain is `auth.<domain>`, the console `console.<domain>`. */
  readonly platform: PlatformAddressConfig;
  /**
   * The certificate of `auth.<platform domain>`, in us-east-1 (Cognito's custom domain is a
   * CloudFront distribution): the edge stack's {@link AuthDomainCertificate}, handed over.
   */
  readonly certificate: ICertificate;
  /** The console function: it gets the client's settings and may read the client secret, nothing more. */
  readonly consoleFunction: LambdaFunction;
  /**
   * Email through SES: turns on one-time email codes as a first factor and as a second factor.
   * @default Cognito's own email (verification and recovery only, 50 a day): no email codes
   */
  readonly email?: SignInEmailConfig;
  /**
   * Companies' own identity providers, offered on the sign-in page beside the pool's accounts.
   * @default none
   */
  readonly enterpriseProviders?: readonly EnterpriseProvider[];
  /**
   * Cognito's deletion protection on the pool (its people and passkeys cannot be recreated).
   * @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * What happens to the pool and the secret when they leave the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/** Every problem of the props, each naming the bad value and its fix; empty when valid. */
function propsProblems(props: ConsoleIdentityProps): string[] {
  return [
    ...(props.consoleFunction.role === undefined
      ? ['consoleFunction has no role: give it one, so it can be allowed to read the client secret.']
      : []),
    ...(props.email === undefined ? [] : signInEmailProblems(props.email)),
    ...enterpriseProviderProblems(props.enterpriseProviders ?? []),
  ];
}

/**
 * The console's sign-in in AWS: an Amazon Cognito user pool on the Essentials feature plan,
 * its managed login (version 2, Cognito's default branding) at `auth.<platform domain>`, and
 * one confidential app client for the console function.
 *
 * - People sign in with a passkey (user verification required, so a passkey is two factors),
 *   a password (managed login needs one at sign-up), or, where SES is set up, an emailed code.
 *   Anyone may create an account: an account alone reaches nothing, since the console admits a
 *   person only to the projects that made them a member, and invitations (issue 26, part 2) are
 *   accepted by people who sign themselves up with the invited, verified address.
 * - The client: the authorization code flow alone, openid/email/profile, a secret (the console
 *   function is a confidential client, which also sends PKCE), exactly the console's callback
 *   and sign-out URLs. Its secret goes into Secrets Manager; the function may read that secret,
 *   and gets the issuer and client id as variables ({@link CONSOLE_OIDC_ENV}).
 */
export class ConsoleIdentity extends Construct {
  /** The user pool. */
  public readonly userPool: UserPool;
  /** The pool's domain, `auth.<platform domain>`, with managed login version 2. */
  public readonly domain: UserPoolDomain;
  /** The console's app client. */
  public readonly client: UserPoolClient;
  /** Managed login's branding of the console's client: Cognito's default style. */
  public readonly branding: CfnManagedLoginBranding;
  /** The client secret, for the console function. */
  public readonly clientSecret: Secret;
  /** The pool's issuer, `https://cognito-idp.<region>.amazonaws.com/<pool id>`. */
  public readonly issuer: string;
  /** The sign-in host, `auth.<platform domain>`. */
  public readonly host: string;

  constructor(scope: Construct, id: string, props: ConsoleIdentityProps) {
    const problems = propsProblems(props);
    if (problems.length > 0)
      throw new Error(`Invalid ConsoleIdentity properties:\n- ${problems.join('\n- ')}`);
    super(scope, id);
    const { domain: platformDomain, hostedZoneId } = props.platform;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.host = authDomainHost(platformDomain);
    const email = props.email;

    this.userPool = new UserPool(this, 'UserPool', {
      userPoolName: `${Stack.of(this).stackName}-console`,
      featurePlan: FeaturePlan.ESSENTIALS,
      selfSignUpEnabled: true,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      autoVerify: { email: true },
      // A changed address counts only once verified: invitations trust verified addresses.
      keepOriginal: { email: true },
      standardAttributes: {
        email: { required: true, mutable: true },
        fullname: { required: false, mutable: true },
      },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      signInPolicy: {
        allowedFirstAuthFactors: { password: true, passkey: true, emailOtp: email !== undefined },
      },
      // Set from the start: passkeys are bound to their relying party, so changing it later
      // would make every registered passkey unusable.
      passkeyRelyingPartyId: this.host,
      passkeyUserVerification: PasskeyUserVerification.REQUIRED,
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true, email: email !== undefined },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        passwordHistorySize: 5,
        tempPasswordValidity: Duration.days(3),
      },
      ...(email === undefined
        ? {}
        : {
            email: UserPoolEmail.withSES({
              fromEmail: email.fromEmail,
              fromName: email.fromName ?? 'Animal Store',
              sesVerifiedDomain: email.sesVerifiedDomain,
              sesRegion: email.sesRegion,
            }),
          }),
      deletionProtection: props.deletionProtection ?? true,
      removalPolicy,
    });
    this.acknowledgePoolFindings();

    this.domain = this.userPool.addDomain('Domain', {
      customDomain: { domainName: this.host, certificate: props.certificate },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });
    const zone = HostedZone.fromHostedZoneAttributes(this, 'PlatformZone', {
      hostedZoneId,
      zoneName: platformDomain,
    });
    new ARecord(this, 'DomainAlias', {
      zone,
      recordName: `${this.host}.`,
      // The domain's CloudFront distribution (UserPoolDomainTarget reads a deprecated attribute).
      target: RecordTarget.fromAlias({
        bind: () => ({
          dnsName: this.domain.cloudFrontEndpoint,
          hostedZoneId: CloudFrontTarget.getHostedZoneId(this),
        }),
      }),
    });

    const enterprise = (props.enterpriseProviders ?? []).map((provider) =>
      addEnterpriseProvider(this, this.userPool, provider),
    );
    this.client = this.userPool.addClient('ConsoleClient', {
      userPoolClientName: 'console',
      generateSecret: true,
      // Choice-based sign-in: managed login offers the pool's first factors (passkey, password, email
      // code). The same flow through the API needs the client secret's hash, which only the console holds.
      authFlows: { user: true },
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
        callbackUrls: [consoleCallbackUrl(platformDomain)],
        logoutUrls: [consoleSignedOutUrl(platformDomain)],
      },
      supportedIdentityProviders: [
        UserPoolClientIdentityProvider.COGNITO,
        ...enterprise.map((provider) => UserPoolClientIdentityProvider.custom(provider.providerName)),
      ],
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      idTokenValidity: CONSOLE_TOKEN_VALIDITY.idToken,
      accessTokenValidity: CONSOLE_TOKEN_VALIDITY.accessToken,
      refreshTokenValidity: CONSOLE_TOKEN_VALIDITY.refreshToken,
      authSessionValidity: CONSOLE_TOKEN_VALIDITY.authSession,
    });

    this.branding = new CfnManagedLoginBranding(this, 'Branding', {
      userPoolId: this.userPool.userPoolId,
      clientId: this.client.userPoolClientId,
      useCognitoProvidedValues: true,
    });
    this.branding.node.addDependency(this.domain);

    // CloudFormation returns the generated secret as an attribute: no SDK call reads it back.
    const cfnClient = this.client.node.defaultChild as CfnUserPoolClient;
    this.clientSecret = new Secret(this, 'ClientSecret', {
      description: `Client secret of the console's Cognito app client (${this.host}), read by the console function`,
      secretStringValue: SecretValue.resourceAttribute(cfnClient.attrClientSecret),
      removalPolicy,
    });
    Validations.of(this.clientSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "The value is the Cognito app client's secret, which Cognito generates and checks; Secrets Manager only " +
        "carries it to the console function. A rotation Lambda could not change Cognito's copy: a new secret comes " +
        'from a new app client, whose secret this stack then writes here (doc/identity.md).',
    });

    // Cognito's documented issuer: the `iss` of the pool's tokens, where discovery starts.
    const stack = Stack.of(this);
    this.issuer = `https://cognito-idp.${stack.region}.${stack.urlSuffix}/${this.userPool.userPoolId}`;
    const fn = props.consoleFunction;
    fn.addEnvironment(CONSOLE_OIDC_ENV.issuer, this.issuer);
    fn.addEnvironment(CONSOLE_OIDC_ENV.clientId, this.client.userPoolClientId);
    fn.addEnvironment(CONSOLE_OIDC_ENV.clientSecretArn, this.clientSecret.secretArn);
    // The email domains each enterprise provider may vouch for, as invitations check them (issue 27).
    if (props.enterpriseProviders && props.enterpriseProviders.length > 0) {
      fn.addEnvironment(
        RUNTIME_ENV.enterpriseEmailDomains,
        JSON.stringify(
          Object.fromEntries(props.enterpriseProviders.map((each) => [each.name, [...each.emailDomains]])),
        ),
      );
    }
    // GetSecretValue alone (grantRead would add DescribeSecret, which the function never calls), in a
    // policy of its own: the function changes only once it may read the secret its variable names.
    const readSecret = new Policy(this, 'ConsoleSecretPolicy', {
      roles: [fn.role!], // checked by propsProblems
      statements: [
        new PolicyStatement({
          actions: ['secretsmanager:GetSecretValue'],
          resources: [this.clientSecret.secretArn],
        }),
      ],
    });
    // The function resource alone: its role is the policy's, so the whole construct would be a cycle.
    (fn.node.defaultChild as CfnResource).addResourceDependency(
      readSecret.node.defaultChild as CfnResource,
      'the function may read the client secret before its variable names it',
    );
  }

  /** The AWS Solutions findings the Essentials plan and passwordless sign-in cannot meet. */
  private acknowledgePoolFindings(): void {
    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason:
          'MFA is optional (TOTP, and email codes where SES is set up), not required: required MFA would make every ' +
          'person enrol a second method before a first sign-in, and Cognito offers passwordless one-time-code sign-in ' +
          'only where MFA is not required. Passkeys, the sign-in the console leads with, require user verification ' +
          '(the device plus its PIN or biometric): two factors in one step.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'The issue chose the Essentials feature plan (managed login, passkeys, email codes); threat protection ' +
          '(adaptive authentication, compromised-credential checks) exists only on Plus, at a higher price per active ' +
          'person. Access is decided by project membership, not by the account: a taken-over account reaches only ' +
          "the projects its owner belongs to, and the console's rate limits and web ACL still apply.",
      },
    );
  }
}
