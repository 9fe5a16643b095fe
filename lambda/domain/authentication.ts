import type { Principal } from '../api/principal';
import { type ApiKeyRecord, keyMatches, parseApiKey } from './api-key';

/** `Bearer <token>`, the scheme matched case-insensitively (RFC 9110 §11.1). */
const BEARER = /^bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

export type KeyLookup = (keyId: string) => Promise<ApiKeyRecord | undefined>;

export interface Authentication {
  principal: Principal;
  /** The authenticated key's usage identifier (for the gateway's usage plans). */
  usageId?: string;
}

/**
 * Decides who a request comes from, given its Authorization header values.
 * Unknown, malformed, wrong and revoked keys all fail alike, so a caller learns
 * nothing about which keys exist. A store failure is reported as such (503),
 * neither as a bad key nor as a crash.
 */
export async function authenticate(
  authorization: readonly string[],
  lookup: KeyLookup,
): Promise<Authentication> {
  if (authorization.length === 0) return failed('missing_api_key');
  const [header] = authorization;
  const match = authorization.length === 1 && header !== undefined ? BEARER.exec(header.trim()) : null;
  if (!match?.[1]) return failed('invalid_authorization');
  const presented = parseApiKey(match[1]);
  if (!presented) return failed('invalid_api_key');
  let record: ApiKeyRecord | undefined;
  try {
    record = await lookup(presented.keyId);
  } catch {
    return failed('service_unavailable');
  }
  if (!record || !keyMatches(record, presented.secret)) return failed('invalid_api_key');
  return {
    principal: { authenticated: true, keyId: record.keyId, plan: record.plan },
    usageId: record.usageId,
  };
}

function failed(failure: Exclude<Principal, { authenticated: true }>['failure']): Authentication {
  return { principal: { authenticated: false, failure } };
}
