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
  /** The ID token's `email_verified`. @default true */
  readonly emailVerified?: boolean;
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

/**
 * People of no project (issue 27), for trying a first sign-in, a project of one's own, and
 * invitations: the newcomer starts alone and invites the colleague.
 */
export const DEV_NEWCOMER: DevPerson = {
  subject: 'dev-newcomer',
  email: 'newcomer@dev.animalstore.localhost',
  name: 'Dev Newcomer',
  password: 'dev-newcomer-password',
};

export const DEV_COLLEAGUE: DevPerson = {
  subject: 'dev-colleague',
  email: 'colleague@dev.animalstore.localhost',
  name: 'Dev Colleague',
  password: 'dev-colleague-password',
};

/** A person whose address the provider has not verified: invitations refuse them. */
export const DEV_UNVERIFIED: DevPerson = {
  subject: 'dev-unverified',
  email: 'unverified@dev.animalstore.localhost',
  name: 'Dev Unverified',
  password: 'dev-unverified-password',
  emailVerified: false,
};

export const DEV_PEOPLE: readonly DevPerson[] = [
  DEV_OWNER,
  DEV_VIEWER,
  DEV_NEWCOMER,
  DEV_COLLEAGUE,
  DEV_UNVERIFIED,
];
