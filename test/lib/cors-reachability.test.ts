import { API_VERSION_PREFIX, catchAllPaths } from '../../lambda/api/routes';
import { synthEnvironment } from '../support/synth';
import { apiMethods, invokedFunctionId, resourcesOfType } from './template-queries';

/**
 * CORS is answered by the service (lambda/api/cors.ts), so nothing in front of it may take
 * OPTIONS, or drop `Origin`, `Access-Control-Request-*` or `Idempotency-Key`: no method of
 * its own for OPTIONS (a MOCK preflight, as `defaultCorsPreflightOptions` makes, would answer
 * without the project's origins), the catch-all's ANY on every route path, no authorizer
 * identity source (a preflight has no key), and no firewall rule on methods or those headers.
 */
const template = synthEnvironment('production');
const methods = apiMethods(template);

describe('the path of a CORS preflight through the stack', () => {
  test('no OPTIONS method anywhere: ANY on each route path, the prefix and the proxy sends it to the catch-all', () => {
    expect(methods.filter((method) => method.props.HttpMethod === 'OPTIONS')).toEqual([]);
    const anyPaths = methods.filter((method) => method.props.HttpMethod === 'ANY');
    expect(anyPaths.map((method) => method.path).sort()).toEqual(
      catchAllPaths()
        .map((path) => `${API_VERSION_PREFIX}${path}`)
        .sort(),
    );
    const targets = new Set(
      anyPaths.map((method) => invokedFunctionId((method.props.Integration as { Uri: unknown }).Uri)),
    );
    expect(targets.size).toBe(1);
  });

  test('the authorizer has no identity source, so a request without a key (every preflight) reaches it', () => {
    for (const authorizer of Object.values(resourcesOfType(template, 'AWS::ApiGateway::Authorizer'))) {
      expect(authorizer.Properties).not.toHaveProperty('IdentitySource');
    }
  });

  test('no firewall rule of our own looks at the method or at a header; managed groups are not scoped down', () => {
    const [acl] = Object.values(resourcesOfType(template, 'AWS::WAFv2::WebACL'));
    const rules = (acl?.Properties.Rules ?? []) as Record<string, unknown>[];
    expect(rules.length).toBeGreaterThan(0);
    const text = JSON.stringify(rules);
    for (const field of [
      '"Method"',
      '"SingleHeader"',
      '"Headers"',
      'ScopeDownStatement',
      'RuleActionOverrides',
    ]) {
      expect(text).not.toContain(field);
    }
  });
});
