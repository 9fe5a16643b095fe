import { type SignInEmailConfig, signInEmailProblems } from './sign-in-email';

/**
 * Settings that apply only where the edge serves an environment (production with a platform
 * address and a stated region): the origin secret's version, and the console sign-in's email.
 */

/**
 * A Secrets Manager version id: 32 to 64 characters (the API's bounds), a UUID when
 * put-secret-value chose it. No colon or brace, which would end the dynamic reference.
 */
export const SECRET_VERSION_ID = /^[A-Za-z0-9-]{32,64}$/;

/** How to give an origin secret version: one message for the context value and the configuration. */
const ORIGIN_SECRET_VERSION_FIX =
  'use the VersionId that aws secretsmanager put-secret-value printed for the origin secret ' +
  '(32 to 64 letters, digits and hyphens, e.g. a UUID), or leave it out (doc/domains.md, "Rotating the origin secret").';

/** Where an edge-only setting applies, for the message of one set elsewhere. */
const EDGE_ONLY =
  'it applies to production with platformDomain, platformHostedZoneId and productionRegion given too.';

/** What {@link edgeSettingProblems} reads of a configuration. */
export interface EdgeSettings {
  readonly originSecretVersion?: string;
  readonly signInEmail?: SignInEmailConfig;
}

/**
 * The problems of an environment's edge-only settings, each with its fix; empty when valid.
 * @param servedByEdge whether the edge serves the environment (lib/config/environments.ts)
 */
export function edgeSettingProblems(config: EdgeSettings, servedByEdge: boolean): string[] {
  const problems: string[] = [];
  const version = config.originSecretVersion;
  if (version !== undefined) {
    if (!SECRET_VERSION_ID.test(version)) {
      problems.push(`originSecretVersion is ${JSON.stringify(version)}: ${ORIGIN_SECRET_VERSION_FIX}`);
    }
    if (!servedByEdge)
      problems.push(`originSecretVersion is set but no edge serves this environment: ${EDGE_ONLY}`);
  }
  if (config.signInEmail !== undefined) {
    problems.push(...signInEmailProblems(config.signInEmail));
    if (!servedByEdge)
      problems.push(`signInEmail is set but this environment has no console sign-in: ${EDGE_ONLY}`);
  }
  return problems;
}

/** The origin secret's version given as `-c originSecretVersion=<VersionId>`; undefined when unset. */
export function originSecretVersionFromContext(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !SECRET_VERSION_ID.test(value)) {
    throw new Error(
      `Context value "originSecretVersion" is ${JSON.stringify(value)}: ${ORIGIN_SECRET_VERSION_FIX}`,
    );
  }
  return value;
}
