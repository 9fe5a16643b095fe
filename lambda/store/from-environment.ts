import { optionalEnv, RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { ApiKeyRepository } from './api-key-repository';
import { AuditLogRepository } from './audit-log-repository';
import { ConsoleSessionRepository } from './console-session-repository';
import { CustomDomainRepository } from './custom-domain-repository';
import { documentClient } from './dynamodb-client';
import { IdempotencyRepository } from './idempotency-repository';
import { InvitationRepository } from './invitation-repository';
import { MemberRepository } from './member-repository';
import { PersonalTokenRepository } from './personal-token-repository';
import { PetRepository } from './pet-repository';
import { ProjectRepository } from './project-repository';
import { RateLimitStore } from './rate-limit-store';
import { UsageHistoryStore } from './usage-history-store';

/**
 * The store modules of a Lambda function, configured from the environment the stack sets
 * (RUNTIME_ENV). Only the functions' composition places (lambda/handlers/) call these.
 */

export function petRepositoryFromEnv(clock: () => number): PetRepository {
  return new PetRepository(documentClient(), requireEnv(RUNTIME_ENV.petsTable), {
    statusIndex: optionalEnv(RUNTIME_ENV.petsStatusIndex) !== 'false',
    clock,
  });
}

export function apiKeyRepositoryFromEnv(): ApiKeyRepository {
  return new ApiKeyRepository(documentClient(), requireEnv(RUNTIME_ENV.apiKeysTable));
}

export function projectRepositoryFromEnv(): ProjectRepository {
  return new ProjectRepository(documentClient(), requireEnv(RUNTIME_ENV.projectsTable));
}

export function rateLimitStoreFromEnv(): RateLimitStore {
  return new RateLimitStore(documentClient(), requireEnv(RUNTIME_ENV.rateLimitsTable));
}

/** The console's counters, which also read a project's usage history. */
export function usageHistoryStoreFromEnv(): UsageHistoryStore {
  return new UsageHistoryStore(documentClient(), requireEnv(RUNTIME_ENV.rateLimitsTable));
}

export function idempotencyRepositoryFromEnv(): IdempotencyRepository {
  return new IdempotencyRepository(documentClient(), requireEnv(RUNTIME_ENV.idempotencyTable));
}

export function customDomainRepositoryFromEnv(): CustomDomainRepository {
  return new CustomDomainRepository(documentClient(), requireEnv(RUNTIME_ENV.customDomainsTable));
}

export function memberRepositoryFromEnv(): MemberRepository {
  return new MemberRepository(documentClient(), requireEnv(RUNTIME_ENV.projectMembersTable));
}

export function personalTokenRepositoryFromEnv(): PersonalTokenRepository {
  return new PersonalTokenRepository(documentClient(), requireEnv(RUNTIME_ENV.personalTokensTable));
}

export function consoleSessionRepositoryFromEnv(): ConsoleSessionRepository {
  return new ConsoleSessionRepository(documentClient(), requireEnv(RUNTIME_ENV.consoleSessionsTable));
}

export function invitationRepositoryFromEnv(): InvitationRepository {
  return new InvitationRepository(documentClient(), requireEnv(RUNTIME_ENV.invitationsTable));
}

/**
 * The enterprise providers' vouched email domains (ENTERPRISE_EMAIL_DOMAINS, JSON set by the
 * stack from lib/constructs/enterprise-providers.ts); unset: no provider vouches for any.
 */
export function vouchedDomainsFromEnv(): (identityProvider: string) => readonly string[] {
  const text = optionalEnv(RUNTIME_ENV.enterpriseEmailDomains);
  const parsed = text ? (JSON.parse(text) as Record<string, readonly string[]>) : {};
  return (name) => (Object.hasOwn(parsed, name) ? (parsed[name] ?? []) : []);
}

export function auditLogRepositoryFromEnv(): AuditLogRepository {
  return new AuditLogRepository(documentClient(), requireEnv(RUNTIME_ENV.auditLogTable));
}
