import { SIGN_IN_FAILED_PARAMETER, SIGN_IN_REFUSAL_PARAMETER } from '../../lambda/api/console-navigation';
import type { AnyErrorCode } from '../../lambda/api/error-catalogue';
import type { SignInRefusal } from '../../lambda/core/identity';

/**
 * A sign-in through the identity provider that was refused lands here, on the page, with the
 * Error body's code and the check that failed in the query (lambda/operations/console-sign-in.ts).
 * The words are the page's own, chosen by code: a link that carries a code cannot make the page
 * say anything else.
 */

const REFUSALS: Record<SignInRefusal, string> = {
  state_mismatch:
    "The identity provider's answer did not match the sign-in this browser started (its state differed), so it was not trusted.",
  code_rejected:
    'The identity provider did not accept the sign-in code: it had been used already, or had expired.',
  nonce_mismatch: "The identity provider's ID token was not made for this sign-in (its nonce differed).",
  wrong_issuer: 'The answer came from another identity provider than the one this sign-in went to.',
  token_invalid: "The identity provider's ID token did not check out.",
  provider_error: 'The identity provider did not sign you in: it answered with an error.',
  provider_unavailable: 'The identity provider could not be reached.',
};

const FAILURES: Partial<Record<AnyErrorCode, string>> = {
  sign_in_not_started:
    'The sign-in could not be finished: it was not started in this browser, or it took longer than 10 minutes.',
  no_project_membership:
    'You signed in, but you are not a member of any project yet: ask an owner of your project to add you.',
  identity_provider_unavailable: 'The identity provider could not be reached. Try again in a moment.',
  too_many_sessions:
    'Your project has as many live console sessions as it may have: sign out in another browser, or wait for an idle one to end.',
  rate_limited: 'Too many sign-ins from this network in a short time. Wait a minute, then try again.',
  temporarily_banned: 'Too many sign-ins from this network in a short time. Wait a minute, then try again.',
};

/** The table's own text for a code: never an inherited property (`?code=constructor`). */
function ownText(table: Readonly<Record<string, string>>, code: string): string | undefined {
  return Object.hasOwn(table, code) ? table[code] : undefined;
}

/** What the page says of a refused sign-in, if its address says one was refused. */
export function signInFailureOf(search: string): string | undefined {
  const query = new URLSearchParams(search);
  const code = query.get(SIGN_IN_FAILED_PARAMETER);
  if (code === null) return undefined;
  const refusal = query.get(SIGN_IN_REFUSAL_PARAMETER);
  if (code === 'sign_in_refused') {
    return (refusal !== null && ownText(REFUSALS, refusal)) || REFUSALS.token_invalid;
  }
  return ownText(FAILURES, code) ?? 'The sign-in did not finish.';
}

/** The page's address without the failure, so a reload or a bookmark does not show it again. */
export function withoutSignInFailure(href: string): string {
  const url = new URL(href);
  url.searchParams.delete(SIGN_IN_FAILED_PARAMETER);
  url.searchParams.delete(SIGN_IN_REFUSAL_PARAMETER);
  return url.pathname + url.search + url.hash;
}
