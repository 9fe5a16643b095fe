import { DOMAIN_STATES } from '../lambda/core/custom-domains/custom-domain-record';
import { type LifecycleState, TRANSITIONS, type Transition } from '../lambda/core/custom-domains/lifecycle';

/**
 * The custom domains' lifecycle table (lambda/core/custom-domains/lifecycle.ts) as a Mermaid
 * `stateDiagram-v2`, for doc/domains.md (`npm run docs:tables`): one arrow per state and next
 * state, labelled with the events that take it (refusals and events that leave the state as it is
 * are not arrows); and the table itself, row by row, with its guards, effects and refusals.
 */

const id = (state: LifecycleState) => (state === 'absent' ? '[*]' : state.replace(/-/g, '_'));

/** The next states of a row from one state: `serving` is active, or redirect for a redirect domain. */
function targets(transition: Transition, from: LifecycleState): LifecycleState[] {
  const { to } = transition;
  if (typeof to === 'object' || to === 'same') return [];
  const next: LifecycleState[] = to === 'serving' ? ['active', 'redirect'] : [to];
  return next.filter((state) => state !== from);
}

export function lifecycleDiagram(): string[] {
  // Each arrow is labelled with its events; the guards that choose between arrows are the table's.
  const arrows = new Map<string, string[]>();
  for (const transition of TRANSITIONS) {
    for (const from of transition.from) {
      for (const to of targets(transition, from)) {
        const key = `${id(from)} --> ${id(to)}`;
        const events = arrows.get(key) ?? [];
        if (!events.includes(transition.event)) events.push(transition.event);
        arrows.set(key, events);
      }
    }
  }
  return [
    '```mermaid',
    'stateDiagram-v2',
    ...DOMAIN_STATES.map((state) => `  state "${state}" as ${id(state)}`),
    ...[...arrows].map(([arrow, events]) => `  ${arrow} : ${events.join(', ')}`),
    '```',
  ];
}

const listed = (items: readonly string[]) => items.map((item) => `\`${item}\``).join(', ');

/** The table's rows, in the order they are tried. */
export function lifecycleTable(): string[] {
  const every = DOMAIN_STATES.length;
  const row = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [
    row(['From', 'Event', 'When', 'Next', 'Effects']),
    row(['---', '---', '---', '---', '---']),
    ...TRANSITIONS.map((transition) => {
      const { to } = transition;
      const next =
        typeof to === 'object'
          ? `refused: \`${to.refuse}\``
          : to === 'serving'
            ? '`active` (`redirect` for a redirect domain)'
            : to === 'same'
              ? 'unchanged'
              : `\`${to}\``;
      return row([
        transition.from.length === every ? 'any' : listed(transition.from),
        `\`${transition.event}\``,
        transition.when.join(', ') || 'otherwise',
        next,
        listed(transition.effects) || '—',
      ]);
    }),
  ];
}
