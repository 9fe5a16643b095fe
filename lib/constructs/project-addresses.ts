import {
  type CfnDomainName,
  DomainName,
  EndpointType,
  type IRestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate, CertificateValidation } from 'aws-cdk-lib/aws-certificatemanager';
import { AaaaRecord, ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import type { PlatformAddressConfig } from '../config/platform';

/** Properties of {@link ProjectAddresses}. */
export interface ProjectAddressesProps {
  /** The platform domain and its hosted zone. */
  readonly platform: PlatformAddressConfig;
  /** The environment's REST API: every project address maps its empty base path to its deployment stage. */
  readonly restApi: IRestApi;
}

/**
 * Every project's address, `https://<project>.<platform domain>/v1`, at once: one wildcard
 * certificate (DNS-validated in the platform zone), one wildcard regional custom domain
 * and one wildcard alias. A new project needs no deploy; the authorizer tells projects
 * apart by the request's host, and a host with no project answers 404.
 */
export class ProjectAddresses extends Construct {
  /** The wildcard custom domain, e.g. `*.animalstore.example`. */
  public readonly domainName: DomainName;
  /** The wildcard certificate, validated in the platform zone. */
  public readonly certificate: Certificate;

  constructor(scope: Construct, id: string, props: ProjectAddressesProps) {
    super(scope, id);
    const { domain, hostedZoneId } = props.platform;
    const zone = HostedZone.fromHostedZoneAttributes(this, 'PlatformZone', {
      hostedZoneId,
      zoneName: domain,
    });
    const wildcard = `*.${domain}`;
    this.certificate = new Certificate(this, 'Certificate', {
      domainName: wildcard,
      validation: CertificateValidation.fromDns(zone),
    });
    this.domainName = new DomainName(this, 'Domain', {
      domainName: wildcard,
      certificate: this.certificate,
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    // Dual-stack, so the AAAA alias answers with IPv6 addresses.
    (this.domainName.node.defaultChild as CfnDomainName).addPropertyOverride(
      'EndpointConfiguration.IpAddressType',
      'dualstack',
    );
    this.domainName.addBasePathMapping(props.restApi);
    const target = RecordTarget.fromAlias(new ApiGatewayDomain(this.domainName));
    new ARecord(this, 'AliasA', { zone, recordName: `${wildcard}.`, target });
    new AaaaRecord(this, 'AliasAaaa', { zone, recordName: `${wildcard}.`, target });
  }
}
