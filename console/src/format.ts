import type { DomainRole, DomainState, EdgeCertificateState } from './contract';

/** How the page words what the API returns. */

const NUMBER = new Intl.NumberFormat('en');

export const count = (value: number) => NUMBER.format(value);

/** `3 minutes`, `2 hours`, `5 days`: how long something has been so. */
export function age(seconds: number): string {
  const plural = (value: number, unit: string) => `${value} ${unit}${value === 1 ? '' : 's'}`;
  if (seconds < 60) return 'less than a minute';
  if (seconds < 3600) return plural(Math.floor(seconds / 60), 'minute');
  if (seconds < 86_400) return plural(Math.floor(seconds / 3600), 'hour');
  return plural(Math.floor(seconds / 86_400), 'day');
}

/** A moment, in the reader's own zone and language. */
export function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A time of today, e.g. when a counter resets. */
export function timeOf(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString(undefined, { timeStyle: 'short' });
}

/** A moment of today to the second, e.g. when usage was read. */
export const clockTime = (date: Date) => date.toLocaleTimeString(undefined, { timeStyle: 'medium' });

export const STATE_LABELS: Record<DomainState, string> = {
  'pending-dns': 'Waiting for DNS',
  verified: 'Verified',
  'certificate-pending': 'Certificate pending',
  active: 'Active',
  redirect: 'Redirecting (301 to the primary)',
  failed: 'Failed',
};

export const CERTIFICATE_LABELS: Record<EdgeCertificateState, string> = {
  none: 'Not requested yet',
  pending: 'Pending',
  issued: 'Issued',
  'timed-out': 'Timed out',
  failed: 'Failed',
};

export const ROLE_LABELS: Record<DomainRole, string> = {
  primary: 'Primary',
  additional: 'Additional',
  redirect: 'Redirect',
};

/** `pro` → `Pro`. */
export const planLabel = (plan: string) => plan.charAt(0).toUpperCase() + plan.slice(1);
