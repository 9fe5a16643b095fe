/** Environment for Redocly CLI runs in tests: no telemetry, no update check (the machines have no internet). */
export const REDOCLY_ENV = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } as const;
