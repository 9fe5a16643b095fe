import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';

/**
 * The console function's tables, as the stack names them to it (lib/constructs/console-service.ts),
 * here the local store's: one list for every test that loads the console handler.
 */
export const CONSOLE_TABLES_ENV = {
  [RUNTIME_ENV.customDomainsTable]: LOCAL_TABLE_NAMES.customDomains,
  [RUNTIME_ENV.consoleSessionsTable]: LOCAL_TABLE_NAMES.consoleSessions,
  [RUNTIME_ENV.projectMembersTable]: LOCAL_TABLE_NAMES.projectMembers,
  [RUNTIME_ENV.invitationsTable]: LOCAL_TABLE_NAMES.invitations,
  [RUNTIME_ENV.personalTokensTable]: LOCAL_TABLE_NAMES.personalTokens,
  [RUNTIME_ENV.auditLogTable]: LOCAL_TABLE_NAMES.auditLog,
  // Self-service is on by default, its keys named by the stack (test/lambda/handlers/console-self-service-aws.test.ts).
  [RUNTIME_ENV.gatewayStackName]: 'AnimalStore-production',
};
