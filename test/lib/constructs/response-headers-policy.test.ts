import { Duration } from 'aws-cdk-lib';
import { HeadersFrameOption, HeadersReferrerPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { CONSOLE_SECURITY_HEADERS } from '../../../console/security-headers';
import { responseHeadersOf } from '../../../lib/constructs/response-headers-policy';

describe('responseHeadersOf', () => {
  test("puts CloudFront's five modelled headers in its security headers and the rest in custom headers, each overriding", () => {
    const { securityHeadersBehavior, customHeaders } = responseHeadersOf({
      'Content-Security-Policy': "default-src 'none'",
      'Strict-Transport-Security': 'max-age=600; includeSubDomains; preload',
      'X-Frame-Options': 'SAMEORIGIN',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'same-origin',
      'Cache-Control': 'no-store',
    });
    expect(securityHeadersBehavior).toEqual({
      contentSecurityPolicy: { contentSecurityPolicy: "default-src 'none'", override: true },
      strictTransportSecurity: {
        accessControlMaxAge: Duration.seconds(600),
        includeSubdomains: true,
        preload: true,
        override: true,
      },
      frameOptions: { frameOption: HeadersFrameOption.SAMEORIGIN, override: true },
      contentTypeOptions: { override: true },
      referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.SAME_ORIGIN, override: true },
    });
    expect(customHeaders).toEqual([{ header: 'Cache-Control', value: 'no-store', override: true }]);
  });

  test("takes the console's own list whole", () => {
    const { customHeaders } = responseHeadersOf(CONSOLE_SECURITY_HEADERS);
    expect(customHeaders.map(({ header }) => header)).toEqual([
      'Cross-Origin-Opener-Policy',
      'Cross-Origin-Resource-Policy',
      'Permissions-Policy',
    ]);
  });

  test.each([
    ['Strict-Transport-Security', 'max-age=60; includeSubDomains; someday'],
    ['Strict-Transport-Security', 'includeSubDomains; max-age=60'],
    ['X-Frame-Options', 'ALLOW-FROM https://example.com'],
    ['X-Content-Type-Options', 'sniff'],
    ['Referrer-Policy', 'nobody'],
  ])('refuses %s: %s, which CloudFront would not send as written', (name, value) => {
    expect(() => responseHeadersOf({ [name]: value })).toThrow(`Response header ${name}`);
  });
});
