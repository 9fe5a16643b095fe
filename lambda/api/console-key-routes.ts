import type { ApiKeyView, IssuedKey } from '../core/console-views';
import type { ConsoleRoute } from './console-routes';
import type { Schema } from './schema';

/**
 * The console's routes of a project's API keys: list, create, rotate, revoke. Declared apart
 * from console-routes.ts, which spreads them into its one route table.
 */

/** A route's answer type for the compiler (as console-routes.ts's `answers`). */
function answers<Body>(): Body | undefined {
  return undefined;
}

/** `POST /keys`: the new key's name, to tell keys apart. */
export const CREATE_KEY_BODY = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
  additionalProperties: false,
} as const satisfies Schema;

export const KEY_ROUTES = [
  {
    operationId: 'listKeys',
    method: 'GET',
    path: '/keys',
    summary: "The project's API keys, oldest first: id, name, created and revoked times (never a secret).",
    successStatus: 200,
    action: 'listKeys',
    queryParameters: [],
    errors: [],
    answer: answers<{ readonly keys: readonly ApiKeyView[] }>(),
  },
  {
    operationId: 'createKey',
    method: 'POST',
    path: '/keys',
    summary: 'Issues a key of the project (`{"name": "ci"}`); the key is in the answer once and never again.',
    successStatus: 201,
    action: 'manageKeys',
    queryParameters: [],
    requestBody: CREATE_KEY_BODY,
    audit: 'key.create',
    errors: ['too_many_keys'],
    answer: answers<IssuedKey>(),
  },
  {
    operationId: 'rotateKey',
    method: 'POST',
    path: '/keys/{keyId}/rotate',
    summary:
      'Replaces an active key by a new one of the same name (in the answer once); the old one is revoked and stops working within 30 s.',
    successStatus: 201,
    action: 'manageKeys',
    queryParameters: [],
    audit: 'key.rotate',
    errors: ['key_not_found', 'key_revoked'],
    answer: answers<IssuedKey>(),
  },
  {
    operationId: 'revokeKey',
    method: 'DELETE',
    path: '/keys/{keyId}',
    summary: 'Revokes a key; it stops working within 30 s (again is fine: the first time is kept).',
    successStatus: 200,
    action: 'manageKeys',
    queryParameters: [],
    audit: 'key.revoke',
    errors: ['key_not_found'],
    answer: answers<{ readonly key: ApiKeyView }>(),
  },
] as const satisfies readonly ConsoleRoute<string>[];
