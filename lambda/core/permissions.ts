/**
 * What each role of a project's member may do: one table, read by the console API (every route
 * names the action it performs), the page (it hides what the caller may not do) and the docs
 * (`npm run docs:tables`). Plain data, no Node: the page imports it.
 */

/** A member's role in one project, from the most to the least trusted. */
export const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** Every action a role is checked for, with what it covers (the docs' words). */
export const CONSOLE_ACTIONS = {
  seeUsage: 'See usage: the plan, its limits and the calls this minute and day',
  listKeys: "List the project's API keys (never a secret)",
  manageKeys: 'Create, rotate and revoke API keys',
  listDomains: "List the project's custom domains",
  manageDomains: 'Add and verify custom domains',
  removeDomains: 'Remove custom domains',
  setDomainRoles: 'Set the primary domain and make redirects',
  setCorsOrigins: 'Set the browser origins (CORS) the project allows',
  listMembers: "List the project's members and their roles",
  manageMembers: 'Invite and remove members',
  changeRoles: "Change members' roles",
  readAuditLog: "Read the project's audit log",
  manageTokens: "See and revoke every member's personal tokens",
  deleteProject: 'Delete the project',
} as const;
export type ConsoleAction = keyof typeof CONSOLE_ACTIONS;

export const ACTIONS = Object.keys(CONSOLE_ACTIONS) as ConsoleAction[];

/** The permission table: the roles that may perform each action. */
export const PERMISSIONS: { readonly [Action in ConsoleAction]: readonly Role[] } = {
  seeUsage: ['owner', 'admin', 'developer', 'viewer'],
  listKeys: ['owner', 'admin', 'developer', 'viewer'],
  manageKeys: ['owner', 'admin', 'developer'],
  listDomains: ['owner', 'admin', 'developer', 'viewer'],
  manageDomains: ['owner', 'admin', 'developer'],
  removeDomains: ['owner', 'admin'],
  setDomainRoles: ['owner', 'admin'],
  setCorsOrigins: ['owner', 'admin'],
  listMembers: ['owner', 'admin', 'developer', 'viewer'],
  manageMembers: ['owner', 'admin'],
  changeRoles: ['owner', 'admin'],
  readAuditLog: ['owner', 'admin'],
  manageTokens: ['owner'],
  deleteProject: ['owner'],
};

/** Whether a member of `role` may perform `action`. */
export function may(role: Role, action: ConsoleAction): boolean {
  return PERMISSIONS[action].includes(role);
}

/** The actions a role may perform, in the table's order (the session tells the page). */
export function permissionsOf(role: Role): ConsoleAction[] {
  return ACTIONS.filter((action) => may(role, action));
}

/**
 * Whether `actor` may add, remove or change members whose roles (before and after) are `roles`:
 * the action's right, and only an owner makes, unmakes or removes owners (an admin manages the
 * others). The last owner's protection is the member store's (members.ts), not this rule's.
 */
export function mayManageMember(
  actor: Role,
  action: 'manageMembers' | 'changeRoles',
  roles: readonly Role[],
): boolean {
  return may(actor, action) && (actor === 'owner' || !roles.includes('owner'));
}
