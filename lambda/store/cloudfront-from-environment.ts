import { ACMClient } from '@aws-sdk/client-acm';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { AcmCertificates } from './acm-certificates';
import { CloudFrontEdgeTenants } from './cloudfront-edge-tenants';

// Apart from from-environment.ts: only the console function talks to CloudFront, and a module
// every handler imports would bundle the CloudFront client into all of them.

/**
 * CloudFront's control plane (and ACM's), bounded so a slow answer fails inside the console function's
 * timeout: at most 2 attempts of 1 s to connect and 5 s to answer per call (a verification
 * makes up to four calls in series).
 */
const CLOUDFRONT_CLIENT = {
  maxAttempts: 2,
  requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
};

export function cloudFrontEdgeTenantsFromEnv(): CloudFrontEdgeTenants {
  return new CloudFrontEdgeTenants({
    // CloudFront's endpoint is global (signed for us-east-1) whatever the function's region.
    client: new CloudFrontClient(CLOUDFRONT_CLIENT),
    distributionId: requireEnv(RUNTIME_ENV.edgeDistributionId),
    connectionGroupId: requireEnv(RUNTIME_ENV.edgeConnectionGroupId),
    // Imported domains' certificates of their own: in us-east-1, the only region CloudFront reads.
    certificates: new AcmCertificates({
      client: new ACMClient({ ...CLOUDFRONT_CLIENT, region: 'us-east-1' }),
    }),
  });
}
