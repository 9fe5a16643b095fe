/** Invitations' limits as plain data (no Node): the console page shows the catalogue that names them. */

/** Most invitations a project may create in any 24 hours, whatever becomes of them: each sends an email. */
export const MAX_INVITATIONS_PER_DAY = 100;

/** The window of {@link MAX_INVITATIONS_PER_DAY}. */
export const INVITATION_DAY_MS = 24 * 60 * 60_000;
