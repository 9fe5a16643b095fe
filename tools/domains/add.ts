import type { DomainView } from './views';
import { recordLines, stateLabel } from './views';
import { tenantCommand } from './tenant-command';

/** `add <domain> [--redirect]`: the domain in pending-dns, and the one record to create. */
export const ADD = tenantCommand<DomainView, DomainView>({
  declaration: {
    name: 'add',
    operands: ['domain'],
    options: ['redirect', 'json'],
    summary: 'Add a custom domain (paid plans): prints the one DNS record to create.',
  },
  gather: (service, { operands: [name = ''], values }) =>
    service.call('addDomain', { body: { name, ...(values.redirect ? { redirect: true } : {}) } }),
  diagnose: (view) => ({ report: view, exitCode: 0 }),
  render: (view) => [
    `Added ${view.name} as ${view.role}; state: ${stateLabel(view)}.`,
    ...recordLines(view),
    `Then: npm run domains -- verify ${view.name}`,
  ],
});
