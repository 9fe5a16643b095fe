import { randomBytes } from 'node:crypto';
import {
  DEFAULT_RETURN_TO,
  openPendingSignIn,
  PENDING_SIGN_IN_TTL_MS,
  pendingSignInKey,
  safeReturnTo,
  sealPendingSignIn,
} from '../../../lambda/core/pending-sign-in';

const key = pendingSignInKey(randomBytes(32));
const pending = { state: 's-1', nonce: 'n-1', codeVerifier: 'v-1', returnTo: '/console/keys' };
const NOW = Date.parse('2031-03-04T05:06:00.000Z');

test('a sealed sign-in opens with its key, until 10 minutes have passed', () => {
  const sealed = sealPendingSignIn(pending, key, NOW);
  expect(sealed).not.toContain('s-1');
  expect(openPendingSignIn(sealed, key, NOW + PENDING_SIGN_IN_TTL_MS - 1)).toEqual(pending);
  expect(openPendingSignIn(sealed, key, NOW + PENDING_SIGN_IN_TTL_MS)).toBeUndefined();
});

test('an altered seal, another key or garbage does not open', () => {
  const sealed = sealPendingSignIn(pending, key, NOW);
  const bytes = Buffer.from(sealed, 'base64url');
  bytes[20] = (bytes[20] ?? 0) ^ 1;
  expect(openPendingSignIn(bytes.toString('base64url'), key, NOW)).toBeUndefined();
  expect(openPendingSignIn(sealed, pendingSignInKey(randomBytes(32)), NOW)).toBeUndefined();
  expect(openPendingSignIn('not-a-seal', key, NOW)).toBeUndefined();
  expect(openPendingSignIn('A'.repeat(4000), key, NOW)).toBeUndefined();
});

test('the return path is a path of the console page, never another site', () => {
  expect(safeReturnTo('/console/keys')).toBe('/console/keys');
  expect(safeReturnTo('/console/')).toBe('/console/');
  for (const hostile of [
    '//evil.example/console/',
    'https://evil.example/',
    '/console//evil',
    '/other',
    '/console/\\evil',
    undefined,
  ]) {
    expect(safeReturnTo(hostile)).toBe(DEFAULT_RETURN_TO);
  }
});
