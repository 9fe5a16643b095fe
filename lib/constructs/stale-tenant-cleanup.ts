import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENVIRONMENT_VARIABLE } from '../../lambda/shared/observability';
import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import { ApiFunction } from './api-function';
import { TENANTS } from './console-service';
import type { DataTables } from './data-tables';
import { nagArn } from './nag-names';

/** The cleanup function's module under `lambda/handlers/`. */
export const STALE_TENANT_CLEANUP_MODULE = 'stale-tenant-cleanup';

/**
 * The CloudFront actions of the cleanup, exactly those it reaches in
 * lambda/store/cloudfront-edge-tenants.ts (`tenants` and `detach`), by IAM resource type.
 */
export const STALE_TENANT_CLEANUP_ACTIONS = {
  /** The `distribution-tenant` resource type: the account's tenants (`distribution-tenant/*`). */
  tenant: [
    'cloudfront:GetDistributionTenantByDomain',
    'cloudfront:GetDistributionTenant',
    'cloudfront:UpdateDistributionTenant',
    'cloudfront:DeleteDistributionTenant',
  ],
  /** No resource type: `*` is the only resource it accepts. */
  unscoped: ['cloudfront:ListDistributionTenants'],
} as const;

/**
 * How long one sweep may run: a listing page per 100 tenants, a read per tenant, and up to
 * four CloudFront calls (of at most 2 × 6 s, lambda/store/cloudfront-from-environment.ts) per
 * stale one.
 */
export const STALE_TENANT_CLEANUP_TIMEOUT = Duration.minutes(5);

/** Properties of {@link StaleTenantCleanup}. */
export interface StaleTenantCleanupProps {
  /** The custom domains table: a tenant whose domain has a record is kept. */
  readonly tables: Pick<DataTables, 'customDomains'>;
  /** Environment name, the `Environment` dimension of the function's metrics. */
  readonly environmentName: string;
  /** The edge's multi-tenant distribution id, whose tenants are swept (a token resolved at deploy is fine). */
  readonly distributionId: string;
  /** The edge's connection group id (a token resolved at deploy is fine). */
  readonly connectionGroupId: string;
  /**
   * How often the sweep runs.
   * @default Duration.minutes(15)
   */
  readonly every?: Duration;
  /**
   * Whether the function reserves 1 concurrent execution, so that two runs never overlap.
   * Overlap is harmless (each run deletes only tenants without a record, and a deletion of a
   * tenant already gone succeeds), so this only saves duplicate CloudFront calls.
   * @default false: nothing reserved, which a small Lambda concurrency quota requires
   */
  readonly reserveConcurrency?: boolean;
  /**
   * Retention of the function's log group.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * What happens to the log group when it leaves the stack.
   * @default RemovalPolicy.RETAIN
   */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * The scheduled sweep of stale distribution tenants: a removal deletes the domain's record at
 * once but CloudFront refuses to delete its (disabled) tenant until that has propagated, so
 * every `every` a function deletes the tenants of the edge distribution whose domain has no
 * record. Runs may overlap (an at-least-once delivery, a run delayed past the next) unless
 * `reserveConcurrency`, and that is harmless: see {@link StaleTenantCleanupProps.reserveConcurrency}.
 * No retry of a failed run (the next one comes soon). Its role may read the custom domains table (GetItem) and use exactly the
 * CloudFront actions of {@link STALE_TENANT_CLEANUP_ACTIONS}.
 */
export class StaleTenantCleanup extends Construct {
  /** The cleanup function. */
  public readonly cleanupFunction: ApiFunction;
  /** The schedule that invokes it. */
  public readonly rule: Rule;

  constructor(scope: Construct, id: string, props: StaleTenantCleanupProps) {
    super(scope, id);
    const every = props.every ?? Duration.minutes(15);
    const minutes = every.toMinutes({ integral: false });
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > 24 * 60) {
      throw new Error(
        `StaleTenantCleanup ${id}: every is ${every.toHumanString()}; give whole minutes, from 1 minute to 1 day.`,
      );
    }
    this.cleanupFunction = new ApiFunction(this, 'Function', {
      handlerModule: STALE_TENANT_CLEANUP_MODULE,
      description: 'Deletes CloudFront tenants whose custom domain was removed (scheduled)',
      timeout: STALE_TENANT_CLEANUP_TIMEOUT,
      ...(props.reserveConcurrency ? { reservedConcurrentExecutions: 1 } : {}),
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      environment: {
        [ENVIRONMENT_VARIABLE]: props.environmentName,
        [RUNTIME_ENV.edgeDistributionId]: props.distributionId,
        [RUNTIME_ENV.edgeConnectionGroupId]: props.connectionGroupId,
      },
    });
    // Whether a tenant's domain has a record: one consistent GetItem each, nothing else.
    this.cleanupFunction.bindTable({
      table: props.tables.customDomains,
      environmentVariable: RUNTIME_ENV.customDomainsTable,
      actions: ['dynamodb:GetItem'],
      target: 'table',
    });
    this.grantEdgeTenants();
    this.rule = new Rule(this, 'Schedule', {
      description: 'Runs the stale-tenant cleanup',
      schedule: Schedule.rate(every),
      targets: [
        new LambdaTarget(this.cleanupFunction, {
          retryAttempts: 0,
          maxEventAge: Duration.minutes(Math.max(1, Math.floor(minutes / 2))),
        }),
      ],
    });
  }

  /** The tenant actions on the account's tenants, `*` only for the listing, which takes no resource. */
  private grantEdgeTenants(): void {
    const stack = Stack.of(this);
    const policy = new Policy(this, 'EdgeTenantsPolicy', {
      roles: [this.cleanupFunction.role!],
      statements: [
        new PolicyStatement({
          actions: [...STALE_TENANT_CLEANUP_ACTIONS.tenant],
          resources: [stack.formatArn(TENANTS)],
        }),
        new PolicyStatement({ actions: [...STALE_TENANT_CLEANUP_ACTIONS.unscoped], resources: ['*'] }),
      ],
    });
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only cloudfront:ListDistributionTenants, which defines no resource type in the Service Authorization ' +
        'Reference, so `*` is the only resource it accepts; the function lists the tenants of the edge distribution ' +
        'only (its id is in the request).',
    });
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(stack, TENANTS)}]`,
      reason:
        'Distribution tenants are created at run time, one per custom domain, with ids CloudFront assigns, so no ARN ' +
        'is known at deploy; the pattern covers tenants only, and the function deletes a tenant only after checking ' +
        'it belongs to the edge distribution and its domain has no record.',
    });
  }
}
