import { Fn, Validations } from 'aws-cdk-lib';
import type { CfnDistribution } from 'aws-cdk-lib/aws-cloudfront';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ORIGIN_SECRET_HEADER } from '../../lambda/domain/edge-request';

/** The header CloudFront adds to every request it sends to a project's address (the service checks it). */
export { ORIGIN_SECRET_HEADER };

/** Properties of {@link OriginSecret}. */
export interface OriginSecretProps {
  /** The region of the service that checks the header: the secret is replicated there. */
  readonly replicaRegion: string;
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
  /** The ARN of the replica in the service's region: same name and suffix, that region. */
  public readonly replicaArn: string;

  constructor(scope: Construct, id: string, props: OriginSecretProps) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description: `Value of the ${ORIGIN_SECRET_HEADER} header CloudFront adds to requests for project addresses`,
      // Letters and digits only: safe in a header, and 64 of them are beyond guessing.
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      replicaRegions: [{ region: props.replicaRegion }],
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating the header needs a function that updates the distribution and a service that accepts the ' +
        'previous value until CloudFront has deployed the new one; the service side comes with the domains ' +
        'service, and its rotation with it (doc/deploying.md, "The edge stack").',
    });
    // arn:<partition>:secretsmanager:<region>:<account>:secret:<name>-<suffix>, in the replica's region.
    const parts = Fn.split(':', this.secret.secretArn);
    this.replicaArn = Fn.join(':', [
      ...[0, 1, 2].map((index) => Fn.select(index, parts)),
      props.replicaRegion,
      ...[4, 5, 6].map((index) => Fn.select(index, parts)),
    ]);
  }

  /**
   * The origin header: a `{{resolve:secretsmanager:…}}` reference, not the value. CloudFront
   * keeps the resolved value in the distribution's configuration, readable by whoever may
   * call cloudfront:GetDistributionConfig in this account.
   */
  originCustomHeader(): CfnDistribution.OriginCustomHeaderProperty {
    return { headerName: ORIGIN_SECRET_HEADER, headerValue: this.secret.secretValue.unsafeUnwrap() };
  }
}
