import type { CustomDomain, DomainRole } from '../../../../lambda/core/custom-domains/custom-domain';
import type { EdgeCertificateState } from '../../../../lambda/core/custom-domains/edge-tenants';
import {
  decide,
  type Decision,
  LIFECYCLE_EVENTS,
  LIFECYCLE_STATES,
  type LifecycleEvent,
  type LifecycleFacts,
  type LifecycleState,
  TRANSITIONS,
  type Transition,
  transitionOf,
} from '../../../../lambda/core/custom-domains/lifecycle';
import { DomainError } from '../../../../lambda/core/errors';

/**
 * The lifecycle's table, walked: every state × event pair, each under many situations (the
 * record's claim, tenant, import, role and history, and the facts: DNS verdicts, certificate
 * states, the project's other domains, confirmation). An allowed transition must produce its row's
 * effects and a record that is consistent with its next state (checked here independently of the
 * table); a refused one its error. Every row must be reached, so the table has no dead rows.
 */

const NOW = '2026-11-26T04:00:00.000Z';
const ADDED = '2026-11-25T00:00:00.000Z';
const ROLES: readonly DomainRole[] = ['primary', 'additional', 'redirect'];
const DNS_KINDS = ['verified', 'not-found', 'conflicting-record', 'migration-pending'] as const;
const CERTIFICATES: readonly (EdgeCertificateState | undefined)[] = [
  undefined,
  'none',
  'pending',
  'issued',
  'timed-out',
  'failed',
];

function recordsIn(state: LifecycleState): (CustomDomain | undefined)[] {
  if (state === 'absent') return [undefined];
  const records: CustomDomain[] = [];
  for (const role of ROLES)
    for (const claim of [false, true])
      for (const attached of [false, true])
        for (const imported of [false, true])
          for (const served of [false, true]) {
            records.push({
              name: 'shop.example.com',
              project: 'alpha',
              role,
              state,
              since: ADDED,
              addedAt: ADDED,
              attached,
              certificate: attached ? 'pending' : 'none',
              version: 3,
              ...(claim ? { claim: true as const } : {}),
              ...(imported ? { migratedFrom: 'shop.example.com.tenants.platform.test' } : {}),
              ...(served ? { servedAt: ADDED } : {}),
              ...(state === 'failed' ? { reason: 'It failed before.' } : {}),
            });
          }
  return records;
}

function factsFor(event: LifecycleEvent): LifecycleFacts[] {
  const facts: LifecycleFacts[] = [];
  const certificates = event === 'verify' || event.startsWith('certificate-') ? CERTIFICATES : [undefined];
  const kinds = event === 'verify' ? DNS_KINDS : [undefined];
  for (const kind of kinds)
    for (const state of certificates)
      for (const flag of [false, true])
        for (const others of [0, 2]) {
          facts.push({
            now: NOW,
            ...(kind
              ? { dns: { kind, proof: 'cname', failure: 'Not verified: the CNAME is missing.' } }
              : {}),
            withinPropagation: flag,
            ...(state
              ? { certificate: { state, arn: 'arn:aws:acm:us-east-1:1:certificate/a', cause: 'gone' } }
              : {}),
            ...(flag ? { replacing: 'arn:aws:acm:us-east-1:1:certificate/old' } : {}),
            otherPrimary: flag,
            others,
            ...(others > 0 && flag ? { nextServing: 'www.example.com' } : {}),
            confirmed: flag,
            releasable: flag,
          });
        }
  return facts;
}

/**
 * What is wrong with a record after an allowed transition, whatever the table's rows say
 * (collected rather than asserted one by one: the walk makes tens of thousands of decisions).
 */
function inconsistencies(
  record: CustomDomain | undefined,
  event: LifecycleEvent,
  decision: Decision,
): string[] {
  const { to, changes, effects } = decision;
  const problems: string[] = [];
  const check = (holds: boolean, what: string) => {
    if (!holds) problems.push(`${record?.state ?? 'absent'} × ${event} → ${to}: ${what}`);
  };
  if (to === 'absent') {
    check(effects.includes('delete-record'), 'a record that goes is deleted');
    return problems;
  }
  const after = { ...record, ...changes };
  check(after.state === to, 'the record is in the next state');
  if (to === 'failed') check((after.reason ?? '').length > 0, 'a failed record says why');
  const served = (to === 'active' || to === 'redirect') && to !== record?.state;
  if (served && event !== 'set-primary' && event !== 'redirect') {
    check(
      after.certificate === 'issued' && after.attached === true,
      'a serving record has its tenant and certificate',
    );
    check(after.servedAt !== undefined, 'a serving record has served');
    check(to === (record?.role === 'redirect' ? 'redirect' : 'active'), 'a redirect serves its 301s');
  }
  if (to === 'certificate-pending' && to !== record?.state)
    check(after.certificate === 'pending', 'the certificate is pending');
  if (effects.includes('attach')) check(after.attached === true, 'an attached record has its tenant');
  if (event === 'contest')
    check(after.claim === true && after.lostAt === NOW && !after.attached, 'a lost name is kept as a claim');
  if (effects.includes('take-name'))
    check(decision.drop.join() === 'claim,lostAt,reason', 'the owner holds no claim');
  return problems;
}

describe('the custom-domain lifecycle table', () => {
  const reached = new Set<Transition>();
  const allowedPairs = new Set<string>();
  const visitedPairs = new Set<string>();

  it.each(LIFECYCLE_STATES.flatMap((state) => LIFECYCLE_EVENTS.map((event) => [state, event] as const)))(
    '%s × %s: allowed ones produce their effects, refused ones their error',
    (state, event) => {
      const problems: string[] = [];
      for (const record of recordsIn(state)) {
        for (const facts of factsFor(event)) {
          visitedPairs.add(`${state} ${event}`);
          const row = transitionOf(record, event, facts);
          if (row) reached.add(row);
          let decision: Decision | undefined;
          try {
            decision = decide(record, event, facts);
          } catch (error) {
            const kind = row && typeof row.to === 'object' ? row.to.refuse : 'domain_busy';
            const refused = row === undefined || typeof row.to === 'object';
            const named =
              error instanceof DomainError && error.message.includes(record?.name ?? 'The domain');
            if (!refused || !(error instanceof DomainError) || error.kind !== kind || !named) {
              problems.push(
                `${state} × ${event}: refused with ${String(error)}, expected ${refused ? kind : 'a transition'}`,
              );
            }
            continue;
          }
          if (row === undefined || typeof row.to === 'object') {
            problems.push(`${state} × ${event}: allowed, expected a refusal`);
            continue;
          }
          allowedPairs.add(`${state} ${event}`);
          if (decision.transition !== row || decision.effects !== row.effects) {
            problems.push(`${state} × ${event}: not the row's effects`);
          }
          problems.push(...inconsistencies(record, event, decision));
        }
      }
      expect([...new Set(problems)]).toEqual([]);
    },
  );

  it('reaches every row and visits every pair (the table has no dead rows)', () => {
    expect(TRANSITIONS.filter((row) => !reached.has(row))).toEqual([]);
    expect(visitedPairs.size).toBe(LIFECYCLE_STATES.length * LIFECYCLE_EVENTS.length);
    // The table's size, as the closing note gives it.
    expect({
      states: LIFECYCLE_STATES.length,
      events: LIFECYCLE_EVENTS.length,
      rows: TRANSITIONS.length,
      allowedPairs: allowedPairs.size,
    }).toEqual({ states: 7, events: 14, rows: 41, allowedPairs: 52 });
  });
});

describe('decisions as the service knew them before the table', () => {
  const base: CustomDomain = {
    name: 'shop.example.com',
    project: 'alpha',
    role: 'additional',
    state: 'pending-dns',
    since: ADDED,
    addedAt: ADDED,
    attached: false,
    certificate: 'none',
    version: 1,
  };
  const verified = { now: NOW, dns: { kind: 'verified', proof: 'cname' as const } };

  it('takes the name for a claim whose proof holds, then verifies it again', () => {
    const decision = decide({ ...base, claim: true, state: 'failed', lostAt: ADDED }, 'verify', verified);
    expect(decision).toMatchObject({
      to: 'pending-dns',
      effects: ['take-name', 'contest-owner', 'verify-again'],
      changes: { state: 'pending-dns', attached: false, certificate: 'none' },
    });
  });

  it('attaches a verified domain without a tenant and keeps its proof', () => {
    expect(decide(base, 'verify', verified)).toMatchObject({
      to: 'certificate-pending',
      effects: ['attach'],
      changes: { state: 'certificate-pending', attached: true, certificate: 'pending', proof: 'cname' },
    });
  });

  it('requests a timed-out certificate again at verify, and its time in the state starts again', () => {
    const attached = { ...base, state: 'failed' as const, attached: true, certificate: 'timed-out' as const };
    const decision = decide(attached, 'verify', { ...verified, certificate: { state: 'timed-out' } });
    expect(decision).toMatchObject({
      to: 'certificate-pending',
      effects: ['renew-certificate'],
      restart: true,
    });
  });

  it('waits within 48 hours while nothing is in DNS, and fails after with the verdict and its fix', () => {
    const notFound = { now: NOW, dns: { kind: 'not-found', failure: 'Nothing there. Add the CNAME.' } };
    expect(decide(base, 'verify', { ...notFound, withinPropagation: true }).to).toBe('pending-dns');
    expect(decide(base, 'verify', { ...notFound, withinPropagation: false }).changes).toEqual({
      state: 'failed',
      reason: 'Nothing there. Add the CNAME.',
    });
  });

  it('keeps a contested primary as a failed claim that releases the primary claim', () => {
    const owner = { ...base, role: 'primary' as const, state: 'active' as const, attached: true };
    expect(decide(owner, 'contest', { now: NOW })).toMatchObject({
      to: 'failed',
      effects: ['keep-as-claim', 'release-primary'],
      changes: { claim: true, role: 'additional', lostAt: NOW, attached: false, certificate: 'none' },
    });
  });

  it('refuses to remove a primary while others stand, advising one that serves', () => {
    expect(() =>
      decide({ ...base, role: 'primary' }, 'remove', { now: NOW, others: 1, nextServing: 'www.example.com' }),
    ).toThrow(
      'shop.example.com is the primary domain of project alpha: make another domain primary first (www.example.com), or remove the others.',
    );
  });

  it('makes an active domain a redirect, and a redirect the primary active again', () => {
    const active = { ...base, state: 'active' as const, attached: true, certificate: 'issued' as const };
    expect(decide(active, 'redirect', { now: NOW })).toMatchObject({
      to: 'redirect',
      effects: ['make-redirect'],
    });
    expect(
      decide({ ...active, role: 'redirect', state: 'redirect' }, 'set-primary', {
        now: NOW,
        otherPrimary: true,
      }),
    ).toMatchObject({ to: 'active', effects: ['make-primary'] });
  });
});
