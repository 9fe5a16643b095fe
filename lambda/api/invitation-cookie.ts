import { cookieValues } from './console-cookies';

/**
 * An opened invitation's token, between its link and the sign-in that accepts it (issue 27):
 * `__Host-`, HttpOnly (the page's scripts never read it again) and SameSite=Lax, because the
 * provider's redirect back to the callback is a cross-site top-level navigation. It lasts 10
 * minutes and is cleared at the callback.
 */
export const INVITATION_COOKIE_NAME = '__Host-animal-store-invitation';

export const INVITATION_COOKIE_SECONDS = 600;

export function invitationCookie(token: string): string {
  return `${INVITATION_COOKIE_NAME}=${token}; Path=/; Max-Age=${INVITATION_COOKIE_SECONDS}; HttpOnly; Secure; SameSite=Lax`;
}

export function clearedInvitationCookie(): string {
  return `${INVITATION_COOKIE_NAME}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Lax`;
}

/** The one invitation token a request's cookies carry; undefined for none or several. */
export function invitationCookieValue(cookieHeaders: readonly string[]): string | undefined {
  const values = cookieValues(cookieHeaders, INVITATION_COOKIE_NAME).filter((value) => value !== '');
  return values.length === 1 ? values[0] : undefined;
}
