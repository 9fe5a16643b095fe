import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Function as CloudFrontFunction, FunctionCode, FunctionRuntime } from 'aws-cdk-lib/aws-cloudfront';
import { Construct } from 'constructs';
import { VIEWER_HOST_HEADER } from '../../lambda/core/edge-request';
import { TENANT_PARAMETERS } from '../../lambda/shared/edge-tenant-parameters';

export { TENANT_PARAMETERS };

/** The redirect function's source (cloudfront-js-2.0), read at synth. */
export const REDIRECT_FUNCTION_SOURCE = path.join(__dirname, '..', 'edge-functions', 'redirect.mjs');

/** The line CloudFront requires first in a function that reads tenant parameters. */
export const CLOUDFRONT_MODULE_IMPORT = "import cf from 'cloudfront';";

/**
 * The redirect function's code, checked against what the distribution defines: the
 * `cloudfront` import first (CloudFront's rule) and the tenant parameter it reads named as
 * in {@link TENANT_PARAMETERS}, so a rename on one side fails synth instead of silently
 * ending every redirect.
 */
export function redirectFunctionCode(source = readFileSync(REDIRECT_FUNCTION_SOURCE, 'utf8')): string {
  const declaration = `const PRIMARY_DOMAIN_PARAMETER = '${TENANT_PARAMETERS.primaryDomain}';`;
  const hostHeader = `const VIEWER_HOST_HEADER = '${VIEWER_HOST_HEADER}';`;
  if (
    source.split('\n', 1)[0] !== CLOUDFRONT_MODULE_IMPORT ||
    !source.includes(declaration) ||
    !source.includes(hostHeader)
  ) {
    throw new Error(
      `${REDIRECT_FUNCTION_SOURCE} must start with ${CLOUDFRONT_MODULE_IMPORT} and declare ${declaration} ` +
        '(TENANT_PARAMETERS.primaryDomain in lambda/shared/edge-tenant-parameters.ts) and ' +
        `${hostHeader} (lambda/core/edge-request.ts): make them agree.`,
    );
  }
  return source;
}

/**
 * The CloudFront Function on viewer request of the edge distribution: a redirect domain's
 * tenant answers 301 to its primary domain with the same path and query; every other
 * request passes on with the viewer's host in `x-forwarded-host`. No KeyValueStore and no API: the primary is a tenant parameter.
 */
export class RedirectFunction extends Construct {
  /** The published function. */
  public readonly function: CloudFrontFunction;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.function = new CloudFrontFunction(this, 'Function', {
      code: FunctionCode.fromInline(redirectFunctionCode()),
      // 2.0: the `cloudfront` module (tenant parameters) and request.rawQueryString().
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Animal Store custom domains: 301 from a redirect domain to its primary domain',
      autoPublish: true,
    });
  }
}
