import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addAnimalStoreStacks } from '../../lib/animal-store-app';
import { environmentsFromContext } from '../../lib/config/environments';
import { EDGE_STACK_NAME, EdgeStack } from '../../lib/edge-stack';
import { testApp } from '../support/synth';
import { templateJson } from './template-queries';

/**
 * The origin secret's version (`-c originSecretVersion=<VersionId>`): CloudFormation re-reads a
 * `{{resolve:secretsmanager:…}}` reference only when its text changes, so after a rotation the
 * version id in every reference is what makes CloudFront send, and production's WAF match, the
 * new value (doc/domains.md, "Rotating the origin secret").
 */

const PLATFORM_CONTEXT = {
  platformDomain: 'animalstore.example',
  platformHostedZoneId: 'Z0123456789PLATFORM',
  productionRegion: 'eu-west-1',
};
const VERSION = 'a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';
const PRODUCTION = 'AnimalStore-production';

/** The edge and production templates the app builds from these context values. */
function templatesOf(values: Record<string, string>): { edge: Template; production: Template } {
  const app = testApp();
  // Production alone, with the edge that serves it: the tests read no other stack, and staging's
  // would be one more synthesis in each app.
  const context = (key: string): unknown => (key === 'environments' ? 'production' : values[key]);
  addAnimalStoreStacks(app, { environments: environmentsFromContext(context, {}) });
  const stack = (name: string) => {
    const found = app.node.children.filter(Stack.isStack).find((candidate) => candidate.stackName === name);
    if (!found) throw new Error(`No stack ${name}`);
    return Template.fromStack(found);
  };
  return { edge: stack(EDGE_STACK_NAME), production: stack(PRODUCTION) };
}

/** A CloudFormation value as text: each `Fn::Join` joined, any other intrinsic as `<ref>`. */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && 'Fn::Join' in value) {
    const [separator, parts] = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
    return parts.map(text).join(separator);
  }
  return '<ref>';
}

/** Every Secrets Manager dynamic reference in a template, with the type of the resource that holds it. */
function secretReferences(template: Template): { type: string; reference: string }[] {
  const found: { type: string; reference: string }[] = [];
  const visit = (type: string, value: unknown): void => {
    if (Array.isArray(value)) return value.forEach((item) => visit(type, item));
    if (value === null || typeof value !== 'object') {
      if (typeof value === 'string') collect(type, value);
      return;
    }
    if ('Fn::Join' in value) return collect(type, text(value));
    for (const item of Object.values(value)) visit(type, item);
  };
  const collect = (type: string, rendered: string) => {
    for (const [reference] of rendered.matchAll(/\{\{resolve:secretsmanager:[^}]*\}\}/g)) {
      found.push({ type, reference });
    }
  };
  for (const resource of Object.values(templateJson(template).Resources)) {
    visit(resource.Type, resource.Properties);
  }
  return found;
}

describe('the origin secret version', () => {
  describe('given as -c originSecretVersion', () => {
    const { edge, production } = templatesOf({ ...PLATFORM_CONTEXT, originSecretVersion: VERSION });

    test('every reference to the secret names it: both distributions, and both WAF rules that match it', () => {
      const references = [...secretReferences(edge), ...secretReferences(production)];
      expect(references.map(({ type }) => type).sort()).toEqual([
        // The tenant distribution's and the console's origin header.
        'AWS::CloudFront::Distribution',
        'AWS::CloudFront::Distribution',
        // The per-IP rule's scope-down and the per-viewer rule's.
        'AWS::WAFv2::WebACL',
        'AWS::WAFv2::WebACL',
      ]);
      for (const { reference } of references) {
        expect(reference).toBe(`{{resolve:secretsmanager:<ref>:SecretString:::${VERSION}}}`);
      }
    });

    test('a new version changes both templates: the deploys that follow a rotation are not "no changes"', () => {
      const next = templatesOf({
        ...PLATFORM_CONTEXT,
        originSecretVersion: 'f0e1d2c3-b4a5-9687-7869-5a4b3c2d1e0f',
      });
      expect(JSON.stringify(next.edge.toJSON())).not.toBe(JSON.stringify(edge.toJSON()));
      expect(JSON.stringify(next.production.toJSON())).not.toBe(JSON.stringify(production.toJSON()));
    });
  });

  test('without it no reference names a version: AWSCURRENT, as before', () => {
    const { edge, production } = templatesOf(PLATFORM_CONTEXT);
    const references = [...secretReferences(edge), ...secretReferences(production)];
    expect(references).toHaveLength(4);
    for (const { reference } of references) {
      expect(reference).toBe('{{resolve:secretsmanager:<ref>:SecretString:::}}');
    }
  });

  test.each([
    ['too short', 'a1b2c3'],
    ['a colon, which would end the reference', `${VERSION}:AWSCURRENT`],
    ['a staging label', 'AWSCURRENT'],
    ['too long', 'a'.repeat(65)],
  ])('a malformed value (%s) fails synth, naming the value and the fix', (_case, value) => {
    expect(() => templatesOf({ ...PLATFORM_CONTEXT, originSecretVersion: value })).toThrow(
      `Context value "originSecretVersion" is ${JSON.stringify(value)}: use the VersionId that aws secretsmanager put-secret-value printed`,
    );
  });

  test('fails synth where no edge serves production: the value would change nothing', () => {
    const withoutRegion: Record<string, string> = {
      platformDomain: PLATFORM_CONTEXT.platformDomain,
      platformHostedZoneId: PLATFORM_CONTEXT.platformHostedZoneId,
      originSecretVersion: VERSION,
    };
    expect(() => environmentsFromContext((key) => withoutRegion[key], {})).toThrow(
      /originSecretVersion is set but no edge serves this environment/,
    );
  });

  test("is ignored for staging alone, as production's other values are", () => {
    const [staging] = environmentsFromContext(
      (key) => ({ environments: 'staging', originSecretVersion: VERSION })[key],
      {},
    );
    expect(staging).not.toHaveProperty('originSecretVersion');
  });

  test('the edge stack refuses a malformed version given directly', () => {
    expect(
      () =>
        new EdgeStack(testApp(), EDGE_STACK_NAME, {
          platform: { domain: 'animalstore.example', hostedZoneId: 'Z0123456789PLATFORM' },
          serviceRegion: 'eu-west-1',
          originSecretVersion: 'not-a-version',
        }),
    ).toThrow(/origin secret version "not-a-version": use the secret's VersionId/);
  });
});
