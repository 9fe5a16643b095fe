import { readFileSync } from 'node:fs';
import {
  CLOUDFRONT_MODULE_IMPORT,
  REDIRECT_FUNCTION_SOURCE,
  redirectFunctionCode,
  TENANT_PARAMETERS,
} from '../../../lib/constructs/redirect-function';

const source = readFileSync(REDIRECT_FUNCTION_SOURCE, 'utf8');

describe('redirect function code', () => {
  test('starts with the cloudfront import, as CloudFront requires for tenant parameters', () => {
    expect(source.split('\n')[0]).toBe(CLOUDFRONT_MODULE_IMPORT);
    expect(redirectFunctionCode()).toBe(source);
  });

  test('fits the 10 KB CloudFront allows a function', () => {
    expect(Buffer.byteLength(source)).toBeLessThan(10 * 1024);
  });

  test('a parameter name other than the distribution defines fails synth, naming both sides', () => {
    const renamed = source.replace(`'${TENANT_PARAMETERS.primaryDomain}'`, "'redirectTo'");
    expect(() => redirectFunctionCode(renamed)).toThrow(
      /must start with import cf from 'cloudfront'; and declare const PRIMARY_DOMAIN_PARAMETER = 'primaryDomain';.*make them agree/,
    );
  });

  test('anything before the import fails synth', () => {
    expect(() => redirectFunctionCode(`// note\n${source}`)).toThrow(
      /must start with import cf from 'cloudfront';/,
    );
  });
});
