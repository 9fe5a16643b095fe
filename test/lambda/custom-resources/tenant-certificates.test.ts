import {
  ACMClient,
  AddTagsToCertificateCommand,
  DeleteCertificateCommand,
  DescribeCertificateCommand,
  ListTagsForCertificateCommand,
  RequestCertificateCommand,
  ResourceInUseException,
  ResourceNotFoundException,
} from '@aws-sdk/client-acm';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { handleCertificateRequest as requestHandler } from '../../../lambda/handlers/certificate-request';
import { checkIssued as isComplete, onEvent } from '../../../lambda/handlers/certificate-issued';
import { awaitRecord, DELETE_AFTER_USE_TAG } from '../../../lambda/custom-resources/tenant-certificates';

// ACM cannot run here: mocked at the SDK boundary only.
const acmMock = mockClient(ACMClient);
const acm = new ACMClient({ region: 'us-east-1' });
const ARN = 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';
const RECORD = {
  Name: '_a79865eb4cd1a6ab990a45779b4e0b96.pets.birdhouse.example.',
  Type: 'CNAME' as const,
  Value: '_424c7224e9b0146f9a8808af955727d0.acm-validations.aws.',
};

function event(
  requestType: 'Create' | 'Update' | 'Delete',
  properties: Record<string, string>,
  extra: Partial<Record<string, unknown>> = {},
): CloudFormationCustomResourceEvent {
  return {
    RequestType: requestType,
    RequestId: '2c5a8f62-6f5e-4c7c-9f0c-0d1e2f3a4b5c',
    ResponseURL: 'https://cloudformation-custom-resource-response.example/',
    ServiceToken: 'arn:aws:lambda:us-east-1:123456789012:function:provider',
    StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/s/1',
    LogicalResourceId: 'Certificate',
    ResourceType: 'Custom::TenantCertificate',
    ResourceProperties: { ServiceToken: 'token', ...properties },
    ...extra,
  } as CloudFormationCustomResourceEvent;
}

const described = (certificate: Record<string, unknown>) => ({
  Certificate: { CertificateArn: ARN, ...certificate },
});

beforeEach(() => acmMock.reset());

describe('certificate request resource (certificates stack)', () => {
  it('requests a DNS-validated certificate and returns its ARN and validation record without waiting for issue', async () => {
    acmMock.on(RequestCertificateCommand).resolves({ CertificateArn: ARN });
    acmMock
      .on(DescribeCertificateCommand)
      .resolvesOnce(described({ DomainValidationOptions: [{ DomainName: 'pets.birdhouse.example' }] }))
      .resolves(
        described({ Status: 'PENDING_VALIDATION', DomainValidationOptions: [{ ResourceRecord: RECORD }] }),
      );
    const sleeps: number[] = [];
    const response = await requestHandler(event('Create', { DomainName: 'pets.birdhouse.example' }), acm, {
      pauseMs: 5,
      attempts: 3,
      sleep: async (ms) => void sleeps.push(ms),
    });
    expect(response).toEqual({
      PhysicalResourceId: ARN,
      Data: {
        CertificateArn: ARN,
        ValidationRecordName: RECORD.Name,
        ValidationRecordType: 'CNAME',
        ValidationRecordValue: RECORD.Value,
      },
    });
    expect(sleeps).toEqual([5]); // looked twice: the record appeared on the second look
    const [request] = acmMock.commandCalls(RequestCertificateCommand);
    expect(request?.args[0].input).toEqual({
      DomainName: 'pets.birdhouse.example',
      ValidationMethod: 'DNS',
      // The CloudFormation request id, alphanumeric, at most 32 characters: a retry returns the same certificate.
      IdempotencyToken: '2c5a8f626f5e4c7c9f0c0d1e2f3a4b5c',
    });
  });

  it('fails with what to do when ACM never publishes the record', async () => {
    acmMock.on(DescribeCertificateCommand).resolves(described({ DomainValidationOptions: [] }));
    await expect(
      awaitRecord(acm, ARN, { pauseMs: 1, attempts: 3, sleep: async () => undefined }),
    ).rejects.toThrow(/has not published the validation record .* after 3 looks: deploy again/);
    expect(acmMock.commandCalls(DescribeCertificateCommand)).toHaveLength(3);
  });

  it('keeps the certificate on an update that keeps the domain, and requests a new one when the domain changes', async () => {
    acmMock
      .on(DescribeCertificateCommand)
      .resolves(described({ DomainValidationOptions: [{ ResourceRecord: RECORD }] }));
    const same = await requestHandler(
      event(
        'Update',
        { DomainName: 'pets.birdhouse.example' },
        {
          PhysicalResourceId: ARN,
          OldResourceProperties: { DomainName: 'pets.birdhouse.example' },
        },
      ),
      acm,
    );
    expect(same.PhysicalResourceId).toBe(ARN);
    expect(acmMock.commandCalls(RequestCertificateCommand)).toHaveLength(0);

    const newArn = ARN.replace('5555', '9999');
    acmMock.on(RequestCertificateCommand).resolves({ CertificateArn: newArn });
    const moved = await requestHandler(
      event(
        'Update',
        { DomainName: 'shop.birdhouse.example' },
        {
          PhysicalResourceId: ARN,
          OldResourceProperties: { DomainName: 'pets.birdhouse.example' },
        },
      ),
      acm,
    );
    expect(moved.PhysicalResourceId).toBe(newArn);
    expect(acmMock.commandCalls(RequestCertificateCommand)[0]?.args[0].input.DomainName).toBe(
      'shop.birdhouse.example',
    );
  });

  it('deletes its certificate on delete; one still in use is tagged for the waiter instead', async () => {
    acmMock.on(DeleteCertificateCommand).resolvesOnce({});
    await requestHandler(
      event('Delete', { DomainName: 'pets.birdhouse.example' }, { PhysicalResourceId: ARN }),
      acm,
    );
    expect(acmMock.commandCalls(DeleteCertificateCommand)).toHaveLength(1);
    expect(acmMock.commandCalls(AddTagsToCertificateCommand)).toHaveLength(0);

    acmMock.reset();
    acmMock
      .on(DeleteCertificateCommand)
      .rejects(new ResourceInUseException({ message: 'in use by a domain', $metadata: {} }));
    await requestHandler(
      event('Delete', { DomainName: 'pets.birdhouse.example' }, { PhysicalResourceId: ARN }),
      acm,
    );
    expect(acmMock.commandCalls(AddTagsToCertificateCommand)[0]?.args[0].input).toEqual({
      CertificateArn: ARN,
      Tags: [{ Key: DELETE_AFTER_USE_TAG, Value: 'true' }],
    });
  });

  it('treats a certificate already gone, or a create that never got one, as deleted', async () => {
    acmMock
      .on(DeleteCertificateCommand)
      .rejects(new ResourceNotFoundException({ message: 'gone', $metadata: {} }));
    await expect(
      requestHandler(event('Delete', { DomainName: 'x.example' }, { PhysicalResourceId: ARN }), acm),
    ).resolves.toEqual({ PhysicalResourceId: ARN });
    await requestHandler(
      event('Delete', { DomainName: 'x.example' }, { PhysicalResourceId: 'failed-create' }),
      acm,
    );
    expect(acmMock.commandCalls(DeleteCertificateCommand)).toHaveLength(1);
  });
});

describe('certificate issued waiter (domains stack)', () => {
  const create = event('Create', { CertificateArn: ARN });

  it('takes the certificate ARN as its physical id', async () => {
    await expect(onEvent(create)).resolves.toEqual({ PhysicalResourceId: ARN });
  });

  it('is complete only once ACM has issued the certificate', async () => {
    acmMock.on(DescribeCertificateCommand).resolvesOnce(described({ Status: 'PENDING_VALIDATION' }));
    await expect(isComplete(create, acm)).resolves.toEqual({ IsComplete: false });
    acmMock.on(DescribeCertificateCommand).resolves(described({ Status: 'ISSUED' }));
    await expect(isComplete(create, acm)).resolves.toEqual({ IsComplete: true });
  });

  it.each(['FAILED', 'VALIDATION_TIMED_OUT', 'REVOKED'])(
    'fails the deploy, saying what to do, when ACM says %s',
    async (status) => {
      acmMock
        .on(DescribeCertificateCommand)
        .resolves(
          described({ Status: status, DomainName: 'pets.birdhouse.example', FailureReason: 'CAA_ERROR' }),
        );
      await expect(isComplete(create, acm)).rejects.toThrow(
        new RegExp(
          `pets\\.birdhouse\\.example is ${status} \\(CAA_ERROR\\): remove the domain .* add it again`,
        ),
      );
    },
  );

  it('on delete, deletes a handed-over certificate, waiting while API Gateway still holds it', async () => {
    const remove = event('Delete', { CertificateArn: ARN }, { PhysicalResourceId: ARN });
    acmMock
      .on(ListTagsForCertificateCommand)
      .resolves({ Tags: [{ Key: DELETE_AFTER_USE_TAG, Value: 'true' }] });
    acmMock
      .on(DeleteCertificateCommand)
      .rejectsOnce(new ResourceInUseException({ message: 'in use', $metadata: {} }))
      .resolves({});
    await expect(isComplete(remove, acm)).resolves.toEqual({ IsComplete: false });
    await expect(isComplete(remove, acm)).resolves.toEqual({ IsComplete: true });
    expect(acmMock.commandCalls(DeleteCertificateCommand)).toHaveLength(2);
  });

  it('on delete, keeps a certificate its request still owns (a domains stack destroyed on its own)', async () => {
    const remove = event('Delete', { CertificateArn: ARN }, { PhysicalResourceId: ARN });
    acmMock.on(ListTagsForCertificateCommand).resolves({ Tags: [] });
    await expect(isComplete(remove, acm)).resolves.toEqual({ IsComplete: true });
    expect(acmMock.commandCalls(DeleteCertificateCommand)).toHaveLength(0);
  });
});
