import { certificateReasonWords } from '../../../../lambda/core/custom-domains/lifecycle-words';

describe('certificate reasons in words, from the facts the store reports', () => {
  it('says where validation stands by how the authority validates', () => {
    expect(certificateReasonWords({ cause: 'validation-pending', validatedBy: 'http' })).toBe(
      'CloudFront validates over HTTP once the CNAME reaches it',
    );
    expect(certificateReasonWords({ cause: 'validation-pending', validatedBy: 'dns' })).toBe(
      'ACM looks for the validation CNAME at the DNS',
    );
  });

  it("reads ACM's own failure code, and falls back to the cause for a code it does not know", () => {
    expect(
      certificateReasonWords({
        cause: 'authority-refused',
        validatedBy: 'dns',
        failureCode: 'DOMAIN_NOT_ALLOWED',
      }),
    ).toBe('ACM does not issue for this name');
    expect(
      certificateReasonWords({
        cause: 'authority-refused',
        validatedBy: 'dns',
        failureCode: 'SOMETHING_NEW',
      }),
    ).toBe('ACM refused the request');
  });

  it("shows a local sandbox authority's own message as it is, and nothing without a cause", () => {
    expect(
      certificateReasonWords({
        cause: 'validation-pending',
        validatedBy: 'http',
        authorityMessage: 'the HTTP fetch of the token got 404',
      }),
    ).toBe('the HTTP fetch of the token got 404');
    expect(certificateReasonWords({})).toBeUndefined();
  });
});
