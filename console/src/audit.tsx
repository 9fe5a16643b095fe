import { useEffect, useState } from 'preact/hooks';
import { AUDIT_ACTIONS, type AuditEntry, actorText } from '../../lambda/core/audit';
import type { AuditLogPage } from '../../lambda/api/console-audit-routes';
import { api } from './api';
import { when } from './format';
import { PageHeading, type Refusal, RefusalMessage, refusalOf } from './ui';

/**
 * The Audit page (issue 28), for owners and admins (readAuditLog): the project's audit log,
 * newest first, filtered by actor, action and time range through the API's own query
 * parameters, a page at a time ("Load more" follows the cursor), with the export's link.
 * Anyone who navigates here is asked the API, so a developer's 403 is shown, with the focus.
 */

interface Filters {
  readonly actor: string;
  readonly action: string;
  /** `datetime-local` values, in the viewer's zone. */
  readonly since: string;
  readonly until: string;
}

const NO_FILTERS: Filters = { actor: '', action: '', since: '', until: '' };

/** The viewer's zone, stated beside the times. */
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A local `datetime-local` value as ISO UTC; an unreadable one is passed on for the API to refuse. */
function isoOf(local: string): string | undefined {
  if (local === '') return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? local : date.toISOString();
}

function queryOf(filters: Filters): Record<string, string | undefined> {
  return {
    actor: filters.actor.trim() || undefined,
    action: filters.action || undefined,
    since: isoOf(filters.since),
    until: isoOf(filters.until),
  };
}

function exportHref(filters: Filters): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(queryOf(filters))) if (value) search.set(name, value);
  const text = search.toString();
  return `api/audit/export${text ? `?${text}` : ''}`;
}

function outcomeText(entry: AuditEntry): string {
  return entry.outcome.result === 'success'
    ? 'Success'
    : `Refused (${entry.outcome.status} ${entry.outcome.code})`;
}

function EntryCard({ entry }: { entry: AuditEntry }) {
  return (
    <li data-entry-id={entry.entryId} data-action={entry.action}>
      <h3>{entry.action}</h3>
      <dl class="facts">
        <dt>When</dt>
        <dd>
          <time dateTime={entry.at}>{when(entry.at)}</time> ({entry.at.replace('T', ' ').slice(0, 19)} UTC)
        </dd>
        <dt>Actor</dt>
        <dd>{actorText(entry.actor)}</dd>
        <dt>Target</dt>
        <dd>{entry.target ?? '—'}</dd>
        <dt>Outcome</dt>
        <dd>{outcomeText(entry)}</dd>
      </dl>
    </li>
  );
}

export function Audit({ focus }: { focus: boolean }) {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = useState<Filters>(NO_FILTERS);
  const [entries, setEntries] = useState<readonly AuditEntry[]>();
  const [cursor, setCursor] = useState<string>();
  const [refusal, setRefusal] = useState<Refusal>();

  /** A first page for `filters`, or the next one after `from`. */
  const load = async (filters: Filters, from?: string) => {
    try {
      const page: AuditLogPage = await api.call('listAuditLog', {
        query: { ...queryOf(filters), cursor: from },
      });
      setEntries((shown) => (from && shown ? [...shown, ...page.entries] : page.entries));
      setCursor(page.cursor);
      setApplied(filters);
      setRefusal(undefined);
    } catch (failure) {
      setRefusal(refusalOf(failure));
    }
  };
  useEffect(() => void load(NO_FILTERS), []);

  const field = (name: keyof Filters) => ({
    id: `audit-${name}`,
    name,
    value: draft[name],
    onInput: (event: Event) =>
      setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value }),
  });

  return (
    <>
      <PageHeading focus={focus}>Audit</PageHeading>
      <p class="help">
        Who changed what in this project, newest first. Times are in your time zone ({ZONE}), with UTC beside
        each. Entries are kept a year.
      </p>
      <form
        aria-label="Filter the audit log"
        novalidate
        onSubmit={(event) => {
          event.preventDefault();
          void load(draft);
        }}
      >
        <label for="audit-actor">Actor</label>
        <input {...field('actor')} type="text" autocomplete="off" aria-describedby="audit-actor-help" />
        <p id="audit-actor-help" class="help">
          An email, or <code>token:&lt;id&gt;</code>, <code>console-token</code>,{' '}
          <code>platform:&lt;user&gt;</code>, <code>rule:claim-window</code>.
        </p>
        <label for="audit-action">Action</label>
        <select {...field('action')} class="field" onChange={field('action').onInput}>
          <option value="">Any action</option>
          {AUDIT_ACTIONS.map((action) => (
            <option key={action} value={action}>
              {action}
            </option>
          ))}
        </select>
        <label for="audit-since">From</label>
        <input {...field('since')} type="datetime-local" step={1} />
        <label for="audit-until">Until</label>
        <input {...field('until')} type="datetime-local" step={1} />
        <div class="actions">
          <button type="submit" class="primary">
            Apply filters
          </button>
          <a href={exportHref(applied)} download="audit.jsonl">
            Export (JSON Lines)
          </a>
        </div>
      </form>
      <section aria-labelledby="audit-entries-heading">
        <h2 id="audit-entries-heading">Entries</h2>
        <RefusalMessage refusal={refusal} id="audit-refusal" />
        {entries === undefined ? (
          refusal ? null : (
            <p>Loading…</p>
          )
        ) : entries.length === 0 ? (
          <p>No entries match.</p>
        ) : (
          <ul class="cards">
            {entries.map((entry) => (
              <EntryCard key={entry.entryId} entry={entry} />
            ))}
          </ul>
        )}
        {cursor ? (
          <button type="button" onClick={() => void load(applied, cursor)}>
            Load more
          </button>
        ) : null}
      </section>
    </>
  );
}
