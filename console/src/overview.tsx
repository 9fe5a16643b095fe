import type { Counter, Usage } from './contract';
import { count, planLabel, timeOf } from './format';
import { PageHeading } from './ui';

function Meter({ id, label, counter }: { id: string; label: string; counter: Counter }) {
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
    </div>
  );
}

/** Project name, plan and limits, and this minute's and today's calls against them. */
export function Overview({
  usage,
  error,
  onRefresh,
  focus,
}: {
  usage: Usage | undefined;
  error: string | undefined;
  onRefresh: () => void;
  focus: boolean;
}) {
  return (
    <>
      <PageHeading focus={focus}>Overview</PageHeading>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
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
            <Meter id="usage-minute" label="This minute" counter={usage.usage.minute} />
            <Meter id="usage-day" label="Today" counter={usage.usage.day} />
            <p class="help">Calls of the project's API; the console's own calls are not counted.</p>
            <button type="button" onClick={onRefresh}>
              Refresh usage
            </button>
          </section>
          <PlanNote usage={usage} />
        </>
      ) : error ? null : (
        <p>Loading…</p>
      )}
    </>
  );
}
