import type { HourUsage } from './usage-history';

/**
 * How the rate limiter counts a project's usage (issue 29; doc/limits.md, "Usage over time"):
 * admitted calls on the very write that counts them against the plan, refused ones in memory
 * until a write carries them. Plain types and a tally, no AWS.
 */

/** What a project's counting write also counts. */
export interface UsageWrite {
  /** The operation the admitted request called. */
  readonly operation: string;
  /** The hour (since the epoch) of the minute the write counts in. */
  readonly hour: number;
  /**
   * Whether the counter may still be in an earlier hour: the write then moves it to `hour` and
   * answers the finished hour's counts, which the limiter writes to their hour item.
   */
  readonly newHour: boolean;
  /** This instance's refusals not yet written, per operation. */
  readonly refused: Readonly<Record<string, number>>;
  /** Every operation whose hour counts a new hour clears. */
  readonly operations: readonly string[];
}

/** The usage writes besides the counting write: once per project-hour, and refusals' flush. */
export interface UsageWriter {
  /** Writes a finished hour of a day counter to its hour item: one write. */
  recordHour(counterId: string, finished: HourUsage, expiresAtSeconds: number): Promise<void>;
  /**
   * Adds refusals to a day counter (one write, no condition): to its current hour's counts when
   * the counter is known to be in `hour`, else to counts of `hour` of their own.
   */
  addRefused(
    counterId: string,
    refused: Readonly<Record<string, number>>,
    hour: number,
    counterInHour: boolean,
    expiresAtSeconds: number,
  ): Promise<void>;
}

/** Longest an instance keeps refusals unwritten while it keeps refusing the project. */
export const REFUSAL_FLUSH_MS = 60_000;

/** Days a project's counters and hour items are kept after their day ends. */
export const USAGE_RETENTION_DAYS = 35;

interface Pending {
  readonly counts: Map<string, number>;
  /** When the oldest unwritten refusal was counted. */
  sinceMs: number;
}

/**
 * One instance's refusals per project and operation, not yet written: taken by the project's
 * next counting write, or flushed once {@link REFUSAL_FLUSH_MS} old. An instance that ends
 * loses its tally, so the refused counts the store holds are lower bounds.
 */
export class RefusalTally {
  private readonly pending = new Map<string, Pending>();

  add(identity: string, operation: string, nowMs: number): void {
    let pending = this.pending.get(identity);
    if (!pending) {
      // Bounded like the limiter's memory: forgetting a project's tally loses refusals only.
      if (this.pending.size >= 10_000) this.pending.delete(this.pending.keys().next().value as string);
      pending = { counts: new Map(), sinceMs: nowMs };
      this.pending.set(identity, pending);
    }
    pending.counts.set(operation, (pending.counts.get(operation) ?? 0) + 1);
  }

  /** The unwritten refusals of a project, to carry on a write (still pending until {@link written}). */
  snapshot(identity: string): Record<string, number> {
    return Object.fromEntries(this.pending.get(identity)?.counts ?? []);
  }

  /** Whether a project's oldest unwritten refusal is old enough to be flushed. */
  due(identity: string, nowMs: number): boolean {
    const pending = this.pending.get(identity);
    return pending !== undefined && nowMs - pending.sinceMs >= REFUSAL_FLUSH_MS;
  }

  /** Takes a snapshot's refusals off the tally once a write has stored them. */
  written(identity: string, snapshot: Readonly<Record<string, number>>, nowMs: number): void {
    const pending = this.pending.get(identity);
    if (!pending) return;
    for (const [operation, count] of Object.entries(snapshot)) {
      const left = (pending.counts.get(operation) ?? 0) - count;
      if (left > 0) pending.counts.set(operation, left);
      else pending.counts.delete(operation);
    }
    if (pending.counts.size === 0) this.pending.delete(identity);
    else pending.sinceMs = nowMs;
  }
}
