import {
  environmentConfigs,
  environmentsFromContext,
  validateEnvironmentConfig,
} from '../../../lib/config/environments';
import { signInEmailFromContext } from '../../../lib/config/sign-in-email';
import { TEST_PLATFORM } from '../../support/synth';

describe('the sign-in email from context values', () => {
  test('unset: none, so the pool keeps Cognito’s own email and offers no email codes', () => {
    expect(signInEmailFromContext(undefined, undefined)).toBeUndefined();
    expect(signInEmailFromContext('', '')).toBeUndefined();
  });

  test('the sender alone, or with its verified domain', () => {
    expect(signInEmailFromContext('no-reply@animalstore.example', undefined)).toEqual({
      fromEmail: 'no-reply@animalstore.example',
    });
    expect(signInEmailFromContext('no-reply@animalstore.example', 'animalstore.example')).toEqual({
      fromEmail: 'no-reply@animalstore.example',
      sesVerifiedDomain: 'animalstore.example',
    });
  });

  test('a domain without a sender, a malformed sender, or a sender outside the domain stops synth with the fix', () => {
    expect(() => signInEmailFromContext(undefined, 'animalstore.example')).toThrow(
      /"signInEmailFrom" is undefined: give the sender's address, e.g. -c signInEmailFrom=no-reply@animalstore.example/,
    );
    expect(() => signInEmailFromContext('no-reply', undefined)).toThrow(
      /use one address of a verified SES identity/,
    );
    expect(() => signInEmailFromContext('no-reply@other.example', 'animalstore.example')).toThrow(
      /the sender "no-reply@other.example" must be an address of it/,
    );
  });

  test('reaches production alone, and only where the console is (the edge serves it)', () => {
    const context: Record<string, string> = {
      signInEmailFrom: 'no-reply@animalstore.example',
      platformDomain: TEST_PLATFORM.domain,
      platformHostedZoneId: TEST_PLATFORM.hostedZoneId,
      productionRegion: 'eu-west-1',
    };
    const configs = environmentsFromContext((key) => context[key], {});
    expect(configs.map((config) => [config.name, config.signInEmail])).toEqual([
      ['staging', undefined],
      ['production', { fromEmail: 'no-reply@animalstore.example' }],
    ]);
    const production = environmentConfigs({}).production;
    expect(() =>
      validateEnvironmentConfig({
        ...production,
        signInEmail: { fromEmail: 'no-reply@animalstore.example' },
      }),
    ).toThrow(/signInEmail is set but this environment has no console sign-in/);
  });
});
