import { createHash } from 'node:crypto';
import {
  type ACMClient,
  type CertificateDetail,
  DescribeCertificateCommand,
  RequestCertificateCommand,
} from '@aws-sdk/client-acm';
import type { EdgeCertificate, OwnCertificate } from '../core/custom-domains/edge-tenants';

/**
 * Certificates of the platform's own in ACM, for the tenants of domains imported from the old
 * per-domain targets: one certificate per domain, in us-east-1 (the only region CloudFront takes
 * a certificate from), validated by DNS. A tenant whose DNS is elsewhere added the validation
 * CNAME for the old flow's certificate; ACM has been observed to ask the same record for the
 * same name in the same account, so it may validate with no action (a first deploy confirms it).
 */

/** What a certificate's status means for the service (CertificateDetail.Status). */
const STATES: Readonly<Record<string, EdgeCertificate>> = {
  PENDING_VALIDATION: { state: 'pending', reason: 'ACM looks for the validation CNAME at the DNS' },
  ISSUED: { state: 'issued' },
  VALIDATION_TIMED_OUT: {
    state: 'timed-out',
    reason: 'ACM did not find the validation CNAME within 72 hours',
  },
  FAILED: { state: 'failed', reason: 'ACM refused the request' },
  REVOKED: { state: 'failed', reason: 'the certificate was revoked' },
  EXPIRED: { state: 'failed', reason: 'the certificate expired' },
  INACTIVE: { state: 'failed', reason: 'the certificate is inactive' },
};

/** ACM's FailureReason, in words (the others read "ACM refused the request"). */
const FAILURES: Readonly<Record<string, string>> = {
  CAA_ERROR: 'CAA records forbid Amazon: allow it (CAA 0 issue "amazon.com") or remove them',
  DOMAIN_NOT_ALLOWED: 'ACM does not issue for this name',
  INVALID_PUBLIC_DOMAIN: 'the name is not a valid public domain',
  ADDITIONAL_VERIFICATION_REQUIRED: 'ACM needs more information: open a case with AWS Support',
};

/**
 * RequestCertificate's idempotency token (`\w+`, at most 32 characters): from the name and the
 * certificate it replaces, so a re-run within ACM's hour asks once, and a request that replaces
 * a failed certificate is a new one.
 */
export function idempotencyTokenOf(domain: string, replacing?: string): string {
  return createHash('sha256')
    .update(`${domain}\n${replacing ?? ''}`)
    .digest('hex')
    .slice(0, 32);
}

function named(error: unknown, name: string): boolean {
  return error instanceof Error && error.name === name;
}

export interface AcmCertificatesOptions {
  /** An ACM client in us-east-1. */
  readonly client: ACMClient;
}

export class AcmCertificates {
  constructor(private readonly options: AcmCertificatesOptions) {}

  /** Requests a DNS-validated certificate for exactly `domain`, then describes it. */
  async request(domain: string, replacing?: string): Promise<OwnCertificate> {
    const { CertificateArn } = await this.options.client.send(
      new RequestCertificateCommand({
        DomainName: domain,
        ValidationMethod: 'DNS',
        IdempotencyToken: idempotencyTokenOf(domain, replacing),
      }),
    );
    if (!CertificateArn) throw new Error(`ACM gave no certificate for ${domain}`);
    return this.describe(CertificateArn);
  }

  /** Where the certificate stands, with the CNAME its validation needs once ACM has made it. */
  async describe(arn: string): Promise<OwnCertificate> {
    let detail: CertificateDetail | undefined;
    try {
      ({ Certificate: detail } = await this.options.client.send(
        new DescribeCertificateCommand({ CertificateArn: arn }),
      ));
    } catch (error) {
      if (named(error, 'ResourceNotFoundException')) {
        return { arn, state: 'none', reason: 'the certificate no longer exists' };
      }
      throw error;
    }
    const status = STATES[detail?.Status ?? ''] ?? { state: 'pending' as const };
    const domain = detail?.DomainName;
    const option = detail?.DomainValidationOptions?.find((candidate) => candidate.DomainName === domain);
    const record = option?.ResourceRecord;
    const failure = detail?.FailureReason ? FAILURES[detail.FailureReason] : undefined;
    const reason = status.state === 'failed' && failure ? failure : status.reason;
    return {
      arn,
      state: status.state,
      ...(reason ? { reason } : {}),
      ...(record?.Name && record.Value
        ? { validationRecord: { name: trimDot(record.Name), value: trimDot(record.Value) } }
        : {}),
    };
  }
}

const trimDot = (name: string) => name.toLowerCase().replace(/\.$/, '');
