import { PLATFORM_COUNTER } from '../lambda/core/self-service';
import {
  SELF_SERVICE_VARIABLES,
  SELF_SERVICE_WARNING_SHARE,
  type SelfServiceSettings,
  selfServiceSettingsFrom,
  warningThreshold,
} from '../lambda/core/self-service-settings';
import { SelfServiceSlotStore } from '../lambda/store/self-service-slots';
import { STACK_OUTPUTS } from '../lib/animal-store-stack';
import type { EnvironmentName } from '../lib/config/environments';
import { SELF_SERVICE_CONTEXT } from '../lib/config/self-service';
import { GATEWAY_KEY_QUOTA } from './api-gateway-keys';
import { openRateLimitsTable } from './project-usage';
import { connectStageTable, findStack, type SubcommandIo } from './stage';

/**
 * `npm run projects -- self-service [--json]`: how many self-service projects the platform holds
 * against its cap (issue 27), with a warning from {@link SELF_SERVICE_WARNING_SHARE} of it on, so
 * the cap is raised or self-service turned off before people are refused. Read from the counter
 * the console takes a place of (the rate-limit table), local or of a stage; the cap from local
 * mode's variables, or the stage's stack output.
 */

export const SELF_SERVICE_COMMAND = {
  name: 'self-service',
  options: ['json'],
  summary: [
    'How many projects people created themselves, of the platform cap (each holds one of API',
    `Gateway's ${GATEWAY_KEY_QUOTA.toLocaleString('en-US')} keys per account and region), and a warning from ${SELF_SERVICE_WARNING_SHARE * 100}% of it.`,
  ].join('\n'),
} as const;

/** What the command found. */
export interface SelfServiceFacts {
  /** The setting; undefined where a stage's stack predates self-service (no output). */
  readonly settings: SelfServiceSettings | undefined;
  /** Places taken on the platform's counter. */
  readonly count: number;
}

/** How to raise the cap or turn self-service off, where it is set. */
function fixOf(stage: EnvironmentName | undefined): string {
  return stage
    ? `deploy with -c ${SELF_SERVICE_CONTEXT.cap}=N (at most ${GATEWAY_KEY_QUOTA.toLocaleString('en-US')} less the account's other keys) or -c ${SELF_SERVICE_CONTEXT.enabled}=off (doc/deploying.md)`
    : `start with ${SELF_SERVICE_VARIABLES.cap}=N or ${SELF_SERVICE_VARIABLES.enabled}=off`;
}

/** The report of the facts: text lines, or one JSON object. Pure, so it is tested apart from any store. */
export function selfServiceReport(
  { settings, count }: SelfServiceFacts,
  stage: EnvironmentName | undefined,
  json: boolean,
): string[] {
  const cap = settings?.projectCap;
  const share = cap === undefined ? undefined : cap === 0 ? (count > 0 ? 1 : 0) : count / cap;
  const warning = settings?.enabled === true && count >= warningThreshold(settings.projectCap);
  if (json) {
    return [
      JSON.stringify({
        enabled: settings?.enabled ?? false,
        count,
        cap: cap ?? null,
        share: share ?? null,
        warningAt: cap === undefined ? null : warningThreshold(cap),
        warning,
      }),
    ];
  }
  if (!settings)
    return [`${count} self-service projects; this stack states no cap (deploy its current version).`];
  if (!settings.enabled) return [`${count} self-service projects; self-service is off.`];
  const percent = Math.round((share ?? 0) * 100);
  const lines = [`${count} of ${settings.projectCap} self-service projects (${percent}%).`];
  if (warning) {
    lines.push(
      count >= settings.projectCap
        ? `Warning: the cap is reached, and people are refused new projects: ${fixOf(stage)}.`
        : `Warning: at ${SELF_SERVICE_WARNING_SHARE * 100}% of the cap or more (from ${warningThreshold(settings.projectCap)}): ${fixOf(stage)}.`,
    );
  }
  return lines;
}

/** The facts: the platform's count, and the setting from the environment or the stage's stack output. */
async function selfServiceFacts(
  stage: EnvironmentName | undefined,
  io: Omit<SubcommandIo, 'out'>,
): Promise<SelfServiceFacts> {
  if (!stage) {
    const settings = selfServiceSettingsFrom(io.env ?? process.env);
    const table = await openRateLimitsTable({ endpoint: io.endpoint, env: io.env });
    try {
      return {
        settings,
        count: await new SelfServiceSlotStore(table.documents, table.tableName).count(PLATFORM_COUNTER),
      };
    } finally {
      table.close();
    }
  }
  const table = await connectStageTable(stage, STACK_OUTPUTS.rateLimitsTable, io.stageClients);
  try {
    const stack = await findStack(table.cloudFormation, table.stackName);
    const stated = stack?.Outputs?.find((output) => output.OutputKey === STACK_OUTPUTS.selfServiceProjectCap);
    const value = stated?.OutputValue;
    const settings = value
      ? selfServiceSettingsFrom(
          value === 'off'
            ? { [SELF_SERVICE_VARIABLES.enabled]: 'off' }
            : { [SELF_SERVICE_VARIABLES.cap]: value },
        )
      : undefined;
    return {
      settings,
      count: await new SelfServiceSlotStore(table.documents, table.tableName).count(PLATFORM_COUNTER),
    };
  } finally {
    table.close();
  }
}

/** The projects tool's `self-service` command. */
export function selfServiceCommand(
  values: { readonly json?: boolean },
  stage: EnvironmentName | undefined,
  io: SubcommandIo,
): () => Promise<void> {
  return async () => {
    for (const line of selfServiceReport(await selfServiceFacts(stage, io), stage, values.json === true))
      io.out(line);
  };
}
