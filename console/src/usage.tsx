import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api';
import type { Usage, UsageHistory } from './contract';
import { Meter, Moment } from './overview';
import { PageHeading, type Refusal, RefusalMessage, refusalOf } from './ui';
import { UsageChart } from './usage-chart';
import { zoneLabel } from './usage-data';
import { UsageExport, UsageTable } from './usage-table';

/**
 * The Usage page (any member): this minute and today against the limits, the last 24 hours by
 * hour and the last 30 UTC days by day, as charts or as tables, and the exports. Read when the
 * page is shown and by Refresh; a failed read keeps the figures shown and says from when they are.
 */

interface HistoryReading {
  readonly now?: Usage;
  readonly history?: UsageHistory;
  readonly failure?: { readonly refusal: Refusal; readonly at: Date };
}

type View = 'chart' | 'table';

function useHistory(): { reading: HistoryReading; read: () => Promise<void> } {
  const [reading, setReading] = useState<HistoryReading>({});
  const asked = useRef(0);
  const read = async () => {
    const ask = ++asked.current;
    try {
      const [now, history] = await Promise.all([api.call('getUsage'), api.call('getUsageHistory')]);
      if (ask === asked.current) setReading({ now, history });
    } catch (failure) {
      if (ask === asked.current) {
        setReading((before) => ({ ...before, failure: { refusal: refusalOf(failure), at: new Date() } }));
      }
    }
  };
  return { reading, read };
}

/** Chart or table: two buttons, the one shown pressed. */
function ViewSwitch({ view, onChange }: { view: View; onChange: (view: View) => void }) {
  return (
    <div class="view-switch" role="group" aria-label="Show usage as">
      {(['chart', 'table'] as const).map((choice) => (
        <button key={choice} type="button" aria-pressed={view === choice} onClick={() => onChange(choice)}>
          {choice === 'chart' ? 'Charts' : 'Tables'}
        </button>
      ))}
    </div>
  );
}

export function UsagePage({ project, focus }: { project: string; focus: boolean }) {
  const { reading, read } = useHistory();
  const [asked, setAsked] = useState(false);
  const [view, setView] = useState<View>('chart');
  useEffect(() => void read(), []);
  const refresh = () => {
    setAsked(true);
    void read();
  };
  const { now, history, failure } = reading;
  const readAt = history ? new Date(history.readAt) : undefined;
  return (
    <>
      <PageHeading focus={focus}>Usage</PageHeading>
      <p class="help" id="usage-zone">
        Times are in your time zone, {zoneLabel(readAt ?? new Date())}. The limits count UTC minutes and UTC
        days, so days are shown in UTC.
      </p>
      {failure ? (
        // Nothing else to read on the page, or asked for by Refresh: the reason takes the focus.
        <RefusalMessage refusal={failure.refusal} id="usage-history-error" focus={asked || !history}>
          Usage could not be read at <Moment at={failure.at} />: {failure.refusal.message}
          {readAt ? (
            <>
              {' '}
              The figures shown are from <Moment at={readAt} />.
            </>
          ) : null}
        </RefusalMessage>
      ) : null}
      {now && history && readAt ? (
        <>
          <section aria-labelledby="usage-now-heading">
            <h2 id="usage-now-heading">Now</h2>
            <p class="help" id="usage-history-read">
              Read at <Moment at={readAt} />.
            </p>
            <Meter id="usage-minute" label="This minute" counter={now.usage.minute} />
            <Meter id="usage-day" label="Today (UTC)" counter={now.usage.day} />
            <div class="actions">
              <button type="button" onClick={refresh}>
                Refresh
              </button>
            </div>
          </section>
          <ViewSwitch view={view} onChange={setView} />
          <section aria-labelledby="usage-hours-heading">
            <h2 id="usage-hours-heading">Last 24 hours</h2>
            {view === 'chart' ? (
              <UsageChart history={history} span="hours" />
            ) : (
              <UsageTable history={history} span="hours" />
            )}
          </section>
          <section aria-labelledby="usage-days-heading">
            <h2 id="usage-days-heading">Last 30 days (UTC)</h2>
            {view === 'chart' ? (
              <UsageChart history={history} span="days" />
            ) : (
              <UsageTable history={history} span="days" />
            )}
          </section>
          <p class="help">
            Admitted requests are counted exactly. Refused ones are counted by each server in memory and
            written with the project's next counted call, or a minute later, so they are at least the numbers
            shown.
          </p>
          <UsageExport project={project} history={history} />
        </>
      ) : failure ? (
        <button type="button" onClick={refresh}>
          Try again
        </button>
      ) : (
        <p>Loading…</p>
      )}
    </>
  );
}
