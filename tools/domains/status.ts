import type { ConsoleAnswer } from '../../lambda/api/console-routes';
import { tenantCommand } from './tenant-command';
import { formatDuration, stateLabel } from './views';

/** `status`: the project's domains, one line each (with --all, every project's: status-all.ts). */
export const STATUS = tenantCommand({
  declaration: {
    name: 'status',
    options: ['json', 'all', 'stage'],
    summary: [
      "The project's domains: state, for how long, the record to create, the certificate.",
      "With --all: every project's, from the tables, with each imported domain's record change",
      'once its certificate is issued (platform engineers).',
    ].join('\n'),
  },
  gather: (service) => service.call('listDomains'),
  diagnose: ({ domains }: ConsoleAnswer<'listDomains'>) => ({
    exitCode: 0,
    report: domains.map((view) => ({
      domain: view.name,
      role: view.role,
      state: view.state,
      label: stateLabel(view),
      since: view.since,
      for: formatDuration(view.secondsInState * 1000),
      certificate: view.certificate,
      record: view.record,
    })),
  }),
  render: (rows) => {
    if (rows.length === 0) return ['No custom domains.'];
    const width = Math.max(...rows.map((row) => row.domain.length));
    const labelWidth = Math.max(...rows.map((row) => row.label.length));
    return rows.map(
      (row) =>
        `${row.domain.padEnd(width)}  ${row.role.padEnd(10)}  ${row.label.padEnd(labelWidth)}  for ${row.for}  (certificate ${row.certificate}; ${row.record.name} ${row.record.type} ${row.record.value})`,
    );
  },
});
