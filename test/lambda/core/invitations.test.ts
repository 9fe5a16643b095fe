import { checkAcceptor, InvitationRefusal, parseInvitationToken } from '../../../lambda/core/invitations';
import { identityProviderOf } from '../../../lambda/store/openid-identity-provider';

/** Who may accept an invitation (issue 27): the address, its verification, and an enterprise IdP's domains. */

const vouched = (provider: string) => (provider === 'AcmeCorp' ? ['acme.example'] : []);

function refusalOf(call: () => void): string | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    if (error instanceof InvitationRefusal) return error.kind;
    throw error;
  }
}

test('the invited address, verified, accepts (case aside)', () => {
  expect(
    refusalOf(() => checkAcceptor({ email: 'Ana@Shop.test', emailVerified: true }, 'ana@shop.test', vouched)),
  ).toBeUndefined();
});

test('another address, or an unverified one, is refused', () => {
  expect(
    refusalOf(() => checkAcceptor({ email: 'bob@shop.test', emailVerified: true }, 'ana@shop.test', vouched)),
  ).toBe('invitation_wrong_email');
  expect(
    refusalOf(() =>
      checkAcceptor({ email: 'ana@shop.test', emailVerified: false }, 'ana@shop.test', vouched),
    ),
  ).toBe('invitation_email_unverified');
});

test("an enterprise provider's assertion counts only within its own email domains", () => {
  const acme = { emailVerified: true, identityProvider: 'AcmeCorp' };
  expect(
    refusalOf(() => checkAcceptor({ ...acme, email: 'ana@acme.example' }, 'ana@acme.example', vouched)),
  ).toBeUndefined();
  expect(
    refusalOf(() => checkAcceptor({ ...acme, email: 'ceo@globex.example' }, 'ceo@globex.example', vouched)),
  ).toBe('invitation_email_not_vouched');
  // Cognito marks a federated address unverified unless a verification claim is mapped: the
  // provider's own domains vouch for it instead, and only they.
  const unverified = { emailVerified: false, identityProvider: 'AcmeCorp' };
  expect(
    refusalOf(() => checkAcceptor({ ...unverified, email: 'ana@acme.example' }, 'ana@acme.example', vouched)),
  ).toBeUndefined();
  expect(
    refusalOf(() =>
      checkAcceptor({ ...unverified, email: 'ceo@globex.example' }, 'ceo@globex.example', vouched),
    ),
  ).toBe('invitation_email_not_vouched');
  const unknown = { email: 'ana@acme.example', emailVerified: true, identityProvider: 'Unknown' };
  expect(refusalOf(() => checkAcceptor(unknown, 'ana@acme.example', vouched))).toBe(
    'invitation_email_not_vouched',
  );
});

test("Cognito's identities claim names the provider; the pool's own accounts have none", () => {
  expect(identityProviderOf([{ providerName: 'AcmeCorp', providerType: 'SAML', userId: 'x' }])).toBe(
    'AcmeCorp',
  );
  expect(identityProviderOf(undefined)).toBeUndefined();
  expect(identityProviderOf('AcmeCorp')).toBeUndefined();
  expect(identityProviderOf([{}])).toBeUndefined();
});

test('a token is `inv_<16 hex>_<43 base64url>`, nothing else', () => {
  const secret = 'a'.repeat(43);
  expect(parseInvitationToken(`inv_0123456789abcdef_${secret}`)).toEqual({ id: '0123456789abcdef', secret });
  expect(parseInvitationToken(`inv_0123456789abcdeg_${secret}`)).toBeUndefined();
  expect(parseInvitationToken(`inv_0123456789abcdef_${secret}x`)).toBeUndefined();
});
