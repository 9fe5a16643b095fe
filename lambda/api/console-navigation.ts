import { CONSOLE_API_PREFIX } from './console-routes';

/**
 * The rest of the console's browser navigations around the identity provider (issue 26), beside
 * the sign-in's start and callback (console-routes.ts): outside the route table, as they are
 * navigations or a question the page asks before anyone is signed in. No Node: the page reads them.
 */

/** Answers 200 where sign-in through a provider is set up (nothing there otherwise): the page offers only what works. */
export const SIGN_IN_PROVIDER_PATH = `${CONSOLE_API_PREFIX}/sign-in`;

/**
 * A navigation after the page has ended its session (`DELETE /session`): on to the provider's
 * end-session endpoint when it has one, which returns to the page; else straight to the page.
 */
export const SIGN_OUT_PATH = `${CONSOLE_API_PREFIX}/sign-out`;

/**
 * A sign-in navigation that is refused lands on the page with the Error body's code (and the
 * check that failed) in these query parameters, never the words: the page has its own, so a
 * link cannot make it show someone else's text.
 */
export const SIGN_IN_FAILED_PARAMETER = 'sign-in-failed';
export const SIGN_IN_REFUSAL_PARAMETER = 'refusal';
