import { environmentsFromContext } from '../../../lib/config/environments';
import {
  DEFAULT_SELF_SERVICE,
  selfServiceFromContext,
  selfServiceVariables,
} from '../../../lib/config/self-service';

/** The self-service setting from `-c selfService` and `-c selfServiceProjectCap` (issue 27). */

describe('selfServiceFromContext', () => {
  test('unset: on, with the cap of 2,000', () => {
    expect(selfServiceFromContext(undefined, undefined)).toEqual({ enabled: true, projectCap: 2_000 });
    expect(DEFAULT_SELF_SERVICE).toEqual({ enabled: true, projectCap: 2_000 });
  });

  test.each([
    ['off', undefined, { enabled: false, projectCap: 2_000 }],
    [false, undefined, { enabled: false, projectCap: 2_000 }],
    ['false', undefined, { enabled: false, projectCap: 2_000 }],
    ['on', '500', { enabled: true, projectCap: 500 }],
    [true, 0, { enabled: true, projectCap: 0 }],
  ])('selfService=%p, selfServiceProjectCap=%p', (enabled, cap, settings) => {
    expect(selfServiceFromContext(enabled, cap)).toEqual(settings);
  });

  test.each([
    [
      'maybe',
      undefined,
      /Context value "selfService" is "maybe": give -c selfService=on or -c selfService=off/,
    ],
    ['on', '10001', /Context value "selfServiceProjectCap" is "10001": give a whole number from 0 to 10000/],
    [undefined, 'lots', /Context value "selfServiceProjectCap" is "lots"/],
    [undefined, 2.5, /Context value "selfServiceProjectCap" is 2.5/],
  ])(
    'refuses selfService=%p, selfServiceProjectCap=%p, naming the key and the fix',
    (enabled, cap, message) => {
      expect(() => selfServiceFromContext(enabled, cap)).toThrow(message);
    },
  );
});

test('the function is told the setting in the variables local mode reads; off, no cap', () => {
  expect(selfServiceVariables({ enabled: true, projectCap: 2_000 })).toEqual({
    SELF_SERVICE_PROJECTS: 'on',
    SELF_SERVICE_PROJECT_CAP: '2000',
  });
  expect(selfServiceVariables({ enabled: false, projectCap: 2_000 })).toEqual({
    SELF_SERVICE_PROJECTS: 'off',
  });
});

test('every selected environment carries the setting from the context', () => {
  const context: Record<string, unknown> = { selfService: 'off', selfServiceProjectCap: '100' };
  for (const config of environmentsFromContext((key) => context[key], {}))
    expect(config.selfService).toEqual({ enabled: false, projectCap: 100 });
});
