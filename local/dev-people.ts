/**
 * Local mode's development people (issue 26): the accounts of the local OpenID provider
 * (local/oidc-provider.ts), one source for the provider, `npm start`'s banner, the README and
 * the tests. Their passwords are fixed and public: the provider listens on loopback only, and a
 * fixed password is one the README can state.
 */
export interface DevPerson {
  /** The ID token's `sub`. */
  readonly subject: string;
  readonly email: string;
  readonly name: string;
  /** Typed on the provider's sign-in page (development only). */
  readonly password: string;
}

/** The development owner of project `dev` (`npm start` prints the members command that makes it one). */
export const DEV_OWNER: DevPerson = {
  subject: 'dev-owner',
  email: 'owner@dev.animalstore.localhost',
  name: 'Dev Owner',
  password: 'dev-owner-password',
};

/** The development viewer, for trying what a viewer may and may not do. */
export const DEV_VIEWER: DevPerson = {
  subject: 'dev-viewer',
  email: 'viewer@dev.animalstore.localhost',
  name: 'Dev Viewer',
  password: 'dev-viewer-password',
};

export const DEV_PEOPLE: readonly DevPerson[] = [DEV_OWNER, DEV_VIEWER];
