import { Duration } from 'aws-cdk-lib';
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager';
import { CfnConnectionGroup } from 'aws-cdk-lib/aws-cloudfront';
import { CnameRecord, HostedZone } from 'aws-cdk-lib/aws-route53';
import { Construct } from 'constructs';
import { type PlatformAddressConfig, platformCnameTarget } from '../config/platform';

/** How long resolvers keep the target's CNAME: short, so a new connection group takes over quickly. */
export const DOMAINS_TARGET_TTL = Duration.minutes(5);

/** Properties of {@link DomainsTarget}. */
export interface DomainsTargetProps {
  /** The platform domain and its hosted zone (given, not looked up). */
  readonly platform: PlatformAddressConfig;
}

/**
 * The targets custom domains point at, the spec's `{platform_cname_target}`: each project's
 * own, `<target id>.domains.<platform domain>` (one wildcard record), and the shared
 * `domains.<platform domain>` (domains verified before per-project targets), both CNAMEs in
 * the platform zone to the routing endpoint of a connection group of our own. Tenants never see CloudFront's endpoint, so replacing the
 * connection group changes one record, not every tenant's DNS. The target's name also has
 * a certificate (us-east-1, DNS-validated in the platform zone): the multi-tenant
 * distribution's own, which carries its TLS policy; each tenant adds its managed certificate.
 */
export class DomainsTarget extends Construct {
  /** The connection group every distribution tenant of the domains service joins. */
  public readonly connectionGroup: CfnConnectionGroup;
  /** The target's name, `domains.<platform domain>`. */
  public readonly targetName: string;
  /** The certificate of the target's name, for the distribution's viewer certificate. */
  public readonly certificate: Certificate;

  constructor(scope: Construct, id: string, props: DomainsTargetProps) {
    super(scope, id);
    const { domain, hostedZoneId } = props.platform;
    this.connectionGroup = new CfnConnectionGroup(this, 'ConnectionGroup', {
      name: 'animal-store-domains',
      enabled: true,
      // IPv6 is a connection group setting for multi-tenant distributions.
      ipv6Enabled: true,
    });
    const zone = HostedZone.fromHostedZoneAttributes(this, 'PlatformZone', {
      hostedZoneId,
      zoneName: domain,
    });
    this.targetName = platformCnameTarget(domain);
    this.certificate = new Certificate(this, 'Certificate', {
      domainName: this.targetName,
      validation: CertificateValidation.fromDns(zone),
    });
    new CnameRecord(this, 'Target', {
      zone,
      recordName: `${this.targetName}.`,
      domainName: this.connectionGroup.attrRoutingEndpoint,
      ttl: DOMAINS_TARGET_TTL,
    });
    // Every project's own target, `<target id>.domains.<platform domain>`: one wildcard, so a
    // new project needs no record, and each tenant's CNAME says which project it is for. No
    // extra hop: the tenant's CNAME names this record, which names the routing endpoint.
    new CnameRecord(this, 'ProjectTargets', {
      zone,
      recordName: `*.${this.targetName}.`,
      domainName: this.connectionGroup.attrRoutingEndpoint,
      ttl: DOMAINS_TARGET_TTL,
    });
  }
}
