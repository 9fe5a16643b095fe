import { type ArnComponents, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AuthorizationType, LambdaIntegration, type Method, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { CONSOLE_API_PREFIX } from '../../lambda/api/console-routes';
import { ENVIRONMENT_VARIABLE } from '../../lambda/shared/observability';
import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import {
  API_KEYS_TABLE,
  CONSOLE_SESSIONS_TABLE,
  PROJECT_MEMBERS_TABLE,
  PERSONAL_TOKENS_TABLE,
  CUSTOM_DOMAINS_TABLE,
  INVITATIONS_TABLE,
  PROJECT_ATTRIBUTES_THE_CONSOLE_UPDATES,
} from '../../lambda/store/table-schema';
import { bindRateLimits } from './animal-store-api';
import { ApiFunction } from './api-function';
import { EDGE_REGION } from '../edge-stack';
import { consoleSiteOrigin } from './console-site';
import { nagArn } from './nag-names';
import type { DataTables } from './data-tables';
import { ConsoleSelfService, type ConsoleSelfServiceProps } from './console-self-service';

/** The console function's module under `lambda/handlers/`. */
export const CONSOLE_HANDLER_MODULE = 'console';

/**
 * The CloudFront actions of the console function, exactly those lambda/store/cloudfront-edge-tenants.ts
 * calls and the further ones AWS documents those calls to need, by the IAM resource type each one
 * takes (Service Authorization Reference, CloudFront).
 */
export const EDGE_TENANT_ACTIONS = {
  /** The `distribution-tenant` resource type: granted on the account's tenants (`distribution-tenant/*`). */
  tenant: [
    'cloudfront:GetDistributionTenantByDomain',
    'cloudfront:GetDistributionTenant',
    'cloudfront:UpdateDistributionTenant',
    'cloudfront:DeleteDistributionTenant',
    'cloudfront:GetManagedCertificateDetails',
    'cloudfront:VerifyDnsConfiguration',
  ],
  /**
   * No resource type at all: `*` is the only resource it accepts. (ListDistributionTenants, also
   * unscoped, is the stale-tenant sweep's alone: no code the console function reaches lists tenants.)
   */
  unscoped: ['cloudfront:CreateDistributionTenant'],
} as const;

/** The account's distribution tenants: ids CloudFront assigns at run time, so a pattern. */
export const TENANTS: ArnComponents = {
  service: 'cloudfront',
  region: '',
  resource: 'distribution-tenant',
  resourceName: '*',
};

/** The account's certificates in us-east-1, where CloudFront takes them. */
const EDGE_CERTIFICATES: ArnComponents = {
  service: 'acm',
  region: EDGE_REGION,
  resource: 'certificate',
  resourceName: '*',
};

/**
 * The ACM actions of the console function for an imported domain's own certificate, exactly those
 * lambda/store/acm-certificates.ts calls: DescribeCertificate takes the `certificate` resource type;
 * RequestCertificate is granted on `*` under the condition `acm:ValidationMethod = DNS`.
 */
export const IMPORTED_CERTIFICATE_ACTIONS = {
  certificate: ['acm:DescribeCertificate'],
  request: ['acm:RequestCertificate'],
} as const;

/**
 * How long one console request may run: a verification makes up to six CloudFront calls in
 * series (bounded in lambda/store/from-environment.ts), inside API Gateway's 29 s.
 */
export const CONSOLE_TIMEOUT = Duration.seconds(28);

/** Properties of {@link ConsoleService}. */
export interface ConsoleServiceProps {
  /**
   * The REST API whose `/console/api/…` the console answers. API Gateway routes those paths at
   * every host of the stage (project addresses, custom domains through the edge, execute-api);
   * the function answers only at `console-api.<platform domain>`, the console distribution's origin.
   */
  readonly restApi: RestApi;
  /** The custom domains, projects, API keys, console sessions and rate-limit tables. */
  readonly tables: Pick<
    DataTables,
    | 'customDomains'
    | 'projects'
    | 'apiKeys'
    | 'consoleSessions'
    | 'rateLimits'
    | 'projectMembers'
    | 'invitations'
    | 'auditLog'
    | 'personalTokens'
  >;
  /** Environment name, the `Environment` dimension of the function's metrics. */
  readonly environmentName: string;
  /**
   * The platform domain: names under it are refused as custom domains, projects are served at
   * `<name>.<platform domain>`, and the console page at `console.<platform domain>`.
   */
  readonly platformDomain: string;
  /** The spec's `{platform_cname_target}`, every custom domain's CNAME. */
  readonly domainsTarget: string;
  /** The edge's multi-tenant distribution id (a token resolved at deploy is fine). */
  readonly distributionId: string;
  /** The edge's connection group id (a token resolved at deploy is fine). */
  readonly connectionGroupId: string;
  /**
   * People's own projects (issue 27): the setting, and the Free plan's usage plan their keys join.
   * Off, the function is told so and may create no project and no API Gateway key.
   * @default off
   */
  readonly selfService?: ConsoleSelfServiceProps;
  /**
   * Memory of the function, in MB.
   * @default 512
   */
  readonly memorySize?: number;
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
 * The domains service's HTTP API in AWS, the dashboard's backend: one function behind
 * `ANY /console/api` and `ANY /console/api/{proxy+}` on the service's REST API. The routes have
 * no API Gateway authorizer: the function checks the project's console token itself (the API
 * key authorizer would refuse console tokens, and a second authorizer would only repeat the
 * function's lookup), and counts every caller with the limiter the API shares. Its role may
 * use exactly the DynamoDB and CloudFront actions the service issues.
 */
export class ConsoleService extends Construct {
  /** The console function. */
  public readonly consoleFunction: ApiFunction;
  /** The methods that route to it. */
  public readonly methods: readonly Method[];

  constructor(scope: Construct, id: string, props: ConsoleServiceProps) {
    super(scope, id);
    const { tables } = props;
    this.consoleFunction = new ApiFunction(this, 'Function', {
      handlerModule: CONSOLE_HANDLER_MODULE,
      description: `${CONSOLE_API_PREFIX}/…: the domains service (custom domains on CloudFront tenants)`,
      timeout: CONSOLE_TIMEOUT,
      memorySize: props.memorySize,
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      environment: {
        [ENVIRONMENT_VARIABLE]: props.environmentName,
        // Also its own host, `console-api.<platform domain>` (consoleApiHost): elsewhere it answers 404.
        [RUNTIME_ENV.platformDomain]: props.platformDomain,
        // The console page's origin: the only one a browser may change anything from with the session cookie.
        [RUNTIME_ENV.consoleOrigin]: consoleSiteOrigin(props.platformDomain),
        [RUNTIME_ENV.domainsTarget]: props.domainsTarget,
        [RUNTIME_ENV.edgeDistributionId]: props.distributionId,
        [RUNTIME_ENV.edgeConnectionGroupId]: props.connectionGroupId,
      },
    });
    const fn = this.consoleFunction;
    // A domain is read, created and replaced by conditional puts, and deleted; never scanned.
    // A project's domain count is one conditional UpdateItem (the cap under concurrency).
    fn.bindTable({
      table: tables.customDomains,
      environmentVariable: RUNTIME_ENV.customDomainsTable,
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      target: 'table',
    });
    // A project's domains: a Query on the project index.
    fn.bindTable({
      table: tables.customDomains,
      environmentVariable: RUNTIME_ENV.customDomainsTable,
      actions: ['dynamodb:Query'],
      target: { indexes: CUSTOM_DOMAINS_TABLE.globalIndexes.map((index) => index.indexName) },
    });
    // The console token's project: one GetItem.
    fn.bindTable({
      table: tables.projects,
      environmentVariable: RUNTIME_ENV.projectsTable,
      actions: ['dynamodb:GetItem'],
      target: 'table',
    });
    // ...and conditional updates of its count of active keys (the key cap) and, for a project
    // made before per-project targets, its target id (set once): those attributes alone.
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [tables.projects.tableArn],
        conditions: {
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...PROJECT_ATTRIBUTES_THE_CONSOLE_UPDATES] },
          StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE'] },
        },
      }),
    );
    // Sessions: made by a conditional put, read, touched (a conditional update), deleted at sign-out.
    fn.bindTable({
      table: tables.consoleSessions,
      environmentVariable: RUNTIME_ENV.consoleSessionsTable,
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      target: 'table',
    });
    // ...and a project's unexpired ones counted at sign-in: a Query on the project index.
    fn.bindTable({
      table: tables.consoleSessions,
      environmentVariable: RUNTIME_ENV.consoleSessionsTable,
      actions: ['dynamodb:Query'],
      target: { indexes: CONSOLE_SESSIONS_TABLE.globalIndexes.map((index) => index.indexName) },
    });
    // Members (issue 26): a member's role read by key, added by a conditional put, changed and
    // removed conditionally on their role; a project's members are a Query of its partition.
    fn.bindTable({
      table: tables.projectMembers,
      environmentVariable: RUNTIME_ENV.projectMembersTable,
      actions: [
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
        'dynamodb:Query',
      ],
      target: 'table',
    });
    // ...and a person's projects: a Query on the person index.
    fn.bindTable({
      table: tables.projectMembers,
      environmentVariable: RUNTIME_ENV.projectMembersTable,
      actions: ['dynamodb:Query'],
      target: { indexes: PROJECT_MEMBERS_TABLE.globalIndexes.map((index) => index.indexName) },
    });
    // Invitations (issue 27): read by key, made by a conditional put, accepted and revoked by
    // conditional updates (never deleted: DynamoDB's TTL does); a project's through its index.
    fn.bindTable({
      table: tables.invitations,
      environmentVariable: RUNTIME_ENV.invitationsTable,
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      target: 'table',
    });
    fn.bindTable({
      table: tables.invitations,
      environmentVariable: RUNTIME_ENV.invitationsTable,
      actions: ['dynamodb:Query'],
      target: { indexes: INVITATIONS_TABLE.globalIndexes.map((index) => index.indexName) },
    });
    // Personal access tokens (issue 28): read by id (each request of one), made by a conditional
    // put (withdrawn past the cap: a delete), revoked and their last use recorded (conditional
    // updates); a project's or a member's are a Query on the project index.
    fn.bindTable({
      table: tables.personalTokens,
      environmentVariable: RUNTIME_ENV.personalTokensTable,
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      target: 'table',
    });
    fn.bindTable({
      table: tables.personalTokens,
      environmentVariable: RUNTIME_ENV.personalTokensTable,
      actions: ['dynamodb:Query'],
      target: { indexes: PERSONAL_TOKENS_TABLE.globalIndexes.map((index) => index.indexName) },
    });
    // A project's keys: read one, issue one (a conditional put), revoke one (a conditional
    // update), delete a rotation's new key that lost a race to another rotation.
    fn.bindTable({
      table: tables.apiKeys,
      environmentVariable: RUNTIME_ENV.apiKeysTable,
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      target: 'table',
    });
    // ...and list them: a Query on the project index.
    fn.bindTable({
      table: tables.apiKeys,
      environmentVariable: RUNTIME_ENV.apiKeysTable,
      actions: ['dynamodb:Query'],
      target: { indexes: API_KEYS_TABLE.globalIndexes.map((index) => index.indexName) },
    });
    // Counting every call, and reading a project's counter for its usage (GetItem).
    bindRateLimits(fn, tables);
    // A project's usage history: its day counters and hour items in one BatchGetItem (issue 29).
    fn.bindTable({
      table: tables.rateLimits,
      environmentVariable: RUNTIME_ENV.rateLimitsTable,
      actions: ['dynamodb:BatchGetItem'],
      target: 'table',
    });
    // The audit log (issue 28): entries appended by conditional puts and read by a Query of a
    // project's partition; append-only, so never UpdateItem, DeleteItem or BatchWriteItem.
    fn.bindTable({
      table: tables.auditLog,
      environmentVariable: RUNTIME_ENV.auditLogTable,
      actions: ['dynamodb:PutItem', 'dynamodb:Query'],
      target: 'table',
    });
    this.grantEdgeTenants();
    new ConsoleSelfService(this, 'SelfService', fn, tables, props.selfService);

    const integration = new LambdaIntegration(fn, { proxy: true, allowTestInvoke: false });
    const prefix = props.restApi.root.resourceForPath(CONSOLE_API_PREFIX);
    const options = { authorizationType: AuthorizationType.NONE, apiKeyRequired: false };
    this.methods = [
      prefix.addMethod('ANY', integration, options),
      prefix.addResource('{proxy+}').addMethod('ANY', integration, options),
    ];
    for (const method of this.methods) {
      Validations.of(method).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          "The console function authenticates every request itself, with the project's console token (a bearer " +
          'header checked against its hash in the projects table) or a session cookie (checked against its hash in ' +
          'the sessions table, with Origin and CSRF checks on changes), and answers 401 with rate-limit headers; an ' +
          'API Gateway authorizer would repeat that lookup and could not count refused callers.',
      });
      Validations.of(method).acknowledge({
        id: 'AwsSolutions-COG4',
        reason:
          'Console callers bring a console token or a session cookie, which the function checks. People sign in ' +
          "through the console's Cognito user pool (lib/constructs/console-identity.ts) once, by the authorization " +
          'code flow the function completes itself; later requests carry its session cookie, never a Cognito token ' +
          'that an API Gateway Cognito authorizer could check.',
      });
    }
  }

  /**
   * CloudFront's tenant actions, each on the narrowest resource IAM allows for it: the tenants
   * (their ids are CloudFront's, made at run time, so `distribution-tenant/*`), and `*` for the
   * one action that takes no resource.
   */
  private grantEdgeTenants(): void {
    const stack = Stack.of(this);
    const policy = new Policy(this, 'EdgeTenantsPolicy', {
      roles: [this.consoleFunction.role!],
      statements: [
        new PolicyStatement({
          actions: [...EDGE_TENANT_ACTIONS.tenant],
          resources: [stack.formatArn(TENANTS)],
        }),
        new PolicyStatement({ actions: [...EDGE_TENANT_ACTIONS.unscoped], resources: ['*'] }),
        // An imported domain's own certificate (lambda/store/acm-certificates.ts), in us-east-1:
        // read any of the account's there, and request one only with DNS validation.
        new PolicyStatement({
          actions: [...IMPORTED_CERTIFICATE_ACTIONS.certificate],
          resources: [stack.formatArn(EDGE_CERTIFICATES)],
        }),
        new PolicyStatement({
          actions: [...IMPORTED_CERTIFICATE_ACTIONS.request],
          resources: ['*'],
          conditions: { StringEquals: { 'acm:ValidationMethod': 'DNS' } },
        }),
      ],
    });
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only cloudfront:CreateDistributionTenant, which defines no resource type in the Service Authorization ' +
        'Reference, so `*` is the only resource it accepts; the function creates tenants of the edge distribution ' +
        'only (its id is in the request). And acm:RequestCertificate, ' +
        'whose certificate does not exist before the call, limited by its condition to DNS validation.',
    });
    const tenantsArn = nagArn(stack, TENANTS);
    const certificatesArn = nagArn(stack, EDGE_CERTIFICATES);
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${certificatesArn}]`,
      reason:
        "An imported domain's certificate is requested at run time (its ARN is ACM's, stored on the domain), so no " +
        'ARN is known at deploy; only DescribeCertificate, on certificates in us-east-1, where CloudFront takes them.',
    });
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${tenantsArn}]`,
      reason:
        'Distribution tenants are created at run time, one per custom domain, with ids CloudFront assigns, so no ARN ' +
        'is known at deploy; the pattern covers tenants only, and the function changes a tenant only after checking ' +
        'it belongs to the edge distribution.',
    });
  }
}
