import type { PlanLimits } from './plans';
import { type Admission, type CounterState, refusalOf, retryAt, windowsAt } from './rate-limit';
import { RefusalTally, USAGE_RETENTION_DAYS, type UsageWrite, type UsageWriter } from './usage-counting';
import type { HourUsage } from './usage-history';

/**
 * A counting write's outcome: the counter after it, or, when its condition failed,
 * the counter as the condition found it if the store returned it (DynamoDB does;
 * without it, or when there was no counter, the limiter reads).
 */
export type CountOutcome =
  | {
      readonly counted: true;
      readonly state: CounterState;
      /** The hour a write that moved the counter to a new hour took off it (issue 29). */
      readonly finishedHour?: HourUsage;
    }
  | { readonly counted: false; readonly current?: CounterState };

/**
 * What the limiter needs from storage; every write is one conditional, atomic update. A
 * counter is one caller's (a project, all its keys together; or a keyless client), and
 * holds the bans of its subjects (each key, or the client itself): `subject` names whose
 * ban a count is refused by and a returned state reports.
 */
export interface CounterStore {
  /** Counts a request in the minute the counter is already in (and its usage, if given). */
  countInSameMinute(
    counterId: string,
    subject: string,
    minute: number,
    limits: PlanLimits,
    nowMs: number,
    usage?: UsageWrite,
  ): Promise<CountOutcome>;
  /** Counts the first request of a new minute (creating the day's counter if need be). */
  countInNewMinute(
    counterId: string,
    subject: string,
    minute: number,
    limits: PlanLimits,
    nowMs: number,
    expiresAtSeconds: number,
    usage?: UsageWrite,
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

/** When a counter of `identity` whose day ends at `dayResetMs` expires: a project's after 35 days, a client's after one. */
function expiresAtOf(identity: string, dayResetMs: number): number {
  const days = identity.startsWith(projectIdentity('')) ? USAGE_RETENTION_DAYS : 1;
  return Math.ceil((dayResetMs + days * DAY_MS) / 1000);
}

/** How a limiter counts its projects' usage over time (issue 29). */
export interface UsageCounting {
  /** Every operation a request may be counted under (the hour counts a new hour clears). */
  readonly operations: readonly string[];
  readonly writer: UsageWriter;
  /** Told when a finished hour could not be written (the request itself was counted). */
  readonly onLostHour?: (error: unknown) => void;
}

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
function shared({ minute, minuteCount, dayCount, hour }: CounterState): CounterState {
  return { minute, minuteCount, dayCount, ...(hour !== undefined ? { hour } : {}) };
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
  private readonly refusals = new RefusalTally();

  /** @param usage how to count projects' usage over time; without it only the limits are counted. */
  constructor(
    private readonly store: CounterStore,
    private readonly clock: () => number,
    private readonly usage?: UsageCounting,
  ) {}

  /**
   * Counts a request of `identity` against `limits`, made by `subject` (the key that sent it;
   * @default {@link WHOLE_CALLER}), which alone is banned if it keeps calling while limited.
   * With `operation` (a project's request), its usage is counted too: admitted on the counting
   * write, refused in memory until a write carries it.
   */
  async admit(
    identity: string,
    limits: PlanLimits,
    subject: string = WHOLE_CALLER,
    operation?: string,
  ): Promise<Admission> {
    const nowMs = this.clock();
    const windows = windowsAt(nowMs);
    const counterId = counterIdOf(identity, nowMs);
    const memory = this.remember(counterId);
    const mine = this.subjectOf(memory, subject, windows.minute);
    const counting = operation !== undefined ? this.usage : undefined;
    const tally = (admission: Admission) => {
      if (counting && operation !== undefined && !admission.admitted)
        this.refusals.add(identity, operation, nowMs);
      return admission;
    };
    const expiresAtSeconds = expiresAtOf(identity, windows.dayResetMs);

    const ban = mine.ban;
    if (ban && ban.untilMs > nowMs && ban.admission.limits === limits) {
      tally(ban.admission);
      if (counting) await this.flushIfDue(identity, counterId, ban.admission.state, nowMs, expiresAtSeconds);
      return { ...ban.admission, nowMs };
    }
    const known = memory.refusal;
    if (known && known.untilMs > nowMs && known.admission.limits === limits) {
      const state = { ...known.admission.state, ...(mine.banCount ? { banCount: mine.banCount } : {}) };
      const banCount = mine.banCount;
      const refusal = tally(
        await this.refuse(counterId, subject, mine, { ...known.admission, state, nowMs }),
      );
      // A refusal that wrote a ban has spent its one write.
      if (counting && mine.banCount === banCount) {
        await this.flushIfDue(identity, counterId, known.admission.state, nowMs, expiresAtSeconds);
      }
      return refusal;
    }

    // The minute to count in: the current one, or a later one another instance (whose
    // clock runs slightly ahead) has already moved the counter to.
    let minute = Math.max(windows.minute, memory.minute ?? 0);
    let sameMinute = memory.minute === minute;
    // The minute the counter is believed to be in: a new minute of another hour moves its hour on.
    let believed = memory.minute;
    for (let attempt = 0; attempt < 3; attempt++) {
      const hour = Math.floor(minute / 60);
      const refused = counting ? this.refusals.snapshot(identity) : {};
      const usage: UsageWrite | undefined =
        counting && operation !== undefined
          ? {
              operation,
              hour,
              newHour: !sameMinute && (believed === undefined || Math.floor(believed / 60) !== hour),
              refused,
              operations: counting.operations,
            }
          : undefined;
      const outcome = sameMinute
        ? await this.store.countInSameMinute(counterId, subject, minute, limits, nowMs, usage)
        : await this.store.countInNewMinute(
            counterId,
            subject,
            minute,
            limits,
            nowMs,
            expiresAtSeconds,
            usage,
          );
      if (outcome.counted) {
        memory.minute = minute;
        mine.banCount = outcome.state.banCount;
        if (counting) {
          this.refusals.written(identity, refused, nowMs);
          if (outcome.finishedHour)
            await this.recordHour(counting, counterId, outcome.finishedHour, expiresAtSeconds);
        }
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
          return tally(admission);
        }
        // A spent window refuses every subject alike; a subject's ban is its own.
        memory.refusal = { admission: { ...admission, state: shared(current) }, untilMs };
        return tally(await this.refuse(counterId, subject, mine, admission));
      }
      // Another request moved the counter on (or it never existed): count where it now is.
      minute = Math.max(windows.minute, current.minute);
      sameMinute = current.minute === minute;
      believed = current.minute;
    }
    throw new Error(`Rate limit counter ${counterId} kept changing under contention`);
  }

  /** The one extra write of a project-hour: the finished hour to its hour item. */
  private async recordHour(
    counting: UsageCounting,
    counterId: string,
    finished: HourUsage,
    expiresAtSeconds: number,
  ): Promise<void> {
    try {
      await counting.writer.recordHour(counterId, finished, expiresAtSeconds);
    } catch (error) {
      // The request was counted against its plan: losing the hour's history must not fail it.
      counting.onLostHour?.(error);
    }
  }

  /**
   * Writes a project's unwritten refusals once the oldest is a minute old, while it is refused
   * without a write (no counting write carries them): one write at most a minute per instance.
   */
  private async flushIfDue(
    identity: string,
    counterId: string,
    known: CounterState,
    nowMs: number,
    expiresAtSeconds: number,
  ): Promise<void> {
    if (!this.usage || !this.refusals.due(identity, nowMs)) return;
    const refused = this.refusals.snapshot(identity);
    const hour = Math.floor(nowMs / 3_600_000);
    try {
      await this.usage.writer.addRefused(counterId, refused, hour, known.hour === hour, expiresAtSeconds);
      this.refusals.written(identity, refused, nowMs);
    } catch (error) {
      // A refusal stays a refusal; its count waits for the next write.
      this.usage.onLostHour?.(error);
    }
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
    const identity = counterId.slice(0, counterId.lastIndexOf('#'));
    await this.store.ban(counterId, subject, untilMs, bans, expiresAtOf(identity, windows.dayResetMs));
    if (untilMs > windows.dayResetMs) {
      // The ban outlives the day's counter: carry it into tomorrow's.
      const tomorrow = `${identity}#${windowsAt(windows.dayResetMs).day}`;
      await this.store.ban(
        tomorrow,
        subject,
        untilMs,
        bans,
        expiresAtOf(identity, windows.dayResetMs + DAY_MS),
      );
    }
    const state = { ...admission.state, bannedUntil: untilMs, banCount: bans };
    const banned = { ...admission, reason: 'banned', state, retryAtMs: untilMs } as const;
    mine.banCount = bans;
    mine.ban = { admission: banned, untilMs: Math.min(untilMs, nowMs + REFUSAL_MEMORY_MS) };
    return banned;
  }
}
