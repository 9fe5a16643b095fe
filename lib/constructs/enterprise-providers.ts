import { SecretValue } from 'aws-cdk-lib';
import {
  type IUserPool,
  ProviderAttribute,
  UserPoolIdentityProviderOidc,
  UserPoolIdentityProviderSaml,
  UserPoolIdentityProviderSamlMetadata,
} from 'aws-cdk-lib/aws-cognito';
import type { Construct } from 'constructs';

/** A company's SAML 2.0 identity provider, for an Enterprise tenant's people. */
export interface SamlEnterpriseProvider {
  readonly kind: 'saml';
  /** The provider's name in the pool (and on the sign-in page), e.g. `AcmeCorp`: 3 to 32 characters. */
  readonly name: string;
  /** The company's SAML metadata URL (HTTPS). */
  readonly metadataUrl: string;
  /** Email domains whose people managed login sends straight to this provider, e.g. `['acme.example']`. */
  readonly emailDomains: readonly string[];
}

/** A company's OpenID Connect identity provider, for an Enterprise tenant's people. */
export interface OidcEnterpriseProvider {
  readonly kind: 'oidc';
  /** The provider's name in the pool (and on the sign-in page), e.g. `AcmeCorp`: 3 to 32 characters. */
  readonly name: string;
  /** The company's issuer URL (HTTPS); its endpoints are discovered from it. */
  readonly issuerUrl: string;
  /** The client id the company registered for `https://auth.<platform domain>/oauth2/idpresponse`. */
  readonly clientId: string;
  /**
   * The name of a Secrets Manager secret (in the stack's region) holding the client secret as
   * plain text: the template carries a `{{resolve:secretsmanager:…}}` reference, never the value.
   */
  readonly clientSecretName: string;
  /** Email domains whose people managed login sends straight to this provider, e.g. `['acme.example']`. */
  readonly emailDomains: readonly string[];
}

/** A company's own identity provider (doc/identity.md, "An Enterprise tenant's own identity provider"). */
export type EnterpriseProvider = SamlEnterpriseProvider | OidcEnterpriseProvider;

/** Cognito's provider names: 1 to 32 characters, no underscore or space first or last; 3 at least here. */
const PROVIDER_NAME = /^[^_\s][^\s]{1,30}[^_\s]$/u;

/** Claims of the SAML assertion mapped to the pool's attributes (the common WS-Federation names). */
const SAML_CLAIMS = {
  email: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  name: 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name',
} as const;

/** Every problem of a list of providers, each naming the bad value and its fix; empty when valid. */
export function enterpriseProviderProblems(providers: readonly EnterpriseProvider[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  for (const provider of providers) {
    if (!PROVIDER_NAME.test(provider.name) || names.has(provider.name)) {
      problems.push(
        `enterprise provider ${JSON.stringify(provider.name)}: use a unique name of 3 to 32 characters without spaces, not starting or ending with an underscore.`,
      );
    }
    names.add(provider.name);
    const url = provider.kind === 'saml' ? provider.metadataUrl : provider.issuerUrl;
    if (!url.startsWith('https://')) {
      problems.push(`enterprise provider ${provider.name}: ${JSON.stringify(url)} must be an https:// URL.`);
    }
  }
  return problems;
}

/**
 * Adds a company's provider to the pool: its people's email and name become the pool's
 * attributes, and managed login sends the addresses of its email domains straight to it.
 */
export function addEnterpriseProvider(
  scope: Construct,
  userPool: IUserPool,
  provider: EnterpriseProvider,
): UserPoolIdentityProviderSaml | UserPoolIdentityProviderOidc {
  const common = { userPool, name: provider.name, identifiers: [...provider.emailDomains] };
  if (provider.kind === 'saml') {
    return new UserPoolIdentityProviderSaml(scope, `Saml${provider.name}`, {
      ...common,
      metadata: UserPoolIdentityProviderSamlMetadata.url(provider.metadataUrl),
      attributeMapping: {
        email: ProviderAttribute.other(SAML_CLAIMS.email),
        fullname: ProviderAttribute.other(SAML_CLAIMS.name),
      },
    });
  }
  return new UserPoolIdentityProviderOidc(scope, `Oidc${provider.name}`, {
    ...common,
    issuerUrl: provider.issuerUrl,
    clientId: provider.clientId,
    // A dynamic reference, resolved by CloudFormation at deploy: the value is in no template.
    clientSecret: SecretValue.secretsManager(provider.clientSecretName).unsafeUnwrap(),
    scopes: ['openid', 'email', 'profile'],
    attributeMapping: { email: ProviderAttribute.other('email'), fullname: ProviderAttribute.other('name') },
  });
}
