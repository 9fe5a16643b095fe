import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ConsoleAction } from '../../lambda/core/permissions';

/**
 * What the signed-in caller may do in the current project, as the session tells it (the
 * permission table, lambda/core/permissions.ts): the page hides the rest. The API refuses
 * it anyway (403); hiding only spares a person a button that cannot work.
 */
export const Permissions = createContext<readonly ConsoleAction[]>([]);

/** Whether the caller may perform `action`. */
export function useCan(): (action: ConsoleAction) => boolean {
  const permissions = useContext(Permissions);
  return (action) => permissions.includes(action);
}
