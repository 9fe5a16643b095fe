import { Fn, SecretValue, Stack, Validations } from 'aws-cdk-lib';
import type { CfnDistribution } from 'aws-cdk-lib/aws-cloudfront';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ORIGIN_SECRET_HEADER } from '../../lambda/core/edge-request';

/** The header CloudFront adds to every request it sends to a project's address (the service checks it). */
export { ORIGIN_SECRET_HEADER };

/**
 * The origin secret's value as CloudFormation resolves it at deploy: a
 * `{{resolve:secretsmanager:<arn>:SecretString:::<versionId>}}` reference, never the value.
 * Every reference to the secret, the edge's and the WAF's, is made here, so all of them name
 * the same version. CloudFormation re-reads a reference only when its text changes: after a
 * rotation, the new VersionId is what makes CloudFront and the WAF take the new value. A
 * replica keeps the primary's version ids, so the replica's ARN takes the same one.
 * @param versionId the VersionId; none names AWSCURRENT, read when the reference first deploys
 */
export function originSecretReference(secretArn: string, versionId?: string): string {
  return SecretValue.secretsManager(secretArn, versionId === undefined ? {} : { versionId }).unsafeUnwrap();
}

/** The same secret's ARN in another region (a replica's): same name and suffix, that region. */
function arnInRegion(secretArn: string, region: string): string {
  // arn:<partition>:secretsmanager:<region>:<account>:secret:<name>-<suffix>
  const parts = Fn.split(':', secretArn);
  return Fn.join(':', [
    ...[0, 1, 2].map((index) => Fn.select(index, parts)),
    region,
    ...[4, 5, 6].map((index) => Fn.select(index, parts)),
  ]);
}

/** Properties of {@link OriginSecret}. */
export interface OriginSecretProps {
  /**
   * The region of the service that checks the header: the secret is replicated there, unless
   * it is the secret's own region (production in us-east-1), where the service reads the secret.
   */
  readonly replicaRegion: string;
  /**
   * The version CloudFront sends, after a rotation ({@link originSecretReference}).
   * @default AWSCURRENT when the distribution's reference first deploys
   */
  readonly versionId?: string;
}

/**
 * The shared secret that marks a request as having come through the edge distribution.
 * Secrets Manager generates it at deploy time (it is never in the template or the cloud
 * assembly); the distribution's origin header refers to it with a dynamic reference that
 * CloudFormation resolves when it deploys the distribution (the pattern of the AWS Security
 * Blog's "How to enhance Amazon CloudFront origin security with AWS WAF and AWS Secrets
 * Manager"). The secret is replicated to the service's region, so the service reads its
 * own region's copy, with no call to us-east-1 on its request path.
 */
export class OriginSecret extends Construct {
  /** The secret in this stack's region (us-east-1). */
  public readonly secret: Secret;
  /** The ARN of the replica in the service's region: same name and suffix, that region (the secret's own ARN where that is its region). */
  public readonly replicaArn: string;
  /** The version every reference names; undefined for AWSCURRENT. */
  public readonly versionId?: string;

  constructor(scope: Construct, id: string, props: OriginSecretProps) {
    super(scope, id);
    this.versionId = props.versionId;
    const sameRegion = props.replicaRegion === Stack.of(this).region;
    this.secret = new Secret(this, 'Secret', {
      description: `Value of the ${ORIGIN_SECRET_HEADER} header CloudFront adds to requests for project addresses`,
      // Letters and digits only: safe in a header, and 64 of them are beyond guessing.
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      // Secrets Manager refuses a replica in the primary's own region.
      ...(sameRegion ? {} : { replicaRegions: [{ region: props.replicaRegion }] }),
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotation is by hand (doc/domains.md, "Rotating the origin secret"): a new value, then deploys of the ' +
        'edge and production stacks with its version id, while the service accepts the previous value too. A ' +
        'Lambda rotation would change the value without those deploys, leaving CloudFront and the WAF behind.',
    });
    this.replicaArn = sameRegion
      ? this.secret.secretArn
      : arnInRegion(this.secret.secretArn, props.replicaRegion);
  }

  /**
   * The origin header: a `{{resolve:secretsmanager:…}}` reference, not the value. CloudFront
   * keeps the resolved value in the distribution's configuration, readable by whoever may
   * call cloudfront:GetDistributionConfig in this account.
   */
  originCustomHeader(): CfnDistribution.OriginCustomHeaderProperty {
    return {
      headerName: ORIGIN_SECRET_HEADER,
      headerValue: originSecretReference(this.secret.secretArn, this.versionId),
    };
  }
}
