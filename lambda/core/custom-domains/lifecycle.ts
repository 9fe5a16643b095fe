import { DomainError, type DomainErrorKind } from '../errors';
import { type CustomDomain, DOMAIN_STATES, servingState } from './custom-domain-record';
import type { Proof } from './domain-ownership';
import type { CertificateFacts, EdgeCertificateState } from './edge-tenants';
import {
  certificateLostWords,
  certificateReasonWords,
  importCertificateWords,
  lostWords,
  refusalWords,
  type RefusalSituation,
} from './lifecycle-words';

/**
 * A custom domain's lifecycle, as data: its states, the events that move it, and the table of
 * transitions (state × event, tried in order under their guards → next state and effects, or a
 * refusal). {@link decide} reads the table; the service gathers the facts, calls it and applies
 * what it returns (custom-domain-transitions.ts). Nothing else sets a domain's state
 * (test/lambda/core/custom-domains/lifecycle-writers.test.ts).
 *
 * Claims are not states of their own in the record: a claim is a record with `claim` (the
 * project asks for a name it does not own, pending-dns or failed), a contested one is a claim
 * that lost the name (`lostAt`, failed), and a released one is gone (`absent`).
 */

/** `absent`: no record (never added, released, or removed); drawn as the diagram's start and end. */
export const LIFECYCLE_STATES = ['absent', ...DOMAIN_STATES] as const;
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];

export const LIFECYCLE_EVENTS = [
  'add',
  'import',
  'verify',
  'certificate-requested',
  'certificate-issued',
  'certificate-pending',
  'certificate-failed',
  'certificate-timed-out',
  'certificate-gone',
  'contest',
  'release',
  'set-primary',
  'redirect',
  'remove',
] as const;
export type LifecycleEvent = (typeof LIFECYCLE_EVENTS)[number];

/** What the service does for a transition, in this order, before it writes the record. */
export type Effect =
  | 'create-record'
  | 'take-name'
  | 'contest-owner'
  | 'verify-again'
  | 'advance-import'
  | 'attach'
  | 'attach-own-certificate'
  | 'renew-certificate'
  | 'make-primary'
  | 'make-redirect'
  | 'keep-as-claim'
  | 'release-primary'
  | 'delete-record'
  | 'detach';

/** What the service found out before deciding: DNS, ownership, the edge, the certificate, the project. */
export interface LifecycleFacts {
  /** The clock's time (ISO 8601). */
  readonly now: string;
  /** verify: the DNS verdict's kind after the edge's own check, the proof, and the words of a failure. */
  readonly dns?: { readonly kind: string; readonly proof?: Proof; readonly failure?: string };
  /** verify: true while a domain that never served is within its 48 hours of DNS propagation. */
  readonly withinPropagation?: boolean;
  /** The certificate's state at the edge (a managed one, or an imported domain's own). */
  readonly certificate?: CertificateFacts & {
    readonly state: EdgeCertificateState;
    readonly arn?: string;
    readonly validationRecord?: { readonly name: string; readonly value: string };
  };
  /** certificate-requested: the ARN of the certificate the new one replaces. */
  readonly replacing?: string;
  /** set-primary: another domain of the project is its primary. */
  readonly otherPrimary?: boolean;
  /** remove: the project's other domains, and the first of them that serves. */
  readonly others?: number;
  readonly nextServing?: string;
  /** remove: the caller confirmed that traffic stops. */
  readonly confirmed?: boolean;
  /** release: the record holds nothing any more and its window has passed (domain-claims.ts). */
  readonly releasable?: boolean;
}

interface Situation {
  readonly record: CustomDomain | undefined;
  readonly facts: LifecycleFacts;
}

/** The guards, by the words the diagram shows: each holds or not of the record and the facts. */
export const GUARDS = {
  claim: ({ record }: Situation) => record?.claim === true,
  'proof holds': ({ facts }: Situation) => facts.dns?.kind === 'verified',
  'imported, no tenant': ({ record }: Situation) => record?.migratedFrom !== undefined && !record.attached,
  'migration pending': ({ facts }: Situation) => facts.dns?.kind === 'migration-pending',
  'nothing in DNS yet': ({ record, facts }: Situation) =>
    facts.dns?.kind === 'not-found' && record?.servedAt === undefined && facts.withinPropagation === true,
  'proof fails': ({ facts }: Situation) => facts.dns?.kind !== 'verified',
  'no tenant': ({ record }: Situation) => record?.attached === false,
  'has tenant': ({ record }: Situation) => record?.attached === true,
  'certificate issued': ({ facts }: Situation) => facts.certificate?.state === 'issued',
  'certificate pending': ({ facts }: Situation) => facts.certificate?.state === 'pending',
  'tenant gone': ({ facts }: Situation) => facts.certificate?.state === 'none',
  replacing: ({ facts }: Situation) => facts.replacing !== undefined,
  primary: ({ record }: Situation) => record?.role === 'primary',
  'redirect role': ({ record }: Situation) => record?.role === 'redirect',
  'another primary, not serving': ({ record, facts }: Situation) =>
    facts.otherPrimary === true && record?.state !== 'active' && record?.state !== 'redirect',
  'other domains': ({ facts }: Situation) => (facts.others ?? 0) > 0,
  'served, unconfirmed': ({ record, facts }: Situation) =>
    record?.servedAt !== undefined && record.role !== 'redirect' && facts.confirmed !== true,
  releasable: ({ facts }: Situation) => facts.releasable === true,
} as const;
export type Guard = keyof typeof GUARDS;

/** `same`: the state does not change; `serving`: active, or redirect for a redirect domain. */
export type Target = LifecycleState | 'same' | 'serving';

/** One row of the table: from these states, on the event, when every guard holds. */
export interface Transition {
  readonly from: readonly LifecycleState[];
  readonly event: LifecycleEvent;
  readonly when: readonly Guard[];
  /** The next state, or the refusal (a core error kind the API maps to its code). */
  readonly to: Target | { readonly refuse: DomainErrorKind; readonly words: RefusalSituation };
  readonly effects: readonly Effect[];
  /** The time in the state starts again though the state stays (a fresh certificate request). */
  readonly restart?: boolean;
}

const ALL = DOMAIN_STATES;
const IMPORTING = ['pending-dns', 'certificate-pending', 'failed'] as const;
const row = (
  from: readonly LifecycleState[],
  event: LifecycleEvent,
  when: readonly Guard[],
  to: Transition['to'],
  effects: readonly Effect[] = [],
  restart = false,
): Transition => ({ from, event, when, to, effects, ...(restart ? { restart } : {}) });
const refuse = (refusal: DomainErrorKind, words: RefusalSituation) => ({ refuse: refusal, words });

/** The table. Rows are tried in order: the first whose state, event and guards match decides. */
export const TRANSITIONS: readonly Transition[] = [
  row(['absent'], 'add', [], 'pending-dns', ['create-record']),
  row(['absent'], 'import', [], 'certificate-pending', ['create-record']),
  row(ALL, 'verify', ['claim', 'proof holds'], 'pending-dns', ['take-name', 'contest-owner', 'verify-again']),
  row(ALL, 'verify', ['imported, no tenant'], 'same', ['advance-import']),
  row(ALL, 'verify', ['migration pending'], 'same'),
  row(ALL, 'verify', ['nothing in DNS yet'], 'pending-dns'),
  row(ALL, 'verify', ['proof fails'], 'failed'),
  row(ALL, 'verify', ['no tenant'], 'certificate-pending', ['attach']),
  row(ALL, 'verify', ['certificate issued'], 'serving'),
  row(ALL, 'verify', ['certificate pending'], 'certificate-pending'),
  row(ALL, 'verify', ['tenant gone'], 'certificate-pending', ['attach'], true),
  row(ALL, 'verify', [], 'certificate-pending', ['renew-certificate'], true),
  row(
    IMPORTING,
    'certificate-requested',
    ['imported, no tenant', 'replacing'],
    'certificate-pending',
    [],
    true,
  ),
  row(IMPORTING, 'certificate-requested', ['imported, no tenant'], 'certificate-pending'),
  row(IMPORTING, 'certificate-issued', ['imported, no tenant'], 'serving', ['attach-own-certificate']),
  row(IMPORTING, 'certificate-pending', ['imported, no tenant'], 'certificate-pending'),
  row(IMPORTING, 'certificate-failed', ['imported, no tenant'], 'failed'),
  row(IMPORTING, 'certificate-timed-out', ['imported, no tenant'], 'failed'),
  row(IMPORTING, 'certificate-gone', ['imported, no tenant'], 'failed'),
  row(['certificate-pending'], 'certificate-issued', ['has tenant'], 'serving'),
  row(['certificate-pending'], 'certificate-pending', ['has tenant'], 'certificate-pending'),
  row(['certificate-pending'], 'certificate-failed', ['has tenant'], 'failed'),
  row(['certificate-pending'], 'certificate-timed-out', ['has tenant'], 'failed'),
  row(['certificate-pending'], 'certificate-gone', ['has tenant'], 'failed'),
  row(ALL, 'contest', ['primary'], 'failed', ['keep-as-claim', 'release-primary'], true),
  row(ALL, 'contest', [], 'failed', ['keep-as-claim'], true),
  row(['pending-dns', 'failed'], 'release', ['releasable'], 'absent', ['delete-record']),
  row(ALL, 'set-primary', ['primary'], 'same'),
  row(ALL, 'set-primary', ['another primary, not serving'], refuse('domain_role_conflict', 'not-serving')),
  row(['redirect'], 'set-primary', [], 'active', ['make-primary']),
  row(ALL, 'set-primary', [], 'same', ['make-primary']),
  row(ALL, 'redirect', ['redirect role'], 'same'),
  row(ALL, 'redirect', ['primary'], refuse('domain_role_conflict', 'primary-redirect')),
  row(['active'], 'redirect', [], 'redirect', ['make-redirect']),
  row(ALL, 'redirect', [], 'same', ['make-redirect']),
  row(ALL, 'remove', ['primary', 'other domains'], refuse('domain_role_conflict', 'primary-removal')),
  row(ALL, 'remove', ['served, unconfirmed'], refuse('confirmation_required', 'unconfirmed-removal')),
  row(ALL, 'remove', ['primary', 'has tenant'], 'absent', ['delete-record', 'release-primary', 'detach']),
  row(ALL, 'remove', ['primary'], 'absent', ['delete-record', 'release-primary']),
  row(ALL, 'remove', ['has tenant'], 'absent', ['delete-record', 'detach']),
  row(ALL, 'remove', [], 'absent', ['delete-record']),
];

/** What a write may change of a stored record (the applying module adds `since` and `version`). */
export type RecordChanges = Partial<Omit<CustomDomain, 'name' | 'project' | 'version' | 'since' | 'addedAt'>>;

/** What {@link decide} returns: the row that matched, the next state, the changes and the effects. */
export interface Decision {
  readonly transition: Transition;
  readonly from: LifecycleState;
  readonly to: LifecycleState;
  /** For a record that stays: what to write (with the state); `drop`: fields the record loses. */
  readonly changes: RecordChanges;
  readonly drop: readonly (keyof CustomDomain)[];
  readonly effects: readonly Effect[];
  readonly restart: boolean;
}

/** The row the table has for the record, event and facts; undefined when it has none (a refusal). */
export function transitionOf(
  record: CustomDomain | undefined,
  event: LifecycleEvent,
  facts: LifecycleFacts,
): Transition | undefined {
  const from: LifecycleState = record?.state ?? 'absent';
  const situation = { record, facts };
  return TRANSITIONS.find(
    (transition) =>
      transition.event === event &&
      transition.from.includes(from) &&
      transition.when.every((guard) => GUARDS[guard](situation)),
  );
}

/**
 * Decides what the event makes of the record, given the facts: the next state, what to write and
 * the effects to apply, or a {@link DomainError} (an event the table has no row for is
 * `domain_busy`: the record is not where the caller's event assumed, another request moved it).
 */
export function decide(
  record: CustomDomain | undefined,
  event: LifecycleEvent,
  facts: LifecycleFacts,
): Decision {
  const from: LifecycleState = record?.state ?? 'absent';
  const transition = transitionOf(record, event, facts);
  const name = record?.name ?? 'The domain';
  if (!transition) {
    throw new DomainError('domain_busy', refusalWords('moved', { name, from }));
  }
  if (typeof transition.to === 'object') {
    throw new DomainError(
      transition.to.refuse,
      refusalWords(transition.to.words, {
        name,
        from,
        ...(record ? { project: record.project } : {}),
        ...(facts.nextServing ? { nextServing: facts.nextServing } : {}),
      }),
    );
  }
  const to: LifecycleState =
    transition.to === 'same'
      ? from
      : transition.to === 'serving'
        ? servingState(record?.role ?? 'additional')
        : transition.to;
  const { changes, drop } = changesOf(record, event, to, transition, facts);
  return {
    transition,
    from,
    to,
    changes,
    drop,
    effects: transition.effects,
    restart: transition.restart === true,
  };
}

/** The record's changes on entering `to`: the state, and what goes with it. */
function changesOf(
  record: CustomDomain | undefined,
  event: LifecycleEvent,
  to: LifecycleState,
  transition: Transition,
  facts: LifecycleFacts,
): { changes: RecordChanges; drop: (keyof CustomDomain)[] } {
  if (to === 'absent' || (transition.to === 'same' && record !== undefined)) return { changes: {}, drop: [] };
  if (record === undefined) {
    // A new record: an added claim waits for its DNS; an imported domain for its own certificate.
    const certificate = to === 'pending-dns' ? 'none' : 'pending';
    return { changes: { state: to, attached: false, certificate }, drop: [] };
  }
  const proof = facts.dns?.proof === 'cname' || facts.dns?.proof === 'txt' ? { proof: facts.dns.proof } : {};
  const effects = transition.effects;
  if (effects.includes('take-name')) {
    return {
      changes: { state: 'pending-dns', attached: false, certificate: 'none' },
      drop: ['claim', 'lostAt', 'reason'],
    };
  }
  if (event === 'contest') {
    return {
      changes: {
        claim: true,
        role: record.role === 'primary' ? 'additional' : record.role,
        state: 'failed',
        reason: lostWords(record.name, facts.now),
        lostAt: facts.now,
        attached: false,
        certificate: 'none',
      },
      drop: [],
    };
  }
  if (to === 'active' || to === 'redirect') {
    if (event === 'set-primary' || event === 'redirect') return { changes: { state: to }, drop: [] };
    return {
      changes: {
        state: to,
        certificate: 'issued',
        ...(effects.includes('attach-own-certificate') ? { attached: true } : {}),
        ...(record.servedAt ? {} : { servedAt: facts.now }),
        ...(event === 'verify' ? proof : {}),
      },
      drop: [],
    };
  }
  if (to === 'certificate-pending') {
    return {
      changes: {
        state: to,
        certificate: 'pending',
        ...(effects.includes('attach') ? { attached: true } : {}),
        ...(event === 'certificate-requested' && facts.certificate?.arn
          ? { certificateArn: facts.certificate.arn }
          : {}),
        ...(event === 'verify' ? proof : {}),
      },
      drop: [],
    };
  }
  if (to === 'failed') return { changes: failure(record, event, facts), drop: [] };
  return { changes: { state: to }, drop: [] };
}

/** The changes of a domain that fails on the event, with the reason in the tenant's words. */
function failure(record: CustomDomain, event: LifecycleEvent, facts: LifecycleFacts): RecordChanges {
  const certificate = facts.certificate;
  if (event === 'verify') return { state: 'failed', reason: facts.dns?.failure ?? '' };
  if (record.migratedFrom !== undefined && !record.attached) {
    return {
      state: 'failed',
      certificate: event === 'certificate-timed-out' ? 'timed-out' : 'failed',
      reason: importCertificateWords(record.name, certificate),
    };
  }
  const lost =
    event === 'certificate-timed-out' ? 'timed-out' : event === 'certificate-failed' ? 'failed' : 'none';
  return {
    state: 'failed',
    certificate: lost,
    ...(lost === 'none' ? { attached: false } : {}),
    reason: certificateLostWords(lost, certificate && certificateReasonWords(certificate)),
  };
}

/** The fields of a new record that are not the lifecycle's: who has it, its role, and where it comes from. */
export type NewRecordFields = Pick<CustomDomain, 'name' | 'project' | 'role' | 'addedAt'> &
  Partial<Pick<CustomDomain, 'claim' | 'servedAt' | 'migratedFrom'>>;

/** The record an `add` or `import` decision creates (its first version). */
export function newRecord(decision: Decision, fields: NewRecordFields): CustomDomain {
  const { state = 'pending-dns', attached = false, certificate = 'none' } = decision.changes;
  return { ...fields, state, since: fields.addedAt, attached, certificate, version: 1 };
}

/** The certificate event the edge's word on a certificate is. */
export function certificateEvent(state: EdgeCertificateState): LifecycleEvent {
  return state === 'none' ? 'certificate-gone' : `certificate-${state}`;
}
