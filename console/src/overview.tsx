import { UPGRADE_MESSAGE } from '../../lambda/core/self-service-settings';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api';
import type { Counter, Usage } from './contract';
import { clockTime, count, planLabel, timeOf } from './format';
import { PageHeading, type Refusal, RefusalMessage, refusalOf } from './ui';

/** What the page knows of the project's usage, and when it learnt it (the page's clock). */
export interface UsageReading {
  /** The last usage read, kept when a later read fails: the page says from when it is. */
  readonly usage?: Usage;
  readonly readAt?: Date;
  /** Why the last read failed, and when, if it failed. */
  readonly failure?: { readonly refusal: Refusal; readonly at: Date };
}

/**
 * Reads usage on demand (each page that shows it asks when it is shown, and the Refresh
 * button). Of reads that overlap, only the last one asked for counts.
 */
export function useUsage(): { reading: UsageReading; read: () => Promise<void>; forget: () => void } {
  const [reading, setReading] = useState<UsageReading>({});
  const asked = useRef(0);
  const read = useCallback(async () => {
    const ask = ++asked.current;
    try {
      const usage = await api.call('getUsage');
      if (ask === asked.current) setReading({ usage, readAt: new Date() });
    } catch (failure) {
      if (ask === asked.current) {
        setReading((before) => ({ ...before, failure: { refusal: refusalOf(failure), at: new Date() } }));
      }
    }
  }, []);
  const forget = useCallback(() => {
    asked.current += 1;
    setReading({});
  }, []);
  return { reading, read, forget };
}

/** A moment the page shows, with its machine-readable value. */
export const Moment = ({ at }: { at: Date }) => <time dateTime={at.toISOString()}>{clockTime(at)}</time>;

export function Meter({ id, label, counter }: { id: string; label: string; counter: Counter }) {
  const share = counter.limit > 0 ? Math.min(1, counter.used / counter.limit) : 0;
  return (
    <div class="meter">
      <p id={id}>
        <strong>{label}:</strong> {count(counter.used)} of {count(counter.limit)} calls (
        {Math.round(share * 100)}%), resets at {timeOf(counter.resetsAt)}
      </p>
      <progress aria-labelledby={id} max={counter.limit} value={Math.min(counter.used, counter.limit)} />
    </div>
  );
}

/** The note a project without custom domains sees, in the service's words. */
export function PlanNote({ usage }: { usage: Usage }) {
  if (usage.customDomains.allowed) return null;
  return (
    <div class="note" id="plan-note">
      <h2>Custom domains</h2>
      <p>{usage.customDomains.reason}</p>
      <p>This project is on the {planLabel(usage.project.plan)} plan, so it has no Add domain form.</p>
      <p id="upgrade-note">{UPGRADE_MESSAGE}</p>
    </div>
  );
}

/**
 * Why usage could not be read, and when. It takes the focus when the person asked (Refresh),
 * not when the page read it on being shown (the heading has the focus then).
 */
function UsageFailure({ reading, focus }: { reading: UsageReading; focus: boolean }) {
  const { failure, readAt } = reading;
  if (!failure) return null;
  return (
    <RefusalMessage refusal={failure.refusal} id="usage-error" focus={focus}>
      Usage could not be read at <Moment at={failure.at} />: {failure.refusal.message}
      {readAt ? (
        <>
          {' '}
          The figures shown are from <Moment at={readAt} />.
        </>
      ) : null}
    </RefusalMessage>
  );
}

/**
 * Project name, plan and limits, and this minute's and today's calls against them, read each
 * time the page is shown, with the time they were read.
 */
export function Overview({
  reading,
  onRead,
  focus,
}: {
  reading: UsageReading;
  onRead: () => Promise<void>;
  focus: boolean;
}) {
  const [asked, setAsked] = useState(false);
  useEffect(() => void onRead(), []);
  const refresh = () => {
    setAsked(true);
    void onRead();
  };
  const { usage, readAt } = reading;
  return (
    <>
      <PageHeading focus={focus}>Overview</PageHeading>
      {usage ? (
        <>
          <section aria-labelledby="project-heading">
            <h2 id="project-heading">Project</h2>
            <dl class="facts">
              <dt>Name</dt>
              <dd>{usage.project.name}</dd>
              <dt>Plan</dt>
              <dd id="plan">{planLabel(usage.project.plan)}</dd>
              <dt>Limits</dt>
              <dd>
                {count(usage.limits.perMinute)} calls a minute, {count(usage.limits.perDay)} a day
              </dd>
              <dt>API address</dt>
              <dd>
                <code>{usage.project.address}</code>
              </dd>
            </dl>
          </section>
          <section aria-labelledby="usage-heading">
            <h2 id="usage-heading">Usage now</h2>
            <UsageFailure reading={reading} focus={asked} />
            {readAt ? (
              <p class="help" id="usage-read">
                Read at <Moment at={readAt} />.
              </p>
            ) : null}
            <Meter id="usage-minute" label="This minute" counter={usage.usage.minute} />
            <Meter id="usage-day" label="Today" counter={usage.usage.day} />
            <p class="help">Calls of the project's API; the console's own calls are not counted.</p>
            <button type="button" onClick={refresh}>
              Refresh usage
            </button>
          </section>
          <PlanNote usage={usage} />
        </>
      ) : reading.failure ? (
        <>
          <UsageFailure reading={reading} focus={asked} />
          <button type="button" onClick={refresh}>
            Try again
          </button>
        </>
      ) : (
        <p>Loading…</p>
      )}
    </>
  );
}
