import { SIGN_IN_FAILED_PARAMETER, SIGN_IN_REFUSAL_PARAMETER } from '../../lambda/api/console-navigation';
import { signInFailureOf, withoutSignInFailure } from '../../console/src/sign-in-failure';

/** The page's words for a refused sign-in come from its own tables, whatever a link carries. */
const query = (code: string, refusal?: string) =>
  `?${new URLSearchParams({ [SIGN_IN_FAILED_PARAMETER]: code, ...(refusal ? { [SIGN_IN_REFUSAL_PARAMETER]: refusal } : {}) })}`;

describe('signInFailureOf', () => {
  it('says nothing when the address names no failure', () => {
    expect(signInFailureOf('?x=1')).toBeUndefined();
  });

  it("names a known failure and a known refusal in the page's words", () => {
    expect(signInFailureOf(query('no_project_membership'))).toMatch(/not a member of any project/);
    expect(signInFailureOf(query('sign_in_refused', 'nonce_mismatch'))).toMatch(/nonce differed/);
  });

  it("falls back to the page's own words for codes no table holds, inherited names included", () => {
    for (const code of ['constructor', '__proto__', 'toString', 'made_up']) {
      expect(signInFailureOf(query(code))).toBe('The sign-in did not finish.');
      expect(signInFailureOf(query('sign_in_refused', code))).toBe(signInFailureOf(query('sign_in_refused')));
    }
    expect(signInFailureOf(query('sign_in_refused'))).toMatch(/ID token did not check out/);
  });
});

describe('withoutSignInFailure', () => {
  it('takes the failure out of the address and keeps the rest', () => {
    const href = `https://console.example/console/keys${query('sign_in_refused', 'nonce_mismatch')}&tab=2#top`;
    expect(withoutSignInFailure(href)).toBe('/console/keys?tab=2#top');
  });
});
