import type { PlanLimits } from './plans';
import { type Admission, type CounterState, refusalOf, retryAt, windowsAt } from './rate-limit';

/**
 * A counting write's outcome: the counter after it, or, when its condition failed,
 * the counter as the condition found it if the store returned it (DynamoDB does;
 * without it, or when there was no counter, the limiter reads).
 */
export type CountOutcome =
  | { readonly counted: true; readonly state: CounterState }
  | { readonly counted: false; readonly current?: CounterState };

/** What the limiter needs from storage; every write is one conditional, atomic update. */
export interface CounterStore {
  /** Counts a request in the minute the counter is already in. */
  countInSameMinute(
    counterId: string,
    minute: number,
    limits: PlanLimits,
    nowMs: number,
  ): Promise<CountOutcome>;
  /** Counts the first request of a new minute (creating the day's counter if need be). */
  countInNewMinute(
    counterId: string,
    minute: number,
    limits: PlanLimits,
    nowMs: number,
    expiresAtSeconds: number,
  ): Promise<CountOutcome>;
  read(counterId: string): Promise<CounterState | undefined>;
  /** Bans the caller until `untilMs` on the counter, and returns the ban count after it. */
  ban(counterId: string, untilMs: number, expiresAtSeconds: number): Promise<number>;
}

/** Refused requests within one minute, while limited, that earn a ban. */
export const BAN_THRESHOLD = 10;
/** The first ban of a day lasts this long; each further ban that day doubles it. */
export const FIRST_BAN_MS = 5 * 60_000;
/** No ban lasts longer. */
export const MAX_BAN_MS = 60 * 60_000;
/** Longest a refusal is remembered in memory (so that a plan upgrade takes effect within it). */
const REFUSAL_MEMORY_MS = 30_000;
const DAY_MS = 86_400_000;

/** The identity a project's API calls are counted under, all its keys together. */
export function projectIdentity(project: string): string {
  return `project:${project}`;
}

/** The counter an identity is counted on at `nowMs`: one per UTC day. */
export function counterIdOf(identity: string, nowMs: number): string {
  return `${identity}#${windowsAt(nowMs).day}`;
}

export function banDuration(banNumber: number): number {
  return Math.min(MAX_BAN_MS, FIRST_BAN_MS * 2 ** Math.max(0, banNumber - 1));
}

interface Memory {
  /** The minute this process last saw the counter in. */
  minute?: number;
  /** A refusal that holds until `untilMs` (a refusal never ends early within its window). */
  refusal?: { admission: Admission & { admitted: false }; untilMs: number };
  /** Refusals this process gave in `refusalMinute`. */
  refusals: number;
  refusalMinute: number;
}

/**
 * Counts requests per caller in fixed UTC minute and day windows. Admitting a
 * request costs one conditional update (two when this process guessed the
 * counter's minute wrong: its first request for a caller, or another instance
 * moved the counter on); a refusal costs at most one failed update, and nothing
 * once this process knows the caller is limited, since a refusal holds until its
 * window ends. A failed update returns the counter it found, so no read follows
 * it. Refused requests are not counted against the allowance.
 */
export class RateLimiter {
  private readonly memory = new Map<string, Memory>();

  constructor(
    private readonly store: CounterStore,
    private readonly clock: () => number,
  ) {}

  async admit(identity: string, limits: PlanLimits): Promise<Admission> {
    const nowMs = this.clock();
    const windows = windowsAt(nowMs);
    const counterId = counterIdOf(identity, nowMs);
    const memory = this.remember(counterId, windows.minute);

    const known = memory.refusal;
    if (known && known.untilMs > nowMs && known.admission.limits === limits) {
      return this.refuse(counterId, memory, { ...known.admission, nowMs });
    }

    const expiresAtSeconds = Math.ceil((windows.dayResetMs + DAY_MS) / 1000);
    // The minute to count in: the current one, or a later one another instance (whose
    // clock runs slightly ahead) has already moved the counter to.
    let minute = Math.max(windows.minute, memory.minute ?? 0);
    let sameMinute = memory.minute === minute;
    for (let attempt = 0; attempt < 3; attempt++) {
      const outcome = sameMinute
        ? await this.store.countInSameMinute(counterId, minute, limits, nowMs)
        : await this.store.countInNewMinute(counterId, minute, limits, nowMs, expiresAtSeconds);
      if (outcome.counted) {
        memory.minute = minute;
        return { admitted: true, limits, state: outcome.state, nowMs };
      }
      // No counter at all (minute 0) makes the next attempt the one that creates it.
      const current = outcome.current ??
        (await this.store.read(counterId)) ?? { minute: 0, minuteCount: 0, dayCount: 0 };
      const reason = refusalOf(current, limits, nowMs);
      if (reason) {
        const admission = {
          admitted: false,
          reason,
          limits,
          state: current,
          nowMs,
          retryAtMs: retryAt(reason, current, nowMs),
        } as const;
        memory.refusal = { admission, untilMs: Math.min(admission.retryAtMs, nowMs + REFUSAL_MEMORY_MS) };
        return this.refuse(counterId, memory, admission);
      }
      // Another request moved the counter on (or it never existed): count where it now is.
      minute = Math.max(windows.minute, current.minute);
      sameMinute = current.minute === minute;
    }
    throw new Error(`Rate limit counter ${counterId} kept changing under contention`);
  }

  private remember(counterId: string, minute: number): Memory {
    let memory = this.memory.get(counterId);
    if (!memory) {
      // Bounded: the oldest caller is forgotten first; forgetting only costs a store read.
      if (this.memory.size >= 10_000) this.memory.delete(this.memory.keys().next().value as string);
      memory = { refusals: 0, refusalMinute: minute };
      this.memory.set(counterId, memory);
    }
    if (memory.refusalMinute !== minute) {
      memory.refusals = 0;
      memory.refusalMinute = minute;
    }
    return memory;
  }

  /** Counts a refusal; the BAN_THRESHOLD-th refusal within a minute bans the caller. */
  private async refuse(
    counterId: string,
    memory: Memory,
    admission: Admission & { admitted: false },
  ): Promise<Admission> {
    if (admission.reason === 'banned') return admission;
    memory.refusals += 1;
    if (memory.refusals < BAN_THRESHOLD) return admission;
    memory.refusals = 0;
    const { nowMs } = admission;
    const bans = (admission.state.banCount ?? 0) + 1;
    const untilMs = nowMs + banDuration(bans);
    const windows = windowsAt(nowMs);
    await this.store.ban(counterId, untilMs, Math.ceil((windows.dayResetMs + DAY_MS) / 1000));
    if (untilMs > windows.dayResetMs) {
      // The ban outlives the day's counter: carry it into tomorrow's.
      const tomorrow = `${counterId.slice(0, counterId.lastIndexOf('#'))}#${windowsAt(windows.dayResetMs).day}`;
      await this.store.ban(tomorrow, untilMs, Math.ceil((windows.dayResetMs + 2 * DAY_MS) / 1000));
    }
    const state = { ...admission.state, bannedUntil: untilMs, banCount: bans };
    const banned = { ...admission, reason: 'banned', state, retryAtMs: untilMs } as const;
    memory.refusal = { admission: banned, untilMs: Math.min(untilMs, nowMs + REFUSAL_MEMORY_MS) };
    return banned;
  }
}
