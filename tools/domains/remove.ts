import { CONFIRM_PARAMETER, REMOVE_CONFIRMATION } from '../../lambda/api/console-routes';
import { Refusal } from '../failures';
import { tenantCommand } from './tenant-command';

/** `remove <domain> [--yes]`: the host is refused at once; one that served traffic needs --yes. */
export const REMOVE = tenantCommand({
  declaration: {
    name: 'remove',
    operands: ['domain'],
    options: ['yes', 'json'],
    summary: 'Remove the domain: the host is refused at once.',
  },
  async gather(service, { operands: [name = ''], values }) {
    try {
      return await service.call('removeDomain', {
        path: { name },
        ...(values.yes ? { query: { [CONFIRM_PARAMETER]: REMOVE_CONFIRMATION } } : {}),
      });
    } catch (error) {
      // The service names its query parameter; the tool's way to confirm is --yes.
      if (
        error instanceof Refusal &&
        !values.yes &&
        error.message.includes(`${CONFIRM_PARAMETER}=${REMOVE_CONFIRMATION}`)
      ) {
        throw new Refusal(`${error.message}\nWith this tool: npm run domains -- remove ${name} --yes`);
      }
      throw error;
    }
  },
  diagnose: (removal) => ({ report: removal, exitCode: 0 }),
  render: (removal) => [
    `Removed ${removal.name}: its host is refused from now on${removal.tenant === 'pending' ? '; its edge tenant is deleted by the next clean-up' : ''}. Delete its record at your DNS provider.`,
  ],
});
