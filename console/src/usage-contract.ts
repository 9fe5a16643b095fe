/**
 * The answer of `GET /console/api/usage/history`, as agreed with the branch that serves it
 * (issue 29). Stand-in until lambda/core/usage-history.ts lands; then this file re-exports it.
 */
export interface UsageHistory {
  readonly readAt: string;
  readonly operations: readonly string[];
  readonly limits: { readonly perMinute: number; readonly perDay: number };
  readonly hours: readonly UsageBucket[];
  readonly days: readonly UsageBucket[];
  readonly refusedAreLowerBounds: true;
}
export interface UsageBucket {
  readonly start: string;
  readonly admitted: Readonly<Record<string, number>>;
  readonly refused: Readonly<Record<string, number>>;
}
