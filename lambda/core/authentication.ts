import { type ApiKeyRecord, keyMatches, parseApiKey } from './api-key';
import type { PlanLimits, PlanName } from './plans';
import { StoreRefusedInputError } from './errors';
import { couldNameProject, LEGACY_PROJECT, type ProjectRecord, projectLimits } from './project';

/** `Bearer <token>`, the scheme matched case-insensitively (RFC 9110 §11.1). */
const BEARER = /^bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

export type KeyLookup = (keyId: string) => Promise<ApiKeyRecord | undefined>;
export type ProjectLookup = (name: string) => Promise<ProjectRecord | undefined>;

/** Why a request is not authenticated. */
export type AuthFailure =
  | 'missing_api_key'
  | 'invalid_authorization'
  | 'invalid_api_key'
  | 'service_unavailable'
  /** The request's host is a project address, but no project has that name. */
  | 'unknown_address'
  /**
   * The request came through the edge for a custom domain that is not (or no longer) one of
   * the address's project's serving domains: refused like an unknown address.
   */
  | 'unknown_domain';

/** Who a request comes from: a key of a project, with the project's plan and limits, or nobody and why. */
export type Principal =
  | {
      readonly authenticated: true;
      readonly keyId: string;
      readonly project: string;
      readonly plan: PlanName;
      readonly limits: PlanLimits;
    }
  | { readonly authenticated: false; readonly failure: AuthFailure };

export interface Authentication {
  principal: Principal;
  /** The project's usage identifier (for the gateway's usage plans). */
  usageId?: string;
  /**
   * The browser origins the project of the request's address allows (CORS), whether or not
   * the request is authenticated: a preflight carries no key, so only the address can name
   * the project. None on other hosts.
   */
  allowedOrigins?: readonly string[];
}

export interface AuthenticationRequest {
  /** The Authorization header values. */
  readonly authorization: readonly string[];
  /** The project the request's address names, if it was sent to a project address. */
  readonly addressProject?: string;
}

/**
 * Decides who a request comes from. Unknown, malformed, wrong and revoked keys all fail
 * alike, and so does a valid key of another project sent to a project's address: a
 * caller learns nothing about which keys exist or whose they are. A store failure is
 * reported as such (503), neither as a bad key nor as a crash.
 */
export async function authenticate(
  { authorization, addressProject }: AuthenticationRequest,
  lookupKey: KeyLookup,
  lookupProject: ProjectLookup,
): Promise<Authentication> {
  // Once the address's project is read, every answer carries its origins, failures included.
  let address: ProjectRecord | undefined;
  const failed = (failure: AuthFailure): Authentication => ({
    principal: { authenticated: false, failure },
    ...originsOf(address),
  });
  try {
    if (addressProject !== undefined) {
      // A label no project can have (over 63 characters) is looked up nowhere.
      if (!couldNameProject(addressProject)) return failed('unknown_address');
      address = await lookupProject(addressProject);
      if (!address) return failed('unknown_address');
    }
    if (authorization.length === 0) return failed('missing_api_key');
    const [header] = authorization;
    const match = authorization.length === 1 && header !== undefined ? BEARER.exec(header.trim()) : null;
    if (!match?.[1]) return failed('invalid_authorization');
    const presented = parseApiKey(match[1]);
    if (!presented) return failed('invalid_api_key');
    const key = await lookupKey(presented.keyId);
    if (!key || !keyMatches(key, presented.secret)) return failed('invalid_api_key');
    // A key stored before projects has none until the upgrade reaches it: it belongs to legacy.
    const projectName = key.project ?? LEGACY_PROJECT;
    if (addressProject !== undefined && projectName !== addressProject) return failed('invalid_api_key');
    const project = await lookupProject(projectName);
    // A key whose project was deleted acts for nobody.
    if (!project) return failed('invalid_api_key');
    return {
      principal: {
        authenticated: true,
        keyId: key.keyId,
        project: project.name,
        plan: project.plan,
        limits: projectLimits(project),
      },
      usageId: project.usageId,
      ...originsOf(address),
    };
  } catch (error) {
    // A value the store refuses names nothing: the address no project, the key no key.
    if (error instanceof StoreRefusedInputError) {
      return failed(addressProject !== undefined && !address ? 'unknown_address' : 'invalid_api_key');
    }
    return failed('service_unavailable');
  }
}

function originsOf(address: ProjectRecord | undefined): Pick<Authentication, 'allowedOrigins'> {
  return address?.allowedOrigins?.length ? { allowedOrigins: address.allowedOrigins } : {};
}
