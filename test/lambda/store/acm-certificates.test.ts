import {
  ACMClient,
  type CertificateDetail,
  DescribeCertificateCommand,
  RequestCertificateCommand,
  ResourceNotFoundException,
  ThrottlingException,
} from '@aws-sdk/client-acm';
import { mockClient } from 'aws-sdk-client-mock';
import { certificateReasonWords } from '../../../lambda/core/custom-domains/lifecycle-words';
import { AcmCertificates, idempotencyTokenOf } from '../../../lambda/store/acm-certificates';

// ACM cannot run here: mocked at the SDK boundary, answering as its API reference documents.
const acm = mockClient(ACMClient);
const DOMAIN = 'shop.example.com';
const ARN = 'arn:aws:acm:us-east-1:123456789012:certificate/12345678-1234-1234-1234-123456789012';
const RECORD = {
  Name: '_3639ac514e785e898d2646601fa951d5.shop.example.com.',
  Type: 'CNAME' as const,
  Value: '_98d2646601fa951d53639ac514e785e8.xlfgrmvvlj.acm-validations.aws.',
};

/** A certificate as DescribeCertificate returns it. */
function detail(overrides: Partial<CertificateDetail> = {}): { Certificate: CertificateDetail } {
  return {
    Certificate: {
      CertificateArn: ARN,
      DomainName: DOMAIN,
      SubjectAlternativeNames: [DOMAIN],
      DomainValidationOptions: [
        {
          DomainName: DOMAIN,
          ValidationDomain: DOMAIN,
          ValidationStatus: 'PENDING_VALIDATION',
          ResourceRecord: RECORD,
          ValidationMethod: 'DNS',
        },
      ],
      Status: 'PENDING_VALIDATION',
      Type: 'AMAZON_ISSUED',
      KeyAlgorithm: 'RSA_2048',
      InUseBy: [],
      CreatedAt: new Date('2026-06-01T12:00:00Z'),
      RenewalEligibility: 'INELIGIBLE',
      ...overrides,
    },
  };
}

const certificates = () => new AcmCertificates({ client: new ACMClient({ region: 'us-east-1' }) });

afterEach(() => acm.reset());

it('requests a DNS-validated certificate for exactly the name, with a token from it, and gives its validation record', async () => {
  acm.on(RequestCertificateCommand).resolves({ CertificateArn: ARN });
  acm.on(DescribeCertificateCommand, { CertificateArn: ARN }).resolves(detail());
  expect(await certificates().request(DOMAIN)).toEqual({
    arn: ARN,
    state: 'pending',
    cause: 'validation-pending',
    validatedBy: 'dns',
    validationRecord: {
      name: '_3639ac514e785e898d2646601fa951d5.shop.example.com',
      value: '_98d2646601fa951d53639ac514e785e8.xlfgrmvvlj.acm-validations.aws',
    },
  });
  expect(acm.commandCalls(RequestCertificateCommand).map((call) => call.args[0].input)).toEqual([
    { DomainName: DOMAIN, ValidationMethod: 'DNS', IdempotencyToken: idempotencyTokenOf(DOMAIN) },
  ]);
});

it("makes the same token for a re-run, a new one for a replacement, within ACM's pattern", () => {
  const token = idempotencyTokenOf(DOMAIN);
  expect(token).toMatch(/^\w{1,32}$/);
  expect(idempotencyTokenOf(DOMAIN)).toBe(token);
  expect(idempotencyTokenOf(DOMAIN, ARN)).not.toBe(token);
  expect(idempotencyTokenOf(`www.${DOMAIN}`)).not.toBe(token);
});

it('has no validation record until ACM has made it (the seconds after the request)', async () => {
  acm.on(DescribeCertificateCommand).resolves(
    detail({
      DomainValidationOptions: [{ DomainName: DOMAIN, ValidationStatus: 'PENDING_VALIDATION' }],
    }),
  );
  const described = await certificates().describe(ARN);
  expect(described.state).toBe('pending');
  expect(described.validationRecord).toBeUndefined();
});

it.each([
  ['ISSUED', undefined, { state: 'issued' }, undefined],
  [
    'VALIDATION_TIMED_OUT',
    undefined,
    { state: 'timed-out', cause: 'validation-timed-out', validatedBy: 'dns' },
    'ACM did not find the validation CNAME within 72 hours',
  ],
  [
    'FAILED',
    'CAA_ERROR',
    { state: 'failed', cause: 'authority-refused', failureCode: 'CAA_ERROR' },
    'CAA records forbid Amazon: allow it (CAA 0 issue "amazon.com") or remove them',
  ],
  [
    'FAILED',
    'OTHER',
    { state: 'failed', cause: 'authority-refused', failureCode: 'OTHER' },
    'ACM refused the request',
  ],
  ['REVOKED', undefined, { state: 'failed', cause: 'revoked' }, 'the certificate was revoked'],
] as const)(
  'reads %s (%s) as the service states, facts only, which the core puts in words',
  async (Status, FailureReason, expected, words) => {
    acm
      .on(DescribeCertificateCommand)
      .resolves(detail({ Status, ...(FailureReason ? { FailureReason } : {}) }));
    const described = await certificates().describe(ARN);
    expect(described).toMatchObject({ arn: ARN, ...expected });
    expect(described).not.toHaveProperty('reason');
    expect(certificateReasonWords(described)).toBe(words);
  },
);

it('reads a deleted certificate as none', async () => {
  acm.on(DescribeCertificateCommand).rejects(
    new ResourceNotFoundException({
      message: `Could not find certificate ${ARN}.`,
      $metadata: { httpStatusCode: 400 },
    }),
  );
  const described = await certificates().describe(ARN);
  expect(described).toMatchObject({ arn: ARN, state: 'none', cause: 'gone' });
  expect(certificateReasonWords(described)).toBe('the certificate no longer exists');
});

it('passes throttling on to its caller (after the SDK has retried) instead of reading it as a state', async () => {
  acm
    .on(RequestCertificateCommand)
    .rejects(new ThrottlingException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } }));
  await expect(certificates().request(DOMAIN)).rejects.toThrow('Rate exceeded');
});
