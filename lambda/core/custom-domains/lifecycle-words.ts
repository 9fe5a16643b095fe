import { CLAIM_WINDOW_MS, REMOVE_CONFIRMATION } from './custom-domain-record';
import type {
  CertificateFacts,
  EdgeCertificateState,
  EdgeFailureFact,
  ValidationRecord,
} from './edge-tenants';

/**
 * What the custom domains' lifecycle says to the tenant, in one place: the reasons a domain
 * fails, the notices of claims, the refusals of a transition, and what an edge failure means.
 * The lifecycle (lifecycle.ts) and the service pick the words; the store returns facts only.
 */

const CLAIM_WINDOW_DAYS = CLAIM_WINDOW_MS / (24 * 60 * 60_000);

/** Why a released claim is gone, for a verify or a change that asks for it. */
export function releasedWords(name: string): string {
  return `${name} was released: it was not verified within ${CLAIM_WINDOW_DAYS} days of being added. Add it again to claim it.`;
}

/** What a pending claim on a name another project owns shows (never which project). */
export function ownedElsewhereNotice(name: string): string {
  return `${name} serves another project now. It becomes this project's when its DNS shows this project's proof (the record above) and you verify it; an unverified claim is released after ${CLAIM_WINDOW_DAYS} days.`;
}

/** What the project that lost a name reads on its record (never who took it). */
export function lostWords(name: string, at: string): string {
  const until = new Date(Date.parse(at) + CLAIM_WINDOW_MS).toISOString();
  return `${name} now serves another project: on ${at} its DNS showed that project's proof (a CNAME to its target, or its TXT record), which shows who controls the name now. If the name is still yours, point its CNAME at this project's target (or set this project's TXT record) and verify again; otherwise this record is released on ${until}.`;
}

/** ACM's FailureReason codes, in words (any other code reads "ACM refused the request"). */
const ACM_FAILURE_WORDS: Readonly<Record<string, string>> = {
  CAA_ERROR: 'CAA records forbid Amazon: allow it (CAA 0 issue "amazon.com") or remove them',
  DOMAIN_NOT_ALLOWED: 'ACM does not issue for this name',
  INVALID_PUBLIC_DOMAIN: 'the name is not a valid public domain',
  ADDITIONAL_VERIFICATION_REQUIRED: 'ACM needs more information: open a case with AWS Support',
};

/**
 * Why a certificate is pending, timed out or failed, in words, from the facts the store reports:
 * CloudFront's managed certificates validate over HTTP, ACM's own ones by DNS. A local sandbox
 * authority's own message is shown as it is (it is what the developer needs to see).
 */
export function certificateReasonWords(certificate: CertificateFacts): string | undefined {
  if (certificate.authorityMessage) return certificate.authorityMessage;
  const dns = certificate.validatedBy === 'dns';
  const code = certificate.failureCode ? ACM_FAILURE_WORDS[certificate.failureCode] : undefined;
  switch (certificate.cause) {
    case undefined:
      return undefined;
    case 'validation-pending':
      return dns
        ? 'ACM looks for the validation CNAME at the DNS'
        : 'CloudFront validates over HTTP once the CNAME reaches it';
    case 'validation-timed-out':
      return dns
        ? 'ACM did not find the validation CNAME within 72 hours'
        : 'the HTTP validation did not succeed in time';
    case 'gone':
      return 'the certificate no longer exists';
  }
  if (code) return code;
  switch (certificate.cause) {
    case 'authority-refused':
      return dns ? 'ACM refused the request' : 'the certificate authority refused the request';
    case 'revoked':
      return 'the certificate was revoked';
    case 'expired':
      return 'the certificate expired';
    case 'inactive':
      return 'the certificate is inactive';
  }
}

/** Why a domain with a tenant failed: its managed certificate timed out, failed, or the tenant is gone. */
export function certificateLostWords(
  state: 'timed-out' | 'failed' | 'none',
  reason: string | undefined,
): string {
  const why = reason ? ` (${reason})` : '';
  if (state === 'timed-out') {
    return `The certificate was not issued in time${why}: check the DNS record, then choose Re-verify to request it again.`;
  }
  if (state === 'failed')
    return `The certificate could not be issued${why}: choose Re-verify to request it again.`;
  return 'The edge has no tenant for this domain: choose Re-verify.';
}

/** Why an imported domain's own certificate was not issued, and what keeps it serving meanwhile. */
export function importCertificateWords(
  name: string,
  certificate:
    | (CertificateFacts & {
        readonly state: EdgeCertificateState;
        readonly validationRecord?: ValidationRecord;
      })
    | undefined,
): string {
  const record = certificate?.validationRecord;
  const keep = record
    ? `keep the validation record ${record.name} CNAME ${record.value} at the domain's DNS`
    : "check the domain's DNS and CAA records";
  return `The certificate for moving ${name} to the edge was not issued (${(certificate && certificateReasonWords(certificate)) ?? certificate?.state ?? 'none'}): ${keep}, then choose Re-verify to request it again. The domain still serves from its old target meanwhile.`;
}

/** The transitions the table refuses with words of their own. */
export type RefusalSituation =
  'moved' | 'not-serving' | 'primary-redirect' | 'primary-removal' | 'unconfirmed-removal';

/** What the refusal of a transition says. */
export function refusalWords(
  situation: RefusalSituation,
  {
    name,
    from,
    project,
    nextServing,
  }: { name: string; from: string; project?: string; nextServing?: string },
): string {
  switch (situation) {
    case 'moved':
      return `${name} changed while this request ran: retry.`;
    case 'not-serving':
      return `${name} does not serve yet (${from}): verify it until it is active, then make it the primary.`;
    case 'primary-redirect':
      return `${name} is the primary domain, which redirects point at: make another domain primary first.`;
    case 'primary-removal':
      // Only a serving domain can become the primary: advise one, or none.
      return nextServing
        ? `${name} is the primary domain of project ${project}: make another domain primary first (${nextServing}), or remove the others.`
        : `${name} is the primary domain of project ${project}, and none of its other domains serves yet to take its place: remove the others first, or verify one until it is active and make it the primary.`;
    case 'unconfirmed-removal':
      return `${name} has served traffic and no redirect covers it: traffic to it stops immediately. If its URL is shared, make it a redirect first and remove it later; to remove it now, confirm with confirm=${REMOVE_CONFIRMATION}.`;
  }
}

/** What a failure at the edge means for the tenant (the store reports the fact, never words). */
export function edgeFailureWords(fact: EdgeFailureFact, domain: string | undefined): string {
  const of = domain ? ` for ${domain}` : '';
  switch (fact) {
    case 'unavailable':
      return 'The edge cannot answer now: retry in a moment.';
    case 'refused':
      return `The edge refused the change${of}: retry later, and tell the platform team if it persists.`;
    case 'no-tenant':
      return `${domain} has no tenant at the edge: choose Re-verify to attach it again.`;
    case 'tenant-gone':
      return `${domain} has no tenant at the edge any more: choose Re-verify.`;
    case 'tenant-kept-changing':
      return `The tenant of ${domain} kept changing while this request changed it: retry in a moment.`;
    case 'disabled-not-deleted':
      return `The tenant of ${domain} is disabled and serves nothing; CloudFront deletes it once that has propagated, and the stale-tenant sweep does so.`;
    case 'no-certificate-manager':
      return 'This edge has no certificate manager: certificates of its own are for imported domains (npm run domains -- import).';
    case 'in-use-elsewhere':
      return `${domain} is in use elsewhere (another CloudFront distribution): remove it there, then verify it here again.`;
  }
}
