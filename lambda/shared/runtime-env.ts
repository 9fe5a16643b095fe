/**
 * Names of the environment variables the functions read. The CDK stack sets them
 * and the local server sets them, from this one list.
 */
/** Seconds one invocation of an API function may run: the stack sets it, and local mode gives its functions it. */
export const API_FUNCTION_TIMEOUT_SECONDS = 10;

export const RUNTIME_ENV = {
  /** Name of the pets table. */
  petsTable: 'PETS_TABLE_NAME',
  /** Name of the API keys table. */
  apiKeysTable: 'API_KEYS_TABLE_NAME',
  /** `false` while a deployed pets table lacks its project-and-status index (upgrade step 1); unset otherwise. */
  petsStatusIndex: 'PETS_STATUS_INDEX',
  /** Name of the projects table. */
  projectsTable: 'PROJECTS_TABLE_NAME',
  /** The platform domain whose subdomains are project addresses (`<project>.<domain>`); unset: no project addresses. */
  platformDomain: 'PLATFORM_DOMAIN',
  /** Name of the Idempotency-Key records table (createPet only). */
  idempotencyTable: 'IDEMPOTENCY_TABLE_NAME',
  /** Name of the rate-limit counters table. */
  rateLimitsTable: 'RATE_LIMITS_TABLE_NAME',
  /** Key that authenticates pagination cursors (integrity, not secrecy: see README). */
  cursorKey: 'CURSOR_KEY',
  /** Seconds an API key or project lookup is cached inside the authorizer (revocations and plan changes take effect within it). */
  apiKeyCacheSeconds: 'API_KEY_CACHE_SECONDS',
  /** Usage identifier the authorizer returns for unauthenticated requests (the anonymous usage plan's key). */
  anonymousUsageId: 'ANONYMOUS_USAGE_ID',
  /** Usage identifier the authorizer returns for a preflight from an allowed origin (the preflight usage plan's key). */
  preflightUsageId: 'PREFLIGHT_USAGE_ID',
  /** Endpoint of a DynamoDB-compatible store (local mode only; unset in AWS). */
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
  /** Name of the custom domains table (the console function). */
  customDomainsTable: 'CUSTOM_DOMAINS_TABLE_NAME',
  /** Name of the console sessions table (the console function). */
  consoleSessionsTable: 'CONSOLE_SESSIONS_TABLE_NAME',
  projectMembersTable: 'PROJECT_MEMBERS_TABLE_NAME',
  // Invitations (issue 27).
  /** Name of the invitations table (the console function). */
  invitationsTable: 'INVITATIONS_TABLE_NAME',
  /** The address invitations are sent from (`invitations@<platform domain>`, an SES domain identity's). */
  invitationSender: 'INVITATION_SENDER',
  /** JSON `{"<provider name>": ["<email domain>", …]}`: the domains each enterprise identity provider may vouch for. */
  enterpriseEmailDomains: 'ENTERPRISE_EMAIL_DOMAINS',
  /** Name of the audit log table (the console function: appends and reads, never updates). */
  auditLogTable: 'AUDIT_LOG_TABLE_NAME',
  /** Name of the personal access tokens table (the console function, issue 28). */
  personalTokensTable: 'PERSONAL_TOKENS_TABLE_NAME',
  /** The console page's origin (`https://console.<platform domain>`): state-changing cookie requests must come from it. */
  consoleOrigin: 'CONSOLE_ORIGIN',
  /** The spec's `{platform_cname_target}`, every custom domain's CNAME (the console function). */
  domainsTarget: 'DOMAINS_TARGET',
  /** The edge's multi-tenant distribution, whose tenants the console function creates. */
  edgeDistributionId: 'EDGE_DISTRIBUTION_ID',
  /** The edge's connection group, which every tenant joins. */
  edgeConnectionGroupId: 'EDGE_CONNECTION_GROUP_ID',
  /**
   * ARN of the origin header secret's replica in this region (the authorizer): requests
   * carrying its value came through the edge. Unset: no request is believed to.
   */
  edgeOriginSecretArn: 'EDGE_ORIGIN_SECRET_ARN',
  // The self-service start in AWS (issue 27), set only where it is on (SELF_SERVICE_PROJECTS=on).
  /** The stack's name, which names its usage plans and a project's API Gateway key (usage-plan names). */
  gatewayStackName: 'GATEWAY_STACK_NAME',
  // The console's sign-in through the identity provider (issue 26); unset: console tokens only.
  /** The OpenID provider's issuer URL (the Cognito user pool's). */
  oidcIssuer: 'OIDC_ISSUER',
  /** The console's app client id at the provider. */
  oidcClientId: 'OIDC_CLIENT_ID',
  /** ARN of the Secrets Manager secret holding the app client's secret (a plain string). */
  oidcClientSecretArn: 'OIDC_CLIENT_SECRET_ARN',
} as const;

export type RuntimeEnvName = (typeof RUNTIME_ENV)[keyof typeof RUNTIME_ENV];

/** Reads a required variable, failing at module load with a message that names it and the fix. */
export function requireEnv(name: RuntimeEnvName): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`Environment variable ${name} is not set: the stack (or the local server) must set it.`);
  }
  return value;
}

/** Reads an optional variable. */
export function optionalEnv(name: RuntimeEnvName): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}
