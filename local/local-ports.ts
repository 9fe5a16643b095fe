import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ServicePorts } from '../lambda/composition/ports';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { AuditLogRepository } from '../lambda/store/audit-log-repository';
import { ConsoleSessionRepository } from '../lambda/store/console-session-repository';
import { CustomDomainRepository } from '../lambda/store/custom-domain-repository';
import { IdempotencyRepository } from '../lambda/store/idempotency-repository';
import { InvitationRepository } from '../lambda/store/invitation-repository';
import { MemberRepository } from '../lambda/store/member-repository';
import { PersonalTokenRepository } from '../lambda/store/personal-token-repository';
import { PetRepository } from '../lambda/store/pet-repository';
import { ProjectRepository } from '../lambda/store/project-repository';
import { SelfServiceSlotStore } from '../lambda/store/self-service-slots';
import { UsageHistoryStore } from '../lambda/store/usage-history-store';
import { LOCAL_TABLE_NAMES } from './local-tables';

/** Local mode's tables as the service's ports: what a Lambda function builds from its environment. */
export type LocalTablePorts = Pick<
  ServicePorts,
  | 'pets'
  | 'idempotencyKeys'
  | 'apiKeys'
  | 'projects'
  | 'counters'
  | 'customDomains'
  | 'consoleSessions'
  | 'members'
  | 'invitations'
  | 'auditLog'
  | 'personalTokens'
  | 'clock'
> & {
  readonly selfServiceSlots: SelfServiceSlotStore;
  readonly apiKeys: ApiKeyRepository;
  readonly projects: ProjectRepository;
  readonly customDomains: CustomDomainRepository;
};

/** The store modules over the local tables (the edge's tenants and DNS start with local mode's custom domains). */
export function localTablePorts(client: DynamoDBDocumentClient, clock: () => number): LocalTablePorts {
  return {
    pets: new PetRepository(client, LOCAL_TABLE_NAMES.pets, { clock }),
    idempotencyKeys: new IdempotencyRepository(client, LOCAL_TABLE_NAMES.idempotency),
    apiKeys: new ApiKeyRepository(client, LOCAL_TABLE_NAMES.apiKeys),
    projects: new ProjectRepository(client, LOCAL_TABLE_NAMES.projects),
    counters: new UsageHistoryStore(client, LOCAL_TABLE_NAMES.rateLimits),
    customDomains: new CustomDomainRepository(client, LOCAL_TABLE_NAMES.customDomains),
    consoleSessions: new ConsoleSessionRepository(client, LOCAL_TABLE_NAMES.consoleSessions),
    members: new MemberRepository(client, LOCAL_TABLE_NAMES.projectMembers),
    invitations: new InvitationRepository(client, LOCAL_TABLE_NAMES.invitations),
    // The self-service start's counters live beside the rate limiter's (issue 27).
    selfServiceSlots: new SelfServiceSlotStore(client, LOCAL_TABLE_NAMES.rateLimits),
    auditLog: new AuditLogRepository(client, LOCAL_TABLE_NAMES.auditLog),
    personalTokens: new PersonalTokenRepository(client, LOCAL_TABLE_NAMES.personalTokens),
    clock,
  };
}
