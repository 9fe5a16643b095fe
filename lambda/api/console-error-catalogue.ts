import {
  MAX_ACTIVE_KEYS_PER_PROJECT,
  MAX_LIVE_SESSIONS_PER_PROJECT,
  SESSION_IDLE_TIMEOUT_MS,
} from '../core/limits';
import { MAX_LIVE_TOKENS_PER_MEMBER, MAX_TOKEN_DAYS } from '../core/personal-token-views';
import { MAX_PROJECTS_PER_PERSON } from '../core/self-service-settings';
import { MAX_INVITATIONS_PER_DAY } from '../core/invitation-limits';

/**
 * The console API's own codes (`/console/api/…`, the dashboard's backend): not part of the
 * published pets interface, so not in its document; listed in doc/domains.md. A module of its own
 * so that the API's functions, which never answer with these, do not bundle them.
 */
export const CONSOLE_ERROR_CATALOGUE = {
  not_signed_in: {
    status: 401,
    description:
      'Neither a session cookie nor an `Authorization: Bearer <console token>` header was sent: sign in.',
  },
  invalid_console_token: {
    status: 401,
    description: 'The console token is unknown, malformed or replaced (the message never says which).',
  },
  session_ended: {
    status: 401,
    description:
      'The session is unknown, signed out, idle for 30 minutes, 12 hours old, or its console token was rotated: sign in again.',
  },
  console_token_retired: {
    status: 401,
    description:
      'The project has an owner, so its console token (and any session made from it) no longer opens its console: sign in as a member (doc/console.md#members-and-roles).',
  },
  membership_ended: {
    status: 401,
    description:
      "The session's (or personal access token's) person is no longer a member of its project (removed, at most 30 s ago): sign in again.",
  },
  action_not_permitted: {
    status: 403,
    description:
      "The caller's role in the project may not do this (doc/console.md#members-and-roles has the permission table).",
  },
  last_owner: {
    status: 409,
    description: 'The change would leave the project without an owner: make another member an owner first.',
  },
  member_exists: {
    status: 409,
    description: 'The person is a member of the project already: change their role instead.',
  },
  member_not_found: {
    status: 404,
    description: 'The project has no such member (a member of another project is not found either).',
  },
  project_not_found: {
    status: 404,
    description: 'You are no member of such a project (whether or not it exists).',
  },
  member_changed: {
    status: 409,
    description: 'The membership changed while the request ran (another request won): reload and retry.',
  },
  csrf_origin_refused: {
    status: 403,
    description:
      "A change made with the session cookie (or a sign-in) without an `Origin` header equal to the console's origin.",
  },
  csrf_token_invalid: {
    status: 403,
    description: "A change made with the session cookie without the session's `X-CSRF-Token` header.",
  },
  key_not_found: {
    status: 404,
    description: "The project has no API key with this id (another project's is not found either).",
  },
  key_revoked: {
    status: 409,
    description:
      'The API key is revoked (perhaps by another rotation of it at the same moment, whose new key is then its only replacement): it cannot be rotated; create a new key.',
  },
  too_many_keys: {
    status: 409,
    description: `The project has ${MAX_ACTIVE_KEYS_PER_PROJECT} active API keys, the most a project may have: revoke one first.`,
  },
  too_many_sessions: {
    status: 409,
    description: `The project has ${MAX_LIVE_SESSIONS_PER_PROJECT} live console sessions, the most a project may have: sign out elsewhere, wait for idle ones to end (${SESSION_IDLE_TIMEOUT_MS / 60_000} minutes), or rotate the console token, which ends them all.`,
  },
  invalid_domain: {
    status: 400,
    description:
      "Not a domain one can attach (not a host name, an IP address, a wildcard, a public suffix, or the platform's own domain).",
  },
  plan_without_custom_domains: {
    status: 403,
    description: "Custom domains need a paid plan (Pro or above); the project's plan has none.",
  },
  domain_not_found: {
    status: 404,
    description: "The project has no such custom domain (another project's is not found either).",
  },
  domain_taken: {
    status: 409,
    description:
      'The project has this domain already, or, at verify, the edge refuses it as in use outside the platform. (A name another project has can be claimed: the first project whose DNS proof holds owns it.)',
  },
  domain_role_conflict: {
    status: 409,
    description:
      'The change contradicts the domain roles (a redirect without a primary, making the primary a redirect, removing the primary before the others, a primary that does not serve yet).',
  },
  confirmation_required: {
    status: 409,
    description:
      'Removing a domain that has served traffic and is not a redirect stops its traffic; repeat with `confirm=traffic-stops`.',
  },
  too_many_domains: {
    status: 409,
    description: 'The project has as many custom domains as one project may have.',
  },
  domain_busy: {
    status: 409,
    description: 'The domain changed while the request ran; retry it.',
  },
  sandbox_zone_taken: {
    status: 409,
    description:
      "Local mode's sandbox DNS only: the name's zone holds another project's records, or it is under local mode's own domain; only their owner changes them.",
  },
  dns_unavailable: {
    status: 503,
    description:
      "DNS could not be asked about the domain (the service's resolver failed or timed out), so there is no verdict; retry after `Retry-After`.",
  },
  // Sign-in through the identity provider (issue 26).
  sign_in_not_started: {
    status: 400,
    description:
      'A return from the identity provider without a sign-in started in this browser (its cookie is missing, altered or older than 10 minutes): start the sign-in again.',
  },
  sign_in_refused: {
    status: 401,
    description:
      "The identity provider's return was refused: its `state`, code, PKCE verifier, nonce, issuer or ID token did not check out, or the provider answered an error. The message names which; start the sign-in again.",
  },
  no_project_membership: {
    status: 403,
    description:
      'The identity provider vouched for the person, but they are a member of no project: an owner adds them (`npm run members -- add`).',
  },
  identity_provider_unavailable: {
    status: 503,
    description:
      'The identity provider could not be reached (discovery, its keys or its token endpoint); retry after `Retry-After`.',
  },
  // The self-service start (issue 27): POST /console/api/projects.
  no_project_yet: {
    status: 403,
    description:
      "A person who is a member of no project called a project's route: create a project (`POST /projects`) or accept an invitation.",
  },
  self_service_off: {
    status: 403,
    description:
      'Creating projects yourself is turned off on this platform (`SELF_SERVICE_PROJECTS=off`): the platform team creates projects, or an owner invites you.',
  },
  invalid_project_name: {
    status: 400,
    description:
      "The name cannot be a project's: 3 to 63 lower-case letters, digits and hyphens, no leading or trailing hyphen, no `xn--`, not a reserved name.",
  },
  project_name_taken: {
    status: 409,
    description:
      'A project has this name, or had it (its keys and pets remain under it): choose another name.',
  },
  too_many_projects: {
    status: 409,
    description: `You have created ${MAX_PROJECTS_PER_PERSON} projects, the most one person may create yourself: ask the platform team for another.`,
  },
  self_service_full: {
    status: 409,
    description:
      "The platform holds the most self-service projects it may (its cap, below API Gateway's 10,000 keys per account and region): ask the platform team.",
  },
  // Invitations (issue 27).
  invitation_not_found: {
    status: 404,
    description:
      "No such invitation: the link's token is malformed or unknown, its secret is wrong, or it is another project's.",
  },
  invitation_expired: {
    status: 410,
    description: 'The invitation expired (invitations last 7 days): ask an owner or admin for a new one.',
  },
  invitation_used: {
    status: 409,
    description: 'The invitation was used already (an invitation joins one person, once).',
  },
  invitation_revoked: {
    status: 410,
    description: 'The invitation was revoked by an owner or admin of its project.',
  },
  invitation_wrong_email: {
    status: 403,
    description: "The signed-in person's email is not the invited address: sign in with the invited address.",
  },
  invitation_email_unverified: {
    status: 403,
    description: "The signed-in person's email is not verified at the identity provider.",
  },
  invitation_email_not_vouched: {
    status: 403,
    description:
      "The email was asserted by an enterprise identity provider outside that provider's own email domains.",
  },
  too_many_invitations: {
    status: 409,
    description: 'The project has as many pending invitations as it may have (50): revoke some first.',
  },
  invitation_inviter_gone: {
    status: 410,
    description:
      'Whoever sent the invitation may no longer invite with its role (removed, demoted, or a console token retired by the first owner): ask an owner or admin for a new one.',
  },
  too_many_invitations_today: {
    status: 409,
    description: `The project created ${MAX_INVITATIONS_PER_DAY} invitations in the last 24 hours (revoked ones too), the most it may: try again later.`,
  },
  invitation_not_accepted: {
    status: 403,
    description:
      'The signed-in person cannot be made a member (the member rules refused them); the invitation stays pending.',
  },
  // Personal access tokens (issue 28).
  invalid_personal_token: {
    status: 401,
    description:
      'The personal access token (`Bearer pat_…`) is unknown, malformed or wrong (the message never says which).',
  },
  personal_token_expired: {
    status: 401,
    description: 'The personal access token is past its expiry: create a new one in the console (Tokens).',
  },
  personal_token_revoked: {
    status: 401,
    description:
      "The personal access token was revoked (by its member, an owner, or its member's removal): create a new one.",
  },
  person_session_required: {
    status: 403,
    description:
      "Personal access tokens are made, listed and revoked by a person signed in to the console, not with a token or a console token's session.",
  },
  token_role_too_high: {
    status: 403,
    description: "A token's role may be its member's own or a lower one, never higher.",
  },
  token_not_found: {
    status: 404,
    description:
      "You have no personal access token with this id in the project (another member's or project's is not found either, unless you may manage tokens).",
  },
  too_many_tokens: {
    status: 409,
    description: `You hold ${MAX_LIVE_TOKENS_PER_MEMBER} live personal access tokens in the project, the most a member may (each lives at most ${MAX_TOKEN_DAYS} days): revoke one first.`,
  },
} as const satisfies Record<string, { status: number; description: string }>;

/** A code of the console API. */
export type ConsoleErrorCode = keyof typeof CONSOLE_ERROR_CATALOGUE;
