import { MAX_API_KEY_CACHE_SECONDS } from '../api/limits';
import type { ApiKeyStore } from '../core/api-key';
import type { CustomDomainStore } from '../core/custom-domains/custom-domains-ports';
import { EDGE_DOMAIN_CACHE_SECONDS } from '../core/edge-request';
import type { ProjectStore } from '../core/project';
import { authorizer, type AuthorizerHandler } from '../operations/authorizer';
import { cachedLookup } from '../shared/cached-lookup';
import type { ServicePorts } from './ports';

/** What the authorizer reads: keys and projects by name, and the edge's secrets and domains where an edge serves. */
export interface AuthorizerPorts extends Pick<ServicePorts, 'clock'> {
  readonly apiKeys: Pick<ApiKeyStore, 'get'>;
  readonly projects: Pick<ProjectStore, 'get'>;
  /** The edge in front of custom domains; none: no request is believed to come through one. */
  readonly edge?: {
    readonly originSecrets: NonNullable<ServicePorts['originSecrets']>;
    readonly customDomains: Pick<CustomDomainStore, 'get'>;
    /** The clock of the domain cache. @default the ports' clock */
    readonly clock?: () => number;
  };
}

export interface AuthorizerSettings {
  /** The domain whose subdomains are project addresses; none: no project addresses. */
  readonly platformDomain?: string;
  /** Seconds a key or project lookup is cached, at most MAX_API_KEY_CACHE_SECONDS. @default 30 */
  readonly cacheSeconds?: number;
  /** Usage identifier for requests without a valid key (the anonymous usage plan's key). */
  readonly anonymousUsageId?: string;
  /** Usage identifier for an allowed preflight (the preflight usage plan's key). */
  readonly preflightUsageId?: string;
}

/**
 * The authorizer with its cached lookups: a warm one answers without a read, and a revoked key,
 * a plan change or a removed domain takes effect within the cache's time.
 */
export function composeAuthorizer(
  ports: AuthorizerPorts,
  settings: AuthorizerSettings = {},
): AuthorizerHandler {
  const { apiKeys, projects, edge, clock } = ports;
  const cacheSeconds = Math.min(settings.cacheSeconds ?? 30, MAX_API_KEY_CACHE_SECONDS);
  return authorizer({
    findKey: cachedLookup((keyId: string) => apiKeys.get(keyId), cacheSeconds, clock),
    findProject: cachedLookup((name: string) => projects.get(name), cacheSeconds, clock),
    platformDomain: settings.platformDomain,
    anonymousUsageId: settings.anonymousUsageId,
    preflightUsageId: settings.preflightUsageId,
    ...(edge
      ? {
          edge: {
            originSecrets: edge.originSecrets,
            findDomain: cachedLookup(
              (name: string) => edge.customDomains.get(name),
              EDGE_DOMAIN_CACHE_SECONDS,
              edge.clock ?? clock,
            ),
          },
        }
      : {}),
  });
}
