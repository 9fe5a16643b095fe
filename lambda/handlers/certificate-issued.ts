import { ACMClient } from '@aws-sdk/client-acm';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { certificateIssuance, deleteHandedOverCertificate } from '../custom-resources/tenant-certificates';

const acm = new ACMClient({});

const arnOf = (event: CloudFormationCustomResourceEvent) => String(event.ResourceProperties.CertificateArn);

/**
 * Custom resource `CertificateIssued` (lib/constructs/project-domains.ts), which the API
 * Gateway domain of a tenant domain outside Route 53 depends on. Its physical id is the
 * certificate's ARN.
 */
export async function onEvent(
  event: CloudFormationCustomResourceEvent,
): Promise<{ PhysicalResourceId: string }> {
  return { PhysicalResourceId: event.RequestType === 'Delete' ? event.PhysicalResourceId : arnOf(event) };
}

/**
 * Polled by the Provider framework: complete once ACM has issued the certificate (the
 * tenant created the validation record); fails, saying what to do, when ACM gave up.
 * On delete, which comes after the API Gateway domain's, it deletes the certificate if
 * its request resource handed it over, polling while API Gateway still holds it.
 */
export async function checkIssued(
  event: CloudFormationCustomResourceEvent,
  client: ACMClient,
): Promise<{ IsComplete: boolean }> {
  if (event.RequestType === 'Delete') {
    return {
      IsComplete: (await deleteHandedOverCertificate(client, event.PhysicalResourceId)) !== 'pending',
    };
  }
  return { IsComplete: (await certificateIssuance(client, arnOf(event))).issued };
}

/** The isComplete entry point (Lambda passes its context second: the client is bound here). */
export const isComplete = (event: CloudFormationCustomResourceEvent) => checkIssued(event, acm);
