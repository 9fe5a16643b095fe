import { Duration } from 'aws-cdk-lib';
import {
  HeadersFrameOption,
  HeadersReferrerPolicy,
  type ResponseCustomHeader,
  type ResponseSecurityHeadersBehavior,
} from 'aws-cdk-lib/aws-cloudfront';

/** The response headers a CloudFront response headers policy sets, split as CloudFront takes them. */
export interface ResponseHeaders {
  readonly securityHeadersBehavior: ResponseSecurityHeadersBehavior;
  readonly customHeaders: ResponseCustomHeader[];
}

const FRAME_OPTIONS: Readonly<Record<string, HeadersFrameOption>> = {
  DENY: HeadersFrameOption.DENY,
  SAMEORIGIN: HeadersFrameOption.SAMEORIGIN,
};

/**
 * A list of response headers as a response headers policy: the five CloudFront models
 * (CSP, HSTS, frame options, nosniff, referrer policy) in its security headers, the rest as
 * custom headers, every one overriding the origin's. A value CloudFront would send otherwise
 * than written (an HSTS directive it does not model, a frame option it lacks) fails synth.
 */
export function responseHeadersOf(headers: Readonly<Record<string, string>>): ResponseHeaders {
  const security: Record<string, unknown> = {};
  const customHeaders: ResponseCustomHeader[] = [];
  const refuse = (name: string, value: string): never => {
    throw new Error(
      `Response header ${name}: ${JSON.stringify(value)} cannot be set by CloudFront as written.`,
    );
  };
  for (const [name, value] of Object.entries(headers)) {
    switch (name.toLowerCase()) {
      case 'content-security-policy':
        security.contentSecurityPolicy = { contentSecurityPolicy: value, override: true };
        break;
      case 'strict-transport-security': {
        const maxAge = /^max-age=(\d+)/.exec(value)?.[1];
        const includeSubdomains = value.includes('; includeSubDomains');
        const preload = value.endsWith('; preload');
        // CloudFront writes max-age, then includeSubDomains, then preload.
        const rendered = `max-age=${maxAge}${includeSubdomains ? '; includeSubDomains' : ''}${preload ? '; preload' : ''}`;
        if (maxAge === undefined || rendered !== value) refuse(name, value);
        security.strictTransportSecurity = {
          accessControlMaxAge: Duration.seconds(Number(maxAge)),
          includeSubdomains,
          preload,
          override: true,
        };
        break;
      }
      case 'x-frame-options':
        security.frameOptions = { frameOption: FRAME_OPTIONS[value] ?? refuse(name, value), override: true };
        break;
      case 'x-content-type-options':
        if (value !== 'nosniff') refuse(name, value);
        security.contentTypeOptions = { override: true };
        break;
      case 'referrer-policy': {
        const policy = Object.values(HeadersReferrerPolicy).find((known) => known === value);
        security.referrerPolicy = { referrerPolicy: policy ?? refuse(name, value), override: true };
        break;
      }
      default:
        customHeaders.push({ header: name, value, override: true });
    }
  }
  return { securityHeadersBehavior: security as ResponseSecurityHeadersBehavior, customHeaders };
}
