import { Stack, Token } from 'aws-cdk-lib';
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager';
import { HostedZone } from 'aws-cdk-lib/aws-route53';
import { Construct } from 'constructs';
import type { PlatformAddressConfig } from '../config/platform';

/** The sign-in domain's label under the platform domain: `auth.<platform domain>` (a reserved project name). */
export const AUTH_DOMAIN_LABEL = 'auth';

/** The sign-in domain, `auth.<platform domain>`: managed login, and the passkeys' relying party. */
export function authDomainHost(platformDomain: string): string {
  return `${AUTH_DOMAIN_LABEL}.${platformDomain}`;
}

/** The only region whose certificates CloudFront, and so Cognito's custom domain, takes. */
const CLOUDFRONT_CERTIFICATE_REGION = 'us-east-1';

/** Properties of {@link AuthDomainCertificate}. */
export interface AuthDomainCertificateProps {
  /** The platform domain and its zone: the certificate is for `auth.<domain>`, DNS-validated there. */
  readonly platform: PlatformAddressConfig;
}

/**
 * The certificate of `auth.<platform domain>`, DNS-validated in the platform zone. Cognito's
 * custom domain is a CloudFront distribution, which takes certificates from us-east-1 only, so
 * it is made in the edge stack and handed over to production's region, where the user pool is
 * (lib/constructs/console-identity.ts).
 */
export class AuthDomainCertificate extends Construct {
  /** The certificate. */
  public readonly certificate: Certificate;

  constructor(scope: Construct, id: string, props: AuthDomainCertificateProps) {
    const region = Stack.of(scope).region;
    if (!Token.isUnresolved(region) && region !== CLOUDFRONT_CERTIFICATE_REGION) {
      throw new Error(
        `AuthDomainCertificate is in ${region}: Cognito's custom domain takes a certificate from ` +
          `${CLOUDFRONT_CERTIFICATE_REGION} only; make it in the edge stack.`,
      );
    }
    super(scope, id);
    const { domain, hostedZoneId } = props.platform;
    const zone = HostedZone.fromHostedZoneAttributes(this, 'PlatformZone', {
      hostedZoneId,
      zoneName: domain,
    });
    this.certificate = new Certificate(this, 'Certificate', {
      domainName: authDomainHost(domain),
      validation: CertificateValidation.fromDns(zone),
    });
  }
}
