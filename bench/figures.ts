/**
 * What the bench reports: one figure per measurement, each compared with a baseline
 * measured side by side in the same run (never with a constant time).
 */

/** A target on a figure: its ratio to the baseline, or (for counts of units) its value. */
export interface Target {
  readonly of: 'ratio' | 'value';
  readonly op: '<=' | '==';
  readonly limit: number;
  readonly met: boolean;
}

export interface Figure {
  /** Stable dotted name, e.g. `bundle.getPet`. */
  readonly name: string;
  /** What was measured, in a few words. */
  readonly description: string;
  readonly value: number;
  readonly unit: string;
  /** The same measurement of the baseline, in the same unit; null when there is none. */
  readonly baseline: number | null;
  /** What the baseline is. */
  readonly baselineName: string | null;
  /** value / baseline; null without a baseline. */
  readonly ratio: number | null;
  readonly target?: Target;
}

export interface FigureInput {
  name: string;
  description: string;
  value: number;
  unit: string;
  baseline?: { value: number; name: string };
  target?: Omit<Target, 'met'>;
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** Builds a figure: the ratio to its baseline and whether its target is met. */
export function figure({ name, description, value, unit, baseline, target }: FigureInput): Figure {
  const ratio = baseline && baseline.value !== 0 ? round(value / baseline.value, 3) : null;
  const checked = target ? (target.of === 'ratio' ? ratio : value) : null;
  return {
    name,
    description,
    value: round(value, 3),
    unit,
    baseline: baseline ? round(baseline.value, 3) : null,
    baselineName: baseline?.name ?? null,
    ratio,
    ...(target
      ? {
          target: {
            ...target,
            met:
              checked !== null &&
              (target.op === '<=' ? checked <= target.limit + 1e-9 : Math.abs(checked - target.limit) < 1e-9),
          },
        }
      : {}),
  };
}

/** The p-th percentile (0–100) by nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new Error('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export const median = (values: readonly number[]) => percentile(values, 50);

/** Milliseconds since `start` (a `process.hrtime.bigint()` reading). */
export function msSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}
