import type { ConsoleAnswer } from '../../lambda/api/console-routes';

/** How the tenant's commands write a domain as text: its state, its record, its notices. */

export type DomainView = ConsoleAnswer<'addDomain'>;

/** "3 min", "2 h 5 min", "1 d 4 h". */
export function formatDuration(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

const STATE_LABELS: Record<DomainView['state'], string> = {
  'pending-dns': 'pending DNS',
  verified: 'verified',
  'certificate-pending': 'certificate pending',
  active: 'active',
  redirect: 'redirect (301 to the primary)',
  failed: 'failed',
};

export function stateLabel(view: Pick<DomainView, 'state' | 'reason'>): string {
  return view.state === 'failed' ? `failed: ${view.reason ?? 'unknown'}` : STATE_LABELS[view.state];
}

/** The record(s) to create at the DNS provider. */
export function recordLines(view: DomainView): string[] {
  const { record } = view;
  return [
    `Create this record at the DNS provider of ${record.zone}:`,
    `  Name   ${record.name}`,
    `  Type   ${record.type === 'CNAME' ? 'CNAME' : 'ALIAS (or ANAME, whichever your provider offers)'}`,
    `  Value  ${record.value}`,
    `  TTL    ${record.ttl}`,
    ...(view.ownershipRecord
      ? [
          "And beside it the record that proves the domain is this project's:",
          `  Name   ${view.ownershipRecord.name}`,
          `  Type   TXT`,
          `  Value  ${view.ownershipRecord.value}`,
          `  TTL    ${view.ownershipRecord.ttl}`,
        ]
      : []),
    ...(view.apexFallback ? [view.apexFallback] : []),
  ];
}

/** The state, for how long, the certificate, and what the tenant should know. */
export function viewLines(view: DomainView): string[] {
  return [
    `State: ${stateLabel(view)} for ${formatDuration(view.secondsInState * 1000)}; certificate: ${view.certificate}.`,
    ...view.notices,
    ...(view.troubleshooting
      ? [
          'The certificate has been pending for over 30 minutes:',
          ...view.troubleshooting.map((step, index) => `  ${index + 1}. ${step}`),
        ]
      : []),
  ];
}
