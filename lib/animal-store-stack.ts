import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { CATCH_ALL } from '../lambda/api/routes';
import { RUNTIME_ENV } from '../lambda/shared/runtime-env';
import {
  type EnvironmentConfig,
  PLATFORM_ENVIRONMENTS,
  validateEnvironmentConfig,
} from './config/environments';
import { platformCnameTarget } from './config/platform';
import { AnimalStoreApi } from './constructs/animal-store-api';
import { ConsoleIdentity } from './constructs/console-identity';
import { ConsoleService } from './constructs/console-service';
import { DEFAULT_SELF_SERVICE } from './config/self-service';
import { SELF_SERVICE_PLAN } from '../lambda/core/self-service-settings';
import { InvitationEmail } from './constructs/invitation-email';
import { DataTables } from './constructs/data-tables';
import { EdgeFirewall } from './constructs/edge-firewall';
import { originSecretReference } from './constructs/origin-secret';
import { Observability } from './constructs/observability';
import { ProjectAddresses } from './constructs/project-addresses';
import { StaleTenantCleanup } from './constructs/stale-tenant-cleanup';
import { UsagePlans } from './constructs/usage-plans';
import { UsageTopJob } from './constructs/usage-top-job';
import { EDGE_PARAMETERS, servedByEdge } from './edge-stack';

/**
 * Outputs of the stack that the operator tools read (tools/stage.ts) to find its tables and
 * addresses. `platformDomain` is present where projects have addresses
 * (`https://<project>.<platform domain>/v1`).
 */
export const STACK_OUTPUTS = {
  baseUrl: 'BaseUrl',
  apiKeysTable: 'ApiKeysTableName',
  projectsTable: 'ProjectsTableName',
  petsTable: 'PetsTableName',
  rateLimitsTable: 'RateLimitsTableName',
  idempotencyTable: 'IdempotencyTableName',
  customDomainsTable: 'CustomDomainsTableName',
  consoleSessionsTable: 'ConsoleSessionsTableName',
  projectMembersTable: 'ProjectMembersTableName',
  invitationsTable: 'InvitationsTableName',
  auditLogTable: 'AuditLogTableName',
  personalTokensTable: 'PersonalTokensTableName',
  platformDomain: 'PlatformDomain',
  selfServiceProjectCap: 'SelfServiceProjectCap',
} as const;

/** Name of an output in {@link STACK_OUTPUTS}. */
export type StackOutputName = (typeof STACK_OUTPUTS)[keyof typeof STACK_OUTPUTS];

/** Properties of {@link AnimalStoreStack}. */
export interface AnimalStoreStackProps extends StackProps {
  /** The environment to build; its stackName and env override those of StackProps. */
  readonly config: EnvironmentConfig;
}

/** One environment of the Animal Store Service: tables, functions, REST API, usage plans, firewall, alarms and dashboard. */
export class AnimalStoreStack extends Stack {
  /** The service's tables. */
  public readonly tables: DataTables;
  /** The REST API and its functions. */
  public readonly api: AnimalStoreApi;
  /** The usage plans of the API stage, one per plan plus the anonymous one. */
  public readonly usagePlans: UsagePlans;
  /** The web ACL in front of the API stage. */
  public readonly firewall: EdgeFirewall;
  /** Alarms, dashboard and the optional notification topic. */
  public readonly observability: Observability;
  /** Every project's address under the platform domain, where the environment has one. */
  public readonly projectAddresses?: ProjectAddresses;
  /** The domains service under `/console/api`, where the edge serves the environment. */
  public readonly console?: ConsoleService;
  /** The console's sign-in (Cognito user pool at `auth.<platform domain>`), where the console is deployed. */
  public readonly consoleIdentity?: ConsoleIdentity;
  /** The SES identity invitations are sent from (issue 27), where the console exists. */
  public readonly invitationEmail?: InvitationEmail;
  /** The scheduled sweep of tenants whose domain was removed, where the edge serves the environment. */
  public readonly staleTenantCleanup?: StaleTenantCleanup;
  /** The daily ranking of the projects that used the most (issue 29). */
  public readonly usageTop: UsageTopJob;

  constructor(scope: Construct, id: string, props: AnimalStoreStackProps) {
    const { config } = props;
    validateEnvironmentConfig(config);
    super(scope, id, {
      description: `Animal Store Service (${config.name})`,
      ...props,
      stackName: config.stackName,
      env: config.env,
    });

    this.tables = new DataTables(this, 'Data', {
      removalPolicy: config.removalPolicy,
      deletionProtection: config.deletionProtection,
      petsUpgradeStep: config.petsUpgradeStep,
    });
    this.api = new AnimalStoreApi(this, 'Api', {
      stageName: config.stageName,
      environmentName: config.name,
      tables: this.tables,
      apiKeyCacheSeconds: config.apiKeyCacheSeconds,
      catchAllReservedConcurrency: config.reservedConcurrency,
      platformDomain: config.platformAddress?.domain,
      lambdaMemoryMb: config.lambdaMemoryMb,
      logRetention: config.logRetention,
      logRemovalPolicy: config.removalPolicy,
    });
    this.usagePlans = new UsagePlans(this, 'UsagePlans', { stage: this.api.restApi.deploymentStage });
    // The authorizer returns the anonymous key's value as the usage identifier of callers
    // without a valid key, so API Gateway counts them against the anonymous plan.
    this.api.authorizerFunction.addEnvironment(
      RUNTIME_ENV.anonymousUsageId,
      this.usagePlans.anonymousUsageId,
    );
    // And the preflight key's for a preflight from an allowed origin: never the project's plan.
    this.api.authorizerFunction.addEnvironment(
      RUNTIME_ENV.preflightUsageId,
      this.usagePlans.preflightUsageId,
    );
    this.usageTop = new UsageTopJob(this, 'UsageTop', {
      tables: this.tables,
      environmentName: config.name,
      memorySize: config.lambdaMemoryMb,
      logRetention: config.logRetention,
      logRemovalPolicy: config.removalPolicy,
    });
    if (config.platformAddress) {
      this.projectAddresses = new ProjectAddresses(this, 'ProjectAddresses', {
        platform: config.platformAddress,
        restApi: this.api.restApi,
      });
    }
    // People's own projects (issue 27): the console's setting, its alarm and the tools' output.
    const selfService = config.selfService ?? DEFAULT_SELF_SERVICE;
    if (servedByEdge(config)) {
      // The edge stack (us-east-1) writes its ids here; read at deploy, so synth stays offline.
      const distributionId = StringParameter.valueForStringParameter(this, EDGE_PARAMETERS.distributionId);
      const connectionGroupId = StringParameter.valueForStringParameter(
        this,
        EDGE_PARAMETERS.connectionGroupId,
      );
      this.console = new ConsoleService(this, 'Console', {
        restApi: this.api.restApi,
        tables: this.tables,
        environmentName: config.name,
        platformDomain: config.platformAddress.domain,
        domainsTarget: platformCnameTarget(config.platformAddress.domain),
        distributionId,
        connectionGroupId,
        // People's own projects (issue 27): on unless -c selfService=off, their keys in the Free usage plan.
        selfService: {
          settings: selfService,
          usagePlan: this.usagePlans.plans.get(SELF_SERVICE_PLAN)!,
        },
        memorySize: config.lambdaMemoryMb,
        logRetention: config.logRetention,
        logRemovalPolicy: config.removalPolicy,
      });
      // People sign in to the console where it exists: a pool elsewhere would have nothing to serve.
      this.consoleIdentity = new ConsoleIdentity(this, 'ConsoleIdentity', {
        platform: config.platformAddress,
        certificate: Certificate.fromCertificateArn(
          this,
          'AuthCertificate',
          StringParameter.valueForStringParameter(this, EDGE_PARAMETERS.authCertificateArn),
        ),
        consoleFunction: this.console.consoleFunction,
        // SES in the stated region, unless the configuration names another (the stack may be environment-agnostic).
        email: config.signInEmail && { sesRegion: config.region, ...config.signInEmail },
        deletionProtection: config.deletionProtection,
        removalPolicy: config.removalPolicy,
      });
      // Invitations' email: the platform domain's SES identity, DKIM records in its zone (issue 27).
      this.invitationEmail = new InvitationEmail(this, 'InvitationEmail', {
        platform: config.platformAddress,
      });
      this.invitationEmail.sendFrom(this.console.consoleFunction);
      this.staleTenantCleanup = new StaleTenantCleanup(this, 'StaleTenantCleanup', {
        tables: this.tables,
        environmentName: config.name,
        distributionId,
        connectionGroupId,
        reserveConcurrency: config.reservedConcurrency !== undefined,
        logRetention: config.logRetention,
        logRemovalPolicy: config.removalPolicy,
      });
    }
    let originSecretArn: string | undefined;
    if (servedByEdge(config)) {
      // The authorizer believes a request about its viewer and its custom domain only when it
      // carries the edge's origin secret: it reads the replica in this region (exactly that
      // secret), and checks the domain in the custom domains table (GetItem, nothing else).
      originSecretArn = StringParameter.valueForStringParameter(this, EDGE_PARAMETERS.originSecretArn);
      // The console function too: through the console's distribution it counts sign-ins per viewer.
      for (const fn of [this.api.authorizerFunction, this.console?.consoleFunction]) {
        fn?.addEnvironment(RUNTIME_ENV.edgeOriginSecretArn, originSecretArn);
        fn?.addToRolePolicy(
          new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [originSecretArn] }),
        );
      }
      this.api.authorizerFunction.bindTable({
        table: this.tables.customDomains,
        environmentVariable: RUNTIME_ENV.customDomainsTable,
        actions: ['dynamodb:GetItem'],
        target: 'table',
      });
    }
    this.firewall = new EdgeFirewall(this, 'Firewall', {
      stage: this.api.restApi.deploymentStage,
      ...(originSecretArn === undefined
        ? {}
        : // The version CloudFront sends too (the edge stack's reference names the same one).
          { originSecret: originSecretReference(originSecretArn, config.originSecretVersion) }),
    });
    // With reserved concurrency, the catch-all is throttled under junk floods by design, and
    // the cleanup runs alone (a throttle there is a skipped run): both alarm on errors only.
    // Without it, a throttle of either is the account's concurrency running out: a fault.
    const capped = new Map([
      [CATCH_ALL.name, this.api.catchAllFunction],
      ...(this.staleTenantCleanup
        ? ([['staleTenantCleanup', this.staleTenantCleanup.cleanupFunction]] as const)
        : []),
    ]);
    const reserved = config.reservedConcurrency !== undefined;
    this.observability = new Observability(this, 'Observability', {
      environmentName: config.name,
      stage: this.api.restApi.deploymentStage,
      operations: this.api.operationFunctions,
      otherFunctions: new Map([
        ['authorizer', this.api.authorizerFunction],
        ['usageTop', this.usageTop.jobFunction],
        ...(this.console ? ([['console', this.console.consoleFunction]] as const) : []),
        ...(reserved ? [] : capped),
      ]),
      errorOnlyFunctions: reserved ? capped : new Map(),
      tables: this.tables.all,
      ...(this.console && selfService.enabled ? { selfServiceProjectCap: selfService.projectCap } : {}),
      alarmEmail: config.alarmEmail,
      alarmTopic:
        config.alarmTopicArn === undefined
          ? undefined
          : Topic.fromTopicArn(this, 'AlarmTopic', config.alarmTopicArn),
      removalPolicy: config.removalPolicy,
    });

    new CfnOutput(this, STACK_OUTPUTS.baseUrl, {
      description: `Base URL of the ${config.name} API (the spec's ${config.name === 'production' ? '{base_url}' : '{staging_base_url}'})`,
      value: this.api.baseUrl,
    });
    new CfnOutput(this, STACK_OUTPUTS.petsTable, { value: this.tables.pets.tableName });
    new CfnOutput(this, STACK_OUTPUTS.apiKeysTable, { value: this.tables.apiKeys.tableName });
    new CfnOutput(this, STACK_OUTPUTS.projectsTable, { value: this.tables.projects.tableName });
    new CfnOutput(this, STACK_OUTPUTS.rateLimitsTable, { value: this.tables.rateLimits.tableName });
    new CfnOutput(this, STACK_OUTPUTS.idempotencyTable, { value: this.tables.idempotencyKeys.tableName });
    new CfnOutput(this, STACK_OUTPUTS.customDomainsTable, {
      description: 'Custom domains of the domains service, read and written by the console function',
      value: this.tables.customDomains.tableName,
    });
    new CfnOutput(this, STACK_OUTPUTS.consoleSessionsTable, {
      description: "Console sessions (hashes only): deleting a project's items signs its console users out",
      value: this.tables.consoleSessions.tableName,
    });
    new CfnOutput(this, STACK_OUTPUTS.invitationsTable, {
      description:
        'Invitations to projects (secrets as hashes only), read and written by the console function',
      value: this.tables.invitations.tableName,
    });
    new CfnOutput(this, STACK_OUTPUTS.projectMembersTable, {
      description:
        "Projects' members and roles, read and written by the console function and `npm run members`",
      value: this.tables.projectMembers.tableName,
    });
    new CfnOutput(this, STACK_OUTPUTS.auditLogTable, {
      description: "Projects' audit log (append-only), written by the console and the platform tools",
      value: this.tables.auditLog.tableName,
    });
    new CfnOutput(this, STACK_OUTPUTS.personalTokensTable, {
      description: "Members' personal access tokens (hashes only), read and written by the console function",
      value: this.tables.personalTokens.tableName,
    });
    // The self-service cap the projects tool measures against (issue 27); off where no console is.
    new CfnOutput(this, STACK_OUTPUTS.selfServiceProjectCap, {
      description: "Most projects people may create themselves (npm run projects -- self-service), or 'off'",
      value: this.console && selfService.enabled ? String(selfService.projectCap) : 'off',
    });
    if (config.platformAddress) {
      new CfnOutput(this, STACK_OUTPUTS.platformDomain, {
        description: 'Platform domain: each project is served at https://<project>.<this domain>/v1',
        value: config.platformAddress.domain,
      });
    }
    if (PLATFORM_ENVIRONMENTS.includes(config.name)) {
      // The per-project domains stacks of earlier releases import these until they are deleted
      // (doc/deploying.md): CloudFormation refuses a deploy that drops an export still imported.
      this.exportValue(this.api.restApi.restApiId);
      this.exportValue(this.api.restApi.deploymentStage.stageName);
      this.exportValue(this.firewall.webAcl.attrArn);
    }
  }
}
