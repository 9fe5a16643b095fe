import {
  type ACMClient,
  AddTagsToCertificateCommand,
  DeleteCertificateCommand,
  ListTagsForCertificateCommand,
  DescribeCertificateCommand,
  RequestCertificateCommand,
} from '@aws-sdk/client-acm';

/**
 * Certificates for tenant domains whose DNS is outside Route 53. CloudFormation's own
 * certificate resource waits for validation before its stack can show anything, so the
 * tenant could not read the validation record from the stack outputs. These functions
 * back two custom resources instead: one requests the certificate and returns its
 * validation record at once (its stack completes and shows it), one waits for the
 * certificate to be issued before the API Gateway domain is created (in the domain's stack).
 */

/** The CNAME ACM asks the tenant to create. */
export interface ValidationRecord {
  readonly name: string;
  readonly type: string;
  readonly value: string;
}

export interface RequestedCertificate {
  readonly certificateArn: string;
  readonly validationRecord: ValidationRecord;
}

export interface Waiting {
  /** Pause between two looks at a new certificate (ACM adds its record within seconds). */
  readonly pauseMs: number;
  /** Looks before giving up. */
  readonly attempts: number;
  readonly sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_WAITING: Waiting = { pauseMs: 2_000, attempts: 25 };
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The validation record of a certificate, once ACM has made it up. */
async function validationRecordOf(
  acm: ACMClient,
  certificateArn: string,
): Promise<ValidationRecord | undefined> {
  const { Certificate } = await acm.send(new DescribeCertificateCommand({ CertificateArn: certificateArn }));
  const record = Certificate?.DomainValidationOptions?.[0]?.ResourceRecord;
  if (!record?.Name || !record.Type || !record.Value) return undefined;
  return { name: record.Name, type: record.Type, value: record.Value };
}

/**
 * Requests a DNS-validated certificate for `domainName` and returns it with its
 * validation record. `idempotencyToken` makes a retried request return the same
 * certificate (ACM keeps it for an hour).
 */
export async function requestCertificate(
  acm: ACMClient,
  domainName: string,
  idempotencyToken: string,
  waiting: Waiting = DEFAULT_WAITING,
): Promise<RequestedCertificate> {
  const { CertificateArn } = await acm.send(
    new RequestCertificateCommand({
      DomainName: domainName,
      ValidationMethod: 'DNS',
      IdempotencyToken: idempotencyToken.replace(/[^A-Za-z0-9]/g, '').slice(0, 32),
    }),
  );
  if (!CertificateArn) throw new Error(`ACM returned no certificate for ${domainName}`);
  return {
    certificateArn: CertificateArn,
    validationRecord: await awaitRecord(acm, CertificateArn, waiting),
  };
}

/** The validation record of an existing certificate, waiting for ACM to add it. */
export async function awaitRecord(
  acm: ACMClient,
  certificateArn: string,
  { pauseMs, attempts, sleep = pause }: Waiting = DEFAULT_WAITING,
): Promise<ValidationRecord> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const record = await validationRecordOf(acm, certificateArn);
    if (record) return record;
    if (attempt < attempts) await sleep(pauseMs);
  }
  throw new Error(
    `ACM has not published the validation record of ${certificateArn} after ${attempts} looks: deploy again.`,
  );
}

/** What a certificate's status means for the domain waiting on it. */
export type Issuance = { readonly issued: true } | { readonly issued: false };

const FAILED_STATUSES = new Set(['FAILED', 'VALIDATION_TIMED_OUT', 'REVOKED', 'EXPIRED', 'INACTIVE']);

/**
 * Whether the certificate is issued yet; throws, with what to do, once it never will be
 * (ACM gives up on a validation record that is missing for 72 hours).
 */
export async function certificateIssuance(acm: ACMClient, certificateArn: string): Promise<Issuance> {
  const { Certificate } = await acm.send(new DescribeCertificateCommand({ CertificateArn: certificateArn }));
  const status = Certificate?.Status ?? 'UNKNOWN';
  if (status === 'ISSUED') return { issued: true };
  if (FAILED_STATUSES.has(status)) {
    const why = Certificate?.FailureReason ? ` (${Certificate.FailureReason})` : '';
    throw new Error(
      `Certificate ${certificateArn} for ${Certificate?.DomainName ?? 'the domain'} is ${status}${why}: ` +
        'remove the domain from the configuration and deploy, then add it again and create the new validation record.',
    );
  }
  return { issued: false };
}

/** Tag by which the request resource hands a certificate still in use over to the waiter. */
export const DELETE_AFTER_USE_TAG = 'animal-store:delete-after-use';

const errorName = (error: unknown) => (error instanceof Error ? error.name : '');

async function tryDelete(acm: ACMClient, certificateArn: string): Promise<'deleted' | 'absent' | 'in-use'> {
  try {
    await acm.send(new DeleteCertificateCommand({ CertificateArn: certificateArn }));
    return 'deleted';
  } catch (error) {
    if (errorName(error) === 'ResourceNotFoundException') return 'absent';
    if (errorName(error) === 'ResourceInUseException') return 'in-use';
    throw error;
  }
}

/**
 * The request resource's delete. The certificates stack deploys before the domain's
 * stack, so when a domain leaves the configuration its certificate is usually still
 * held by the API Gateway domain: it is then tagged for deletion, and the waiter
 * resource deletes it once the API Gateway domain is gone.
 */
export async function releaseCertificate(
  acm: ACMClient,
  certificateArn: string,
): Promise<'deleted' | 'absent' | 'handed-over'> {
  if (!certificateArn.startsWith('arn:')) return 'absent'; // a create that failed before ACM answered
  const outcome = await tryDelete(acm, certificateArn);
  if (outcome !== 'in-use') return outcome;
  await acm.send(
    new AddTagsToCertificateCommand({
      CertificateArn: certificateArn,
      Tags: [{ Key: DELETE_AFTER_USE_TAG, Value: 'true' }],
    }),
  );
  return 'handed-over';
}

/**
 * The waiter resource's delete, after its API Gateway domain's: deletes the certificate
 * only if the request resource handed it over (a domains stack destroyed on its own
 * leaves the certificate to its request). `pending` while API Gateway still holds it.
 */
export async function deleteHandedOverCertificate(
  acm: ACMClient,
  certificateArn: string,
): Promise<'deleted' | 'kept' | 'pending'> {
  if (!certificateArn.startsWith('arn:')) return 'kept';
  let tags;
  try {
    ({ Tags: tags } = await acm.send(new ListTagsForCertificateCommand({ CertificateArn: certificateArn })));
  } catch (error) {
    if (errorName(error) === 'ResourceNotFoundException') return 'deleted';
    throw error;
  }
  if (!tags?.some((tag) => tag.Key === DELETE_AFTER_USE_TAG)) return 'kept';
  const outcome = await tryDelete(acm, certificateArn);
  return outcome === 'in-use' ? 'pending' : 'deleted';
}
