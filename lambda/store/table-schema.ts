/**
 * Table definitions, stated once: the CDK stack, the local mode and the
 * repositories all read them, so the deployed and the embedded tables cannot drift.
 */

export type AttributeType = 'S' | 'N';

export interface KeyAttribute {
  readonly name: string;
  readonly type: AttributeType;
}

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  /** Every index has a sort key: the embedded store loses items from hash-only indexes. */
  readonly sortKey: KeyAttribute;
}

export interface TableDefinition {
  /** Logical name: the CDK construct id and the local table name's stem. */
  readonly logicalName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey?: KeyAttribute;
  readonly globalIndexes: readonly IndexDefinition[];
  /** Attribute that holds an expiry time (epoch seconds) for DynamoDB TTL, if any. */
  readonly timeToLiveAttribute?: string;
}

/**
 * Pets: one item per pet, keyed by its numeric id. Two indexes make every list a
 * `Query` in ascending id order: one per status, one over all pets (constant
 * partition `collection = "pets"`).
 */
export const PETS_TABLE = {
  logicalName: 'Pets',
  partitionKey: { name: 'id', type: 'N' },
  globalIndexes: [
    {
      indexName: 'status-id-index',
      partitionKey: { name: 'status', type: 'S' },
      sortKey: { name: 'id', type: 'N' },
    },
    {
      indexName: 'collection-id-index',
      partitionKey: { name: 'collection', type: 'S' },
      sortKey: { name: 'id', type: 'N' },
    },
  ],
} as const satisfies TableDefinition;

/** API keys: one item per key, keyed by its public key id; the secret is stored only as a hash. */
export const API_KEYS_TABLE = {
  logicalName: 'ApiKeys',
  partitionKey: { name: 'keyId', type: 'S' },
  globalIndexes: [],
} as const satisfies TableDefinition;

/**
 * Projects (tenants): one item per project, keyed by its name (its subdomain). The plan
 * lives here and nowhere else; the console token only as a hash.
 */
export const PROJECTS_TABLE = {
  logicalName: 'Projects',
  partitionKey: { name: 'name', type: 'S' },
  globalIndexes: [],
} as const satisfies TableDefinition;

/**
 * Rate-limit counters: one item per caller (API key or client IP) per UTC day,
 * holding the day's count and the current minute's count. DynamoDB's TTL deletes
 * items a day after their day ends.
 */
export const RATE_LIMITS_TABLE = {
  logicalName: 'RateLimits',
  partitionKey: { name: 'counterId', type: 'S' },
  globalIndexes: [],
  timeToLiveAttribute: 'expiresAt',
} as const satisfies TableDefinition;

export const TABLES: readonly TableDefinition[] = [PETS_TABLE, API_KEYS_TABLE, RATE_LIMITS_TABLE];

/** Every attribute that is a key of the table or of one of its indexes (for CreateTable). */
export function keyAttributes(table: TableDefinition): KeyAttribute[] {
  const all = [
    table.partitionKey,
    table.sortKey,
    ...table.globalIndexes.flatMap((i) => [i.partitionKey, i.sortKey]),
  ];
  const byName = new Map<string, KeyAttribute>();
  for (const attribute of all) if (attribute) byName.set(attribute.name, attribute);
  return [...byName.values()];
}

/**
 * Domain state for the `domains` tool: one item per custom domain (`id` = the domain
 * name) holding its verification and certificate state, and one per project
 * (`id` = `project:<name>`) recording its first successful deploy. The list of domains
 * itself is the domains configuration, not this table.
 */
export const DOMAINS_TABLE = {
  logicalName: 'Domains',
  partitionKey: { name: 'id', type: 'S' },
  globalIndexes: [],
} as const satisfies TableDefinition;
