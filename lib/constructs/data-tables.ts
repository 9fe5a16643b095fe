import type { RemovalPolicy } from 'aws-cdk-lib';
import {
  type Attribute,
  AttributeType,
  BillingMode,
  ProjectionType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import {
  API_KEYS_TABLE,
  AUDIT_LOG_TABLE,
  CONSOLE_SESSIONS_TABLE,
  PROJECT_MEMBERS_TABLE,
  INVITATIONS_TABLE,
  PERSONAL_TOKENS_TABLE,
  CUSTOM_DOMAINS_TABLE,
  type KeyAttribute,
  PETS_UPGRADE_STEPS,
  type PetsUpgradeStepNumber,
  petsTableAt,
  PROJECTS_TABLE,
  IDEMPOTENCY_TABLE,
  RATE_LIMITS_TABLE,
  type TableDefinition,
} from '../../lambda/store/table-schema';

/** Properties of {@link DataTables}. */
export interface DataTablesProps {
  /**
   * What CloudFormation does with the tables when they leave the stack.
   * @default RemovalPolicy.RETAIN (the CDK default for tables)
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * DynamoDB deletion protection: refuses DeleteTable from any caller, CloudFormation included.
   * @default false
   */
  readonly deletionProtection?: boolean;
  /**
   * The upgrade step of an already deployed pets table (PETS_UPGRADE_STEPS): the table gets
   * that step's indexes, since DynamoDB adds or removes one index per update.
   * @default the final pets table
   */
  readonly petsUpgradeStep?: PetsUpgradeStepNumber;
}

const ATTRIBUTE_TYPES = { S: AttributeType.STRING, N: AttributeType.NUMBER } as const;

function toAttribute(key: KeyAttribute): Attribute {
  return { name: key.name, type: ATTRIBUTE_TYPES[key.type] };
}

/**
 * The service's DynamoDB tables, built from the shared table definitions that the
 * local mode also reads, so the deployed and the embedded tables cannot drift.
 */
export class DataTables extends Construct {
  /** One item per pet, keyed by numeric id, with its project's list indexes. */
  public readonly pets: Table;
  /** The pets table's definition as deployed: the final one, or that of its upgrade step. */
  public readonly petsDefinition: TableDefinition;
  /** Whether the pets table has its project-and-status index yet (not at upgrade step 1). */
  public readonly petsStatusIndex: boolean;
  /** One item per API key, keyed by its public key id, with an index of each project's keys. */
  public readonly apiKeys: Table;
  /** One item per project (tenant), keyed by its name: its plan lives here and nowhere else. */
  public readonly projects: Table;
  /** One counter item per caller per UTC day, deleted by DynamoDB TTL on `expiresAt`. */
  public readonly rateLimits: Table;
  /** The records of createPet's Idempotency-Keys. */
  public readonly idempotencyKeys: Table;
  /** One item per custom domain of the domains service, keyed by its name, with an index of each project's domains. */
  public readonly customDomains: Table;
  /** One item per console session, keyed by the hash of its secret, deleted by DynamoDB TTL on `expiresAt`. */
  public readonly consoleSessions: Table;
  /** One item per project and member (issue 26), with an index of each person's projects. */
  public readonly projectMembers: Table;
  /** One item per invitation (issue 27), keyed by its id, with an index of each project's; deleted by TTL on `purgeAt`. */
  public readonly invitations: Table;
  /** The audit log (issue 28): one item per change, by project and time, deleted by TTL after a year. */
  public readonly auditLog: Table;
  /** One item per personal access token (issue 28), keyed by its id, with an index of each project's tokens. */
  public readonly personalTokens: Table;
  /** Every table the service's functions use, with the definition it was built from. */
  public readonly all: readonly { readonly definition: TableDefinition; readonly table: Table }[];

  constructor(scope: Construct, id: string, props: DataTablesProps = {}) {
    super(scope, id);
    this.petsDefinition = petsTableAt(props.petsUpgradeStep);
    this.pets = this.tableFrom(this.petsDefinition, props);
    this.petsStatusIndex =
      props.petsUpgradeStep === undefined || PETS_UPGRADE_STEPS[props.petsUpgradeStep].statusIndex;
    this.apiKeys = this.tableFrom(API_KEYS_TABLE, props);
    this.projects = this.tableFrom(PROJECTS_TABLE, props);
    this.rateLimits = this.tableFrom(RATE_LIMITS_TABLE, props);
    this.idempotencyKeys = this.tableFrom(IDEMPOTENCY_TABLE, props);
    this.customDomains = this.tableFrom(CUSTOM_DOMAINS_TABLE, props);
    this.consoleSessions = this.tableFrom(CONSOLE_SESSIONS_TABLE, props);
    this.projectMembers = this.tableFrom(PROJECT_MEMBERS_TABLE, props);
    this.invitations = this.tableFrom(INVITATIONS_TABLE, props);
    this.auditLog = this.tableFrom(AUDIT_LOG_TABLE, props);
    this.personalTokens = this.tableFrom(PERSONAL_TOKENS_TABLE, props);
    this.all = [
      { definition: this.petsDefinition, table: this.pets },
      { definition: API_KEYS_TABLE, table: this.apiKeys },
      { definition: PROJECTS_TABLE, table: this.projects },
      { definition: RATE_LIMITS_TABLE, table: this.rateLimits },
      { definition: IDEMPOTENCY_TABLE, table: this.idempotencyKeys },
      { definition: CUSTOM_DOMAINS_TABLE, table: this.customDomains },
      { definition: CONSOLE_SESSIONS_TABLE, table: this.consoleSessions },
      { definition: PROJECT_MEMBERS_TABLE, table: this.projectMembers },
      { definition: INVITATIONS_TABLE, table: this.invitations },
      { definition: AUDIT_LOG_TABLE, table: this.auditLog },
      { definition: PERSONAL_TOKENS_TABLE, table: this.personalTokens },
    ];
  }

  private tableFrom(definition: TableDefinition, props: DataTablesProps): Table {
    const table = new Table(this, definition.logicalName, {
      partitionKey: toAttribute(definition.partitionKey),
      sortKey: definition.sortKey ? toAttribute(definition.sortKey) : undefined,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: definition.timeToLiveAttribute,
      removalPolicy: props.removalPolicy,
      deletionProtection: props.deletionProtection ?? false,
    });
    for (const index of definition.globalIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: toAttribute(index.partitionKey),
        sortKey: toAttribute(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }
    return table;
  }
}
