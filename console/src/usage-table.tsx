import { useContext } from 'preact/hooks';
import { count } from './format';
import { Announce } from './ui';
import type { UsageHistory } from './contract';
import {
  dayLabel,
  exportName,
  hourLabel,
  limitLine,
  usageCsv,
  usageJson,
  usageRows,
  type UsageWindow,
} from './usage-data';

/**
 * The numbers of a chart, as a table (for screen readers and keyboard users), and the history's
 * exports, made in the page. A table wider than the screen scrolls inside its own region, which
 * takes the focus, so a keyboard can scroll it.
 */

export function UsageTable({ history, span }: { history: UsageHistory; span: UsageWindow }) {
  const rows = usageRows(history[span], history.operations);
  const captionId = `usage-${span}-caption`;
  const limit = limitLine(history.limits, span);
  return (
    <>
      <p class="help" id={captionId}>
        {span === 'hours'
          ? `Requests per hour, the last 24 hours, oldest first, in your time zone (the most an hour can admit: ${count(limit)}).`
          : `Requests per UTC day, the last 30 days, oldest first (the per-day limit: ${count(limit)}).`}
      </p>
      <div class="table-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
        <table class="usage-table" id={`usage-${span}-table`} aria-labelledby={captionId}>
          <thead>
            <tr>
              <th scope="col">{span === 'hours' ? 'Hour from' : 'Day (UTC)'}</th>
              {history.operations.map((operation) => (
                <th scope="col" key={operation}>
                  <code>{operation}</code>
                </th>
              ))}
              <th scope="col">Admitted</th>
              <th scope="col">Refused (at least)</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={row.start}>
                <th scope="row">
                  <time dateTime={row.start}>
                    {span === 'hours' ? hourLabel(row.start) : dayLabel(row.start)}
                  </time>
                  {index === rows.length - 1 ? <span class="so-far"> (so far)</span> : null}
                </th>
                {row.admitted.map((admitted, at) => (
                  <td key={history.operations[at]}>{count(admitted)}</td>
                ))}
                <td class="total">{count(row.admittedTotal)}</td>
                <td class={row.refusedTotal > 0 ? 'refused' : undefined}>{count(row.refusedTotal)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** Saves `text` as a file through a link to a Blob: no request leaves the page. */
function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy once started; the next task may let the Blob go.
  window.setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Download the history shown as CSV (one line per hour or day and operation) or as the API's JSON. */
export function UsageExport({ project, history }: { project: string; history: UsageHistory }) {
  const announce = useContext(Announce);
  const save = (extension: 'csv' | 'json') => {
    const name = exportName(project, history.readAt, extension);
    if (extension === 'csv') download(name, 'text/csv;charset=utf-8', usageCsv(history));
    else download(name, 'application/json', usageJson(project, history));
    announce(`Downloaded ${name}.`);
  };
  return (
    <section aria-labelledby="usage-export-heading">
      <h2 id="usage-export-heading">Export</h2>
      <p class="help">
        The hours and days shown, per operation: admitted requests (exact) and refused ones (at least that
        many). Times in the files are UTC.
      </p>
      <div class="actions">
        <button type="button" onClick={() => save('csv')}>
          Download CSV
        </button>
        <button type="button" onClick={() => save('json')}>
          Download JSON
        </button>
      </div>
    </section>
  );
}
