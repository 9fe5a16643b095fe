import { tenantCommand } from './tenant-command';
import { stateLabel } from './views';

/** `redirect <domain> --to-primary`: the domain answers 301 to the primary. */
export const REDIRECT = tenantCommand({
  declaration: {
    name: 'redirect',
    operands: ['domain'],
    options: ['to-primary', 'json'],
    required: ['to-primary'],
    summary: "Make the domain a 301 redirect to the project's primary domain.",
  },
  gather: (service, { operands: [name = ''] }) => service.call('makeRedirectDomain', { path: { name } }),
  diagnose: (view) => ({ report: view, exitCode: 0 }),
  render: (view) => [
    `${view.name} answers 301 to the primary domain (same path and query); state: ${stateLabel(view)}.`,
  ],
});
