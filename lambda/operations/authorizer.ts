import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { headerValues } from '../api/headers';
import { toAuthorizerContext } from '../api/principal';
import {
  type Authentication,
  authenticate,
  type KeyLookup,
  type ProjectLookup,
} from '../core/authentication';
import type { CustomDomain } from '../core/custom-domains/custom-domain';
import {
  domainServesProject,
  ORIGIN_SECRET_HEADER,
  originSecretMatches,
  parseViewerAddress,
  VIEWER_ADDRESS_HEADER,
  VIEWER_HOST_HEADER,
  viewerHostName,
} from '../core/edge-request';
import { allowedOrigin, projectOfHost } from '../core/project';

/** How the authorizer recognizes requests that came through the custom-domains edge. */
export interface EdgeTrust {
  /** The origin header's accepted values: current, and previous during a rotation (cached by the composition place). */
  readonly originSecrets: () => Promise<readonly string[]>;
  /** Finds a custom domain by name (cached briefly by the composition place: a removal takes effect within it). */
  readonly findDomain: (name: string) => Promise<Pick<CustomDomain, 'project' | 'state'> | undefined>;
}

export interface AuthorizerDependencies {
  /** Finds a key by id (the composition place caches it). */
  readonly findKey: KeyLookup;
  /** Finds a project by name (the composition place caches it). */
  readonly findProject: ProjectLookup;
  /** The domain whose subdomains are project addresses; none: no project addresses. */
  readonly platformDomain?: string;
  /** Usage identifier for requests without a valid key (the anonymous usage plan's key). */
  readonly anonymousUsageId?: string;
  /** Usage identifier for a preflight from an allowed origin (the preflight usage plan's key); none: the anonymous one. */
  readonly preflightUsageId?: string;
  /** The edge in front of custom domains; none: no request is believed to come through it. */
  readonly edge?: EdgeTrust;
}

export type AuthorizerHandler = (
  event: APIGatewayRequestAuthorizerEvent,
) => Promise<APIGatewayAuthorizerResult>;

/** The `Origin` header, sent once; a repeated one names no origin. */
function originOf(event: APIGatewayRequestAuthorizerEvent): string | undefined {
  const origins = headerValues(event, 'origin');
  return origins.length === 1 ? origins[0] : undefined;
}

/** The one value of a header sent once; a repeated one says nothing. */
function singleHeader(event: APIGatewayRequestAuthorizerEvent, name: string): string | undefined {
  const values = headerValues(event, name);
  return values.length === 1 ? values[0] : undefined;
}

/** What a request that came through the edge is believed about: its viewer, and the custom domain it named. */
type EdgeVerdict =
  | { readonly fromEdge: false }
  | { readonly fromEdge: true; readonly viewerAddress?: string; readonly failure?: 'unknown_domain' };

/**
 * Only a request carrying the origin secret came through the edge; any other's claims about
 * its viewer or its host are ignored, whatever it sends. Through the edge, the viewer's host
 * must be the address itself or a custom domain of the address's project that is serving: a
 * removed one is refused here at once, however long the edge takes to stop routing it.
 */
async function edgeVerdict(
  event: APIGatewayRequestAuthorizerEvent,
  edge: EdgeTrust | undefined,
  addressHost: string | undefined,
  addressProject: string | undefined,
): Promise<EdgeVerdict> {
  const presented = singleHeader(event, ORIGIN_SECRET_HEADER);
  if (!edge || presented === undefined) return { fromEdge: false };
  if (!originSecretMatches(presented, await edge.originSecrets())) return { fromEdge: false };
  const viewer = singleHeader(event, VIEWER_ADDRESS_HEADER);
  const viewerAddress = viewer === undefined ? undefined : parseViewerAddress(viewer);
  const viewerClaim = viewerAddress === undefined ? {} : { viewerAddress };
  const forwarded = singleHeader(event, VIEWER_HOST_HEADER);
  const host = forwarded === undefined ? undefined : viewerHostName(forwarded);
  if (host !== undefined && host === addressHost) return { fromEdge: true, ...viewerClaim };
  const served = host !== undefined && domainServesProject(await edge.findDomain(host), addressProject);
  return { fromEdge: true, ...viewerClaim, ...(served ? {} : { failure: 'unknown_domain' }) };
}

/**
 * REQUEST authorizer. It always allows the call and tells the operation, in the context,
 * who the caller is (a key of a project, with the project's plan and limits) or why not:
 * the operation then answers 401 or 404 itself, with the headers a gateway response could
 * not carry. On a project's address only that project's keys are valid, and the request's
 * `Origin`, when that project allows it, is passed on for the CORS headers. The usage
 * identifier is the project's random usage id, never a secret.
 */
export function authorizer({
  findKey,
  findProject,
  platformDomain,
  anonymousUsageId,
  preflightUsageId,
  edge,
}: AuthorizerDependencies): AuthorizerHandler {
  const usageIds = { anonymous: anonymousUsageId, preflight: preflightUsageId ?? anonymousUsageId };
  return async (event) => {
    const addressHost = viewerHostName(event.requestContext?.domainName ?? '');
    const addressProject = projectOfHost(event.requestContext?.domainName, platformDomain);
    let verdict: EdgeVerdict;
    try {
      verdict = await edgeVerdict(event, edge, addressHost, addressProject);
    } catch {
      // The secret or the domain could not be read: 503, neither believed nor refused as unknown.
      const unavailable: Authentication = {
        principal: { authenticated: false, failure: 'service_unavailable' },
      };
      return allowWith(event, unavailable, usageIds);
    }
    const authentication: Authentication =
      verdict.fromEdge && verdict.failure
        ? { principal: { authenticated: false, failure: verdict.failure } }
        : await authenticate(
            {
              authorization: headerValues(event, 'authorization'),
              ...(addressProject ? { addressProject } : {}),
            },
            findKey,
            findProject,
          );
    const viewerAddress = verdict.fromEdge ? verdict.viewerAddress : undefined;
    return allowWith(event, authentication, usageIds, viewerAddress);
  };
}

/** The policy that always allows, with who the caller is (or why not) in the context. */
function allowWith(
  event: APIGatewayRequestAuthorizerEvent,
  { principal, usageId, allowedOrigins }: Authentication,
  keyless: { readonly anonymous?: string | undefined; readonly preflight?: string | undefined },
  viewerAddress?: string,
): APIGatewayAuthorizerResult {
  const corsOrigin = allowedOrigin(originOf(event), allowedOrigins);
  // Only a valid key spends its project's gateway usage plan. A preflight from an allowed
  // origin (which anyone can forge) has a keyless plan of its own, apart from other keyless junk.
  const preflight =
    event.httpMethod === 'OPTIONS' &&
    corsOrigin !== undefined &&
    headerValues(event, 'access-control-request-method').length > 0;
  const usageIdentifierKey = usageId ?? (preflight ? keyless.preflight : keyless.anonymous);
  return {
    principalId: principal.authenticated ? principal.keyId : 'anonymous',
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: event.methodArn }],
    },
    context: {
      ...toAuthorizerContext(principal, corsOrigin),
      ...(viewerAddress === undefined ? {} : { viewerAddress }),
    },
    ...(usageIdentifierKey ? { usageIdentifierKey } : {}),
  };
}
