/**
 * The self-service start's numbers and setting (issue 27), apart from its rules (self-service.ts)
 * so that the error catalogue, the docs and the stack read them without Node's crypto.
 */

/** Projects one person may create themselves (the number). */
export const MAX_PROJECTS_PER_PERSON = 3;

/**
 * The platform-wide cap's default. API Gateway allows 10,000 API keys per account and region, not
 * raisable, shared by every environment of the account; each project holds one, two for a moment
 * during a plan change. 2,000 self-service projects per environment leaves room for the projects
 * platform engineers create, for the other environments of the account (staging and production
 * share one), and for plan changes in flight.
 */
export const DEFAULT_SELF_SERVICE_PROJECT_CAP = 2_000;

/** The share of the cap at which every further create warns (log line, metric, the projects tool). */
export const SELF_SERVICE_WARNING_SHARE = 0.8;

/** The plan a self-service project starts on; upgrades are a platform engineer's (`npm run projects -- set-plan`). */
export const SELF_SERVICE_PLAN = 'free' as const;

/** Name of the first API key a self-service project gets. */
export const FIRST_KEY_NAME = 'first key';

/** The environment variables of the setting, the same in the CDK stack and in local mode. */
export const SELF_SERVICE_VARIABLES = {
  /** `on` (the default) or `off`. */
  enabled: 'SELF_SERVICE_PROJECTS',
  /** A whole number of projects, the platform-wide cap. */
  cap: 'SELF_SERVICE_PROJECT_CAP',
} as const;

export interface SelfServiceSettings {
  readonly enabled: boolean;
  /** Most self-service projects on the platform (one environment). */
  readonly projectCap: number;
}

/** What the page says when self-service is off: how to get a project instead. */
export const SELF_SERVICE_OFF_MESSAGE =
  'Creating projects yourself is turned off on this platform. To get a project, ask your platform team to create one for you, or ask an owner of an existing project to invite you.';

/** How a Free project asks for more (the console's plan note shows it). */
export const UPGRADE_MESSAGE =
  'Plans are changed by the platform team: to move to Pro, Business or Enterprise, ask them to run npm run projects -- set-plan for your project.';

/** The settings from the environment; a bad value fails at start-up, naming it and the fix. */
export function selfServiceSettingsFrom(
  env: Readonly<Record<string, string | undefined>>,
): SelfServiceSettings {
  const switchText = env[SELF_SERVICE_VARIABLES.enabled] ?? 'on';
  if (switchText !== 'on' && switchText !== 'off') {
    throw new Error(`${SELF_SERVICE_VARIABLES.enabled}=${JSON.stringify(switchText)}: set it to on or off.`);
  }
  const capText = env[SELF_SERVICE_VARIABLES.cap];
  const projectCap = capText === undefined ? DEFAULT_SELF_SERVICE_PROJECT_CAP : Number(capText);
  if (!Number.isInteger(projectCap) || projectCap < 0 || projectCap > 10_000) {
    throw new Error(
      `${SELF_SERVICE_VARIABLES.cap}=${JSON.stringify(capText)}: set it to a whole number from 0 to 10000 (API Gateway's keys per account and region).`,
    );
  }
  return { enabled: switchText === 'on', projectCap };
}

/** The count at which creates start to warn. */
export function warningThreshold(cap: number): number {
  return Math.ceil(cap * SELF_SERVICE_WARNING_SHARE);
}
