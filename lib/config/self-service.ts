import {
  DEFAULT_SELF_SERVICE_PROJECT_CAP,
  SELF_SERVICE_VARIABLES,
  type SelfServiceSettings,
  selfServiceSettingsFrom,
} from '../../lambda/core/self-service-settings';

/**
 * The self-service start's platform setting in AWS (issue 27, doc/deploying.md): given as
 * `-c selfService=off` and `-c selfServiceProjectCap=N`, read by the configuration and handed to
 * the console function as the variables local mode reads (SELF_SERVICE_PROJECTS,
 * SELF_SERVICE_PROJECT_CAP), so both check a value the same way.
 */

/** The context keys of the setting. */
export const SELF_SERVICE_CONTEXT = { enabled: 'selfService', cap: 'selfServiceProjectCap' } as const;

/** On, with the platform cap of local mode's default. */
export const DEFAULT_SELF_SERVICE: SelfServiceSettings = {
  enabled: true,
  projectCap: DEFAULT_SELF_SERVICE_PROJECT_CAP,
};

/** A context value as text (`-c` gives text, cdk.json may give a boolean or a number); unset: undefined. */
function textOf(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === true) return 'on';
  if (value === false) return 'off';
  return typeof value === 'number' ? String(value) : (value as string);
}

/**
 * The setting from `-c selfService=on|off` (also `true`/`false`) and `-c selfServiceProjectCap=N`;
 * each unset: {@link DEFAULT_SELF_SERVICE}'s. A bad value fails synth, naming the key and the fix.
 */
export function selfServiceFromContext(enabled: unknown, cap: unknown): SelfServiceSettings {
  const switchText = textOf(enabled);
  const capText = textOf(cap);
  const normalized = switchText === 'true' ? 'on' : switchText === 'false' ? 'off' : switchText;
  try {
    return selfServiceSettingsFrom({
      [SELF_SERVICE_VARIABLES.enabled]: normalized,
      [SELF_SERVICE_VARIABLES.cap]: capText,
    });
  } catch (error) {
    const key =
      normalized !== undefined && normalized !== 'on' && normalized !== 'off'
        ? SELF_SERVICE_CONTEXT.enabled
        : SELF_SERVICE_CONTEXT.cap;
    const value = key === SELF_SERVICE_CONTEXT.enabled ? enabled : cap;
    const fix =
      key === SELF_SERVICE_CONTEXT.enabled
        ? `-c ${key}=on or -c ${key}=off`
        : `a whole number from 0 to 10000, e.g. -c ${key}=${DEFAULT_SELF_SERVICE_PROJECT_CAP}`;
    throw new Error(`Context value "${key}" is ${JSON.stringify(value)}: give ${fix} (doc/deploying.md).`, {
      cause: error,
    });
  }
}

/** The variables the console function reads the setting from: the same names local mode reads. */
export function selfServiceVariables(settings: SelfServiceSettings): Record<string, string> {
  return settings.enabled
    ? { [SELF_SERVICE_VARIABLES.enabled]: 'on', [SELF_SERVICE_VARIABLES.cap]: String(settings.projectCap) }
    : { [SELF_SERVICE_VARIABLES.enabled]: 'off' };
}
