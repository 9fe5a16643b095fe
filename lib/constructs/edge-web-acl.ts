import { Stack } from 'aws-cdk-lib';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { MAX_BODY_BYTES } from '../../lambda/api/limits';
import { EdgeFirewall } from './edge-firewall';

/**
 * The CLOUDFRONT-scope web ACL of the edge distribution (it must live in us-east-1). Its
 * rules are the regional firewall's, from the same source: the body limit (413), the
 * per-IP flood rule (429 with Retry-After) and the AWS managed groups. The first two answer
 * with their own JSON Error bodies; a managed group's block is CloudFront's plain 403, which
 * the distribution's custom error response for 403 turns into the JSON Error body.
 * Here the per-IP rule counts the viewer's own address, not a CloudFront edge address.
 */
export class EdgeWebAcl extends Construct {
  /** The web ACL; the distribution takes its ARN. */
  public readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const rules = EdgeFirewall.rules(MAX_BODY_BYTES);
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      rules: rules.map((entry) => entry.rule),
      customResponseBodies: Object.assign({}, ...rules.map((entry) => entry.responseBodies ?? {})),
      visibilityConfig: {
        cloudWatchMetricsEnabled: true,
        sampledRequestsEnabled: true,
        metricName: `${Stack.of(this).stackName}-web-acl`,
      },
    });
  }
}
