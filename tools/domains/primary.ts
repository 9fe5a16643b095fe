import { tenantCommand } from './tenant-command';

/** `primary <domain>`: the project's primary domain; redirects point at it. */
export const PRIMARY = tenantCommand({
  declaration: {
    name: 'primary',
    operands: ['domain'],
    options: ['json'],
    summary: "Make the domain the project's primary domain.",
  },
  gather: (service, { operands: [name = ''] }) => service.call('setPrimaryDomain', { path: { name } }),
  diagnose: (answer) => ({ report: answer, exitCode: 0 }),
  render: ({ domains }, _, { operands: [name = ''] }) => [
    `${domains.find((view) => view.role === 'primary')?.name ?? name} is the primary domain; redirects point at it.`,
  ],
});
