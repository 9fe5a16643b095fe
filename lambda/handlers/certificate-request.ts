import { ACMClient } from '@aws-sdk/client-acm';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import {
  awaitRecord,
  releaseCertificate,
  type RequestedCertificate,
  requestCertificate,
  type Waiting,
} from '../custom-resources/tenant-certificates';

const acm = new ACMClient({});

/** What the custom resource returns to CloudFormation (the Provider framework's onEvent answer). */
export interface CertificateRequestResponse {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string>;
}

function answer({ certificateArn, validationRecord }: RequestedCertificate): CertificateRequestResponse {
  return {
    PhysicalResourceId: certificateArn,
    Data: {
      CertificateArn: certificateArn,
      ValidationRecordName: validationRecord.name,
      ValidationRecordType: validationRecord.type,
      ValidationRecordValue: validationRecord.value,
    },
  };
}

/**
 * Custom resource `TenantCertificate` (lib/constructs/tenant-certificates.ts): requests a
 * DNS-validated certificate without waiting for validation and returns its ARN and
 * validation record, so that the stack completes and its outputs show the record. A new
 * domain name means a new certificate (CloudFormation then deletes the old one).
 */
export async function handleCertificateRequest(
  event: CloudFormationCustomResourceEvent,
  client: ACMClient,
  waiting?: Waiting,
): Promise<CertificateRequestResponse> {
  const domainName = String(event.ResourceProperties.DomainName);
  if (event.RequestType === 'Delete') {
    // Still held by the API Gateway domain: handed over to its waiter, which deletes it after the domain.
    await releaseCertificate(client, event.PhysicalResourceId);
    return { PhysicalResourceId: event.PhysicalResourceId };
  }
  if (event.RequestType === 'Update' && event.OldResourceProperties.DomainName === domainName) {
    const certificateArn = event.PhysicalResourceId;
    return answer({ certificateArn, validationRecord: await awaitRecord(client, certificateArn, waiting) });
  }
  return answer(await requestCertificate(client, domainName, event.RequestId, waiting));
}

/** The Lambda entry point (Lambda passes its context second: the client is bound here). */
export const handler = (event: CloudFormationCustomResourceEvent) => handleCertificateRequest(event, acm);
