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

/**
 * What the limiter needs from storage; every write is one conditional, atomic update. A
 * counter is one caller's (a project, all its keys together; or a keyless client), and
 * holds the bans of its subjects (each key, or the client itself): `subject` names whose
 * ban a count is refused by and a returned state reports.
 */
export interface CounterStore {
  /** Counts a request in the minute the counter is already in. */
  countInSameMinute(
    counterId: string,
    subject: string,
    minute: number,
    limits: PlanLimits,
    nowMs: number,
  ): Promise<CountOutcome>;
  /** Counts the first request of a new minute (creating the day's counter if need be). */
  countInNewMinute(
    counterId: string,
    subject: string,
    minute: number,
    limits: PlanLimits,
    nowMs: number,
    expiresAtSeconds: number,
  ): Promise<CountOutcome>;
  /** The counter, with `subject`'s ban (@default {@link WHOLE_CALLER}). */
  read(counterId: string, subject?: string): Promise<CounterState | undefined>;
  /** Bans `subject` until `untilMs` (its `banCount`-th ban of the day) on the counter. */
  ban(
    counterId: string,
    subject: string,
    untilMs: number,
    banCount: number,
    expiresAtSeconds: number,
  ): Promise<void>;
}

/** The subject of a caller that has no parts (a keyless client): the ban is the whole caller's. */
export const WHOLE_CALLER = 'caller';

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

/** The subject a key's ban is stored under, on its project's counter. */
export function keySubject(keyId: string): string {
  return `key:${keyId}`;
}

/** The counter an identity is counted on at `nowMs`: one per UTC day. */
export function counterIdOf(identity: string, nowMs: number): string {
  return `${identity}#${windowsAt(nowMs).day}`;
}

export function banDuration(banNumber: number): number {
  return Math.min(MAX_BAN_MS, FIRST_BAN_MS * 2 ** Math.max(0, banNumber - 1));
}

type Refusal = Admission & { admitted: false };

/** What this process knows of one subject of a counter. */
interface SubjectMemory {
  /** Its ban, until `untilMs` (at most REFUSAL_MEMORY_MS ahead). */
  ban?: { admission: Refusal; untilMs: number };
  /** Bans the subject had, as last read. */
  banCount?: number;
  /** Refusals this process gave the subject in `refusalMinute`. */
  refusals: number;
  refusalMinute: number;
}

interface Memory {
  /** The minute this process last saw the counter in. */
  minute?: number;
  /** A minute or day refusal, every subject's, until `untilMs` (a refusal never ends early within its window). */
  refusal?: { admission: Refusal; untilMs: number };
  readonly subjects: Map<string, SubjectMemory>;
}

/** A counter's state without any subject's ban: what every subject of it shares. */
function shared({ minute, minuteCount, dayCount }: CounterState): CounterState {
  return { minute, minuteCount, dayCount };
}

/**
 * Counts requests per caller in fixed UTC minute and day windows. Admitting a
 * request costs one conditional update (two when this process guessed the
 * counter's minute wrong: its first request for a caller, or another instance
 * moved the counter on); a refusal costs at most one failed update, and nothing
 * once this process knows the caller is limited, since a refusal holds until its
 * window ends. A failed update returns the counter it found, so no read follows
 * it. Refused requests are not counted against the allowance. A caller's subject
 * (one key of a project) that keeps calling while limited is banned, not the caller.
 */
export class RateLimiter {
  private readonly memory = new Map<string, Memory>();

  constructor(
    private readonly store: CounterStore,
    private readonly clock: () => number,
  ) {}

  /**
   * Counts a request of `identity` against `limits`, made by `subject` (the key that sent it;
   * @default {@link WHOLE_CALLER}), which alone is banned if it keeps calling while limited.
   */
  async admit(identity: string, limits: PlanLimits, subject: string = WHOLE_CALLER): Promise<Admission> {
    const nowMs = this.clock();
    const windows = windowsAt(nowMs);
    const counterId = counterIdOf(identity, nowMs);
    const memory = this.remember(counterId);
    const mine = this.subjectOf(memory, subject, windows.minute);

    const ban = mine.ban;
    if (ban && ban.untilMs > nowMs && ban.admission.limits === limits) return { ...ban.admission, nowMs };
    const known = memory.refusal;
    if (known && known.untilMs > nowMs && known.admission.limits === limits) {
      const state = { ...known.admission.state, ...(mine.banCount ? { banCount: mine.banCount } : {}) };
      return this.refuse(counterId, subject, mine, { ...known.admission, state, nowMs });
    }

    const expiresAtSeconds = Math.ceil((windows.dayResetMs + DAY_MS) / 1000);
    // The minute to count in: the current one, or a later one another instance (whose
    // clock runs slightly ahead) has already moved the counter to.
    let minute = Math.max(windows.minute, memory.minute ?? 0);
    let sameMinute = memory.minute === minute;
    for (let attempt = 0; attempt < 3; attempt++) {
      const outcome = sameMinute
        ? await this.store.countInSameMinute(counterId, subject, minute, limits, nowMs)
        : await this.store.countInNewMinute(counterId, subject, minute, limits, nowMs, expiresAtSeconds);
      if (outcome.counted) {
        memory.minute = minute;
        mine.banCount = outcome.state.banCount;
        return { admitted: true, limits, state: outcome.state, nowMs };
      }
      // No counter at all (minute 0) makes the next attempt the one that creates it.
      const current = outcome.current ??
        (await this.store.read(counterId, subject)) ?? { minute: 0, minuteCount: 0, dayCount: 0 };
      mine.banCount = current.banCount;
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
        const untilMs = Math.min(admission.retryAtMs, nowMs + REFUSAL_MEMORY_MS);
        if (reason === 'banned') {
          mine.ban = { admission, untilMs };
          return admission;
        }
        // A spent window refuses every subject alike; a subject's ban is its own.
        memory.refusal = { admission: { ...admission, state: shared(current) }, untilMs };
        return this.refuse(counterId, subject, mine, admission);
      }
      // Another request moved the counter on (or it never existed): count where it now is.
      minute = Math.max(windows.minute, current.minute);
      sameMinute = current.minute === minute;
    }
    throw new Error(`Rate limit counter ${counterId} kept changing under contention`);
  }

  private remember(counterId: string): Memory {
    let memory = this.memory.get(counterId);
    if (!memory) {
      // Bounded: the oldest caller is forgotten first; forgetting only costs a store read.
      if (this.memory.size >= 10_000) this.memory.delete(this.memory.keys().next().value as string);
      memory = { subjects: new Map() };
      this.memory.set(counterId, memory);
    }
    return memory;
  }

  private subjectOf(memory: Memory, subject: string, minute: number): SubjectMemory {
    let mine = memory.subjects.get(subject);
    if (!mine) {
      // Bounded like the counters: a project's keys are few; forgetting one forgets its refusals.
      if (memory.subjects.size >= 1_000)
        memory.subjects.delete(memory.subjects.keys().next().value as string);
      mine = { refusals: 0, refusalMinute: minute };
      memory.subjects.set(subject, mine);
    }
    if (mine.refusalMinute !== minute) {
      mine.refusals = 0;
      mine.refusalMinute = minute;
    }
    return mine;
  }

  /** Counts a subject's refusal; its BAN_THRESHOLD-th within a minute bans that subject. */
  private async refuse(
    counterId: string,
    subject: string,
    mine: SubjectMemory,
    admission: Refusal,
  ): Promise<Admission> {
    mine.refusals += 1;
    if (mine.refusals < BAN_THRESHOLD) return admission;
    mine.refusals = 0;
    const { nowMs } = admission;
    const bans = (admission.state.banCount ?? 0) + 1;
    const untilMs = nowMs + banDuration(bans);
    const windows = windowsAt(nowMs);
    await this.store.ban(counterId, subject, untilMs, bans, Math.ceil((windows.dayResetMs + DAY_MS) / 1000));
    if (untilMs > windows.dayResetMs) {
      // The ban outlives the day's counter: carry it into tomorrow's.
      const tomorrow = `${counterId.slice(0, counterId.lastIndexOf('#'))}#${windowsAt(windows.dayResetMs).day}`;
      await this.store.ban(
        tomorrow,
        subject,
        untilMs,
        bans,
        Math.ceil((windows.dayResetMs + 2 * DAY_MS) / 1000),
      );
    }
    const state = { ...admission.state, bannedUntil: untilMs, banCount: bans };
    const banned = { ...admission, reason: 'banned', state, retryAtMs: untilMs } as const;
    mine.banCount = bans;
    mine.ban = { admission: banned, untilMs: Math.min(untilMs, nowMs + REFUSAL_MEMORY_MS) };
    return banned;
  }
}
