import { Stack } from 'aws-cdk-lib';
import type { StageBase } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { errorBodyJson } from '../../lambda/api/gateway-errors';
import { MAX_BODY_BYTES } from '../../lambda/api/limits';
import { ORIGIN_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../lambda/core/edge-request';
import { PLAN_NAMES, type PlanLimits, planCapacity } from '../../lambda/core/plans';

/** How much of a REST API request body AWS WAF inspects by default. */
export const WAF_BODY_INSPECTION_LIMIT_BYTES = 8 * 1024;

const PAYLOAD_TOO_LARGE_BODY = 'payload-too-large';
const TOO_MANY_REQUESTS_BODY = 'too-many-requests';

/** Window of the per-IP flood rule, in seconds. */
export const FLOOD_WINDOW_SECONDS = 60;

/**
 * Requests one IP address may send per {@link FLOOD_WINDOW_SECONDS} before WAF blocks it:
 * twice the largest per-minute allowance any project may have (an agreed plan's ceiling
 * included), so that it never answers before the service's exact limits for a single
 * well-behaved client, and stops floods that would otherwise each cost a Lambda invocation.
 */
export function floodLimitPerIp(plans: Iterable<PlanLimits> = PLAN_NAMES.map(planCapacity)): number {
  return 2 * Math.max(...[...plans].map((plan) => plan.perMinute));
}

/** AWS managed rule groups, in evaluation order: common exploits, known bad inputs, IPs with a bad reputation. */
export const MANAGED_RULE_GROUPS = [
  'AWSManagedRulesAmazonIpReputationList',
  'AWSManagedRulesCommonRuleSet',
  'AWSManagedRulesKnownBadInputsRuleSet',
] as const;

/** Properties of {@link EdgeFirewall}. */
export interface EdgeFirewallProps {
  /** The API stage the web ACL protects. */
  readonly stage: StageBase;
  /**
   * Largest request body let through, in bytes.
   * @default MAX_BODY_BYTES
   */
  readonly maxBodyBytes?: number;
  /**
   * The edge's origin secret, as a `{{resolve:secretsmanager:…}}` reference naming the version
   * CloudFront sends (`originSecretReference`, lib/constructs/origin-secret.ts; never the value):
   * requests carrying it skip the per-IP flood rule (their source is a CloudFront address many
   * viewers share) and are limited per viewer address instead. None: no edge, one flood rule.
   */
  readonly originSecret?: string;
}

/** A firewall rule with the custom response bodies it refers to. */
interface FirewallRule {
  readonly rule: CfnWebACL.RuleProperty;
  readonly responseBodies?: Record<string, CfnWebACL.CustomResponseBodyProperty>;
}

function visibility(metricName: string): CfnWebACL.VisibilityConfigProperty {
  return { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName };
}

/**
 * Blocks bodies over the limit with 413 and the Error body, before Lambda's 6 MB payload
 * limit can turn them into a 5xx. WAF sees only the first 8 KB of a REST API body, so an
 * oversize body counts as a match.
 */
function bodySizeRule(priority: number, maxBodyBytes: number): FirewallRule {
  return {
    rule: {
      name: 'body-size-limit',
      priority,
      statement: {
        sizeConstraintStatement: {
          fieldToMatch: { body: { oversizeHandling: 'MATCH' } },
          comparisonOperator: 'GT',
          size: maxBodyBytes,
          textTransformations: [{ priority: 0, type: 'NONE' }],
        },
      },
      action: {
        block: { customResponse: { responseCode: 413, customResponseBodyKey: PAYLOAD_TOO_LARGE_BODY } },
      },
      visibilityConfig: visibility('body-size-limit'),
    },
    responseBodies: {
      [PAYLOAD_TOO_LARGE_BODY]: {
        contentType: 'APPLICATION_JSON',
        content: errorBodyJson(
          'payload_too_large',
          `The request body exceeds the maximum of ${maxBodyBytes} bytes.`,
        ),
      },
    },
  };
}

/** Requests carrying the edge's origin secret, whole and exact. */
function fromEdge(originSecret: string): CfnWebACL.StatementProperty {
  return {
    byteMatchStatement: {
      fieldToMatch: { singleHeader: { Name: ORIGIN_SECRET_HEADER } },
      positionalConstraint: 'EXACTLY',
      searchString: originSecret,
      textTransformations: [{ priority: 0, type: 'NONE' }],
    },
  };
}

/**
 * Blocks an address that floods the API, with 429, the Error body and Retry-After. With an
 * edge, requests that carry its secret are left out of it: they all come from CloudFront's
 * addresses, and one abusive viewer must not get an edge address banned for every tenant.
 */
function floodRule(priority: number, limit: number, originSecret?: string): FirewallRule {
  return floodBlock('flood-per-ip', priority, {
    aggregateKeyType: 'IP',
    limit,
    evaluationWindowSec: FLOOD_WINDOW_SECONDS,
    ...(originSecret === undefined
      ? {}
      : { scopeDownStatement: { notStatement: { statement: fromEdge(originSecret) } } }),
  });
}

/**
 * The same backstop for requests through the edge, per viewer address: the first IP address
 * in `CloudFront-Viewer-Address` (WAF's forwarded-IP aggregation; the header is CloudFront's
 * own, and only requests with the secret are counted, so a direct caller cannot forge it).
 * A value WAF cannot read as an address is not counted (NO_MATCH): the service's own limiter
 * still counts that viewer.
 */
function viewerFloodRule(priority: number, limit: number, originSecret: string): FirewallRule {
  return floodBlock('flood-per-viewer', priority, {
    aggregateKeyType: 'FORWARDED_IP',
    forwardedIpConfig: { headerName: VIEWER_ADDRESS_HEADER, fallbackBehavior: 'NO_MATCH' },
    limit,
    evaluationWindowSec: FLOOD_WINDOW_SECONDS,
    scopeDownStatement: fromEdge(originSecret),
  });
}

function floodBlock(
  name: string,
  priority: number,
  rateBasedStatement: CfnWebACL.RateBasedStatementProperty,
): FirewallRule {
  return {
    rule: {
      name,
      priority,
      statement: { rateBasedStatement },
      action: {
        block: {
          customResponse: {
            responseCode: 429,
            customResponseBodyKey: TOO_MANY_REQUESTS_BODY,
            responseHeaders: [{ name: 'Retry-After', value: String(FLOOD_WINDOW_SECONDS) }],
          },
        },
      },
      visibilityConfig: visibility(name),
    },
    responseBodies: {
      [TOO_MANY_REQUESTS_BODY]: {
        contentType: 'APPLICATION_JSON',
        content: errorBodyJson(
          'rate_limited',
          `Too many requests from this address: retry after ${FLOOD_WINDOW_SECONDS} seconds.`,
        ),
      },
    },
  };
}

/**
 * An AWS managed rule group. Its blocks carry no custom response, so API Gateway answers
 * them with its WAF_FILTERED gateway response: 403 and the Error body.
 */
function managedRule(priority: number, name: (typeof MANAGED_RULE_GROUPS)[number]): FirewallRule {
  return {
    rule: {
      name,
      priority,
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name } },
      overrideAction: { none: {} },
      visibilityConfig: visibility(name),
    },
  };
}

/**
 * The regional WAF web ACL in front of the API stage. Requests are allowed unless a rule
 * blocks them; rules are evaluated in the order of {@link EdgeFirewall.rules}.
 */
export class EdgeFirewall extends Construct {
  /** The web ACL. */
  public readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeFirewallProps) {
    super(scope, id);
    const maxBodyBytes = props.maxBodyBytes ?? MAX_BODY_BYTES;
    if (
      !Number.isInteger(maxBodyBytes) ||
      maxBodyBytes < 1 ||
      maxBodyBytes > WAF_BODY_INSPECTION_LIMIT_BYTES
    ) {
      throw new Error(
        `EdgeFirewall maxBodyBytes is ${maxBodyBytes}: use a whole number from 1 to ${WAF_BODY_INSPECTION_LIMIT_BYTES}, ` +
          'the part of a REST API body WAF inspects; larger bodies would all be blocked as oversize.',
      );
    }
    const rules = EdgeFirewall.rules(maxBodyBytes, props.originSecret);
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      rules: rules.map((entry) => entry.rule),
      customResponseBodies: Object.assign({}, ...rules.map((entry) => entry.responseBodies ?? {})),
      visibilityConfig: visibility(`${Stack.of(this).stackName}-web-acl`),
    });
    new CfnWebACLAssociation(this, 'Association', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }

  /**
   * The rules, in priority order: the body limit first (so an oversize body gets 413,
   * not the common rule set's 403), then the flood backstops (per IP; with an edge, per
   * viewer for the edge's requests), then the managed groups.
   */
  static rules(maxBodyBytes: number, originSecret?: string): FirewallRule[] {
    const limit = floodLimitPerIp();
    const floods = [
      floodRule(1, limit, originSecret),
      ...(originSecret === undefined ? [] : [viewerFloodRule(2, limit, originSecret)]),
    ];
    return [
      bodySizeRule(0, maxBodyBytes),
      ...floods,
      ...MANAGED_RULE_GROUPS.map((name, index) => managedRule(1 + floods.length + index, name)),
    ];
  }
}
