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

/** What a certificate's status means for the service (CertificateDetail.Status); ACM validates by DNS. */
const STATES: Readonly<Record<string, EdgeCertificate>> = {
  PENDING_VALIDATION: { state: 'pending', cause: 'validation-pending', validatedBy: 'dns' },
  ISSUED: { state: 'issued' },
  VALIDATION_TIMED_OUT: { state: 'timed-out', cause: 'validation-timed-out', validatedBy: 'dns' },
  FAILED: { state: 'failed', cause: 'authority-refused', validatedBy: 'dns' },
  REVOKED: { state: 'failed', cause: 'revoked', validatedBy: 'dns' },
  EXPIRED: { state: 'failed', cause: 'expired', validatedBy: 'dns' },
  INACTIVE: { state: 'failed', cause: 'inactive', validatedBy: 'dns' },
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
        return { arn, state: 'none', cause: 'gone', validatedBy: 'dns' };
      }
      throw error;
    }
    const status = STATES[detail?.Status ?? ''] ?? { state: 'pending' as const };
    const domain = detail?.DomainName;
    const option = detail?.DomainValidationOptions?.find((candidate) => candidate.DomainName === domain);
    const record = option?.ResourceRecord;
    // ACM's FailureReason is passed through as data; the core says what it means.
    const failureCode = status.state === 'failed' ? detail?.FailureReason : undefined;
    return {
      arn,
      ...status,
      ...(failureCode ? { failureCode } : {}),
      ...(record?.Name && record.Value
        ? { validationRecord: { name: trimDot(record.Name), value: trimDot(record.Value) } }
        : {}),
    };
  }
}

const trimDot = (name: string) => name.toLowerCase().replace(/\.$/, '');
