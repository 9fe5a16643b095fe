import { Template } from 'aws-cdk-lib/assertions';
import { environmentsFromContext } from '../../../lib/config/environments';
import { EDGE_STACK_NAME, EdgeStack } from '../../../lib/edge-stack';
import { runTs } from '../../support/processes';
import { TEST_PLATFORM, testApp } from '../../support/synth';

const PLATFORM_CONTEXT = {
  platformDomain: TEST_PLATFORM.domain,
  platformHostedZoneId: TEST_PLATFORM.hostedZoneId,
};
const context = (values: Record<string, string>) => (key: string) => values[key];

/** What the CDK CLI gives the app when neither AWS_REGION nor the profile names a region. */
const CLI_WITHOUT_REGION = { CDK_DEFAULT_ACCOUNT: '123456789012', CDK_DEFAULT_REGION: 'us-east-1' };

describe("production's region", () => {
  test("us-east-1, the edge's own region: accepted; the origin secret is not replicated, production reads the secret itself", () => {
    const [, production] = environmentsFromContext(
      context({ ...PLATFORM_CONTEXT, productionRegion: 'us-east-1' }),
      CLI_WITHOUT_REGION,
    );
    expect(production?.region).toBe('us-east-1');
    // The edge stack as the app builds it for that production (lib/animal-store-app.ts).
    const edge = new EdgeStack(testApp(), EDGE_STACK_NAME, {
      platform: TEST_PLATFORM,
      serviceRegion: production?.region ?? '',
    });
    const [secret] = Object.values(Template.fromStack(edge).findResources('AWS::SecretsManager::Secret'));
    // Secrets Manager refuses a replica in the secret's own region (edge-stack.test.ts has the replica elsewhere).
    expect(secret?.Properties).toHaveProperty('GenerateSecretString');
    expect(secret?.Properties).not.toHaveProperty('ReplicaRegions');
    expect(edge.resolve(edge.originSecret.replicaArn)).toEqual(
      edge.resolve(edge.originSecret.secret.secretArn),
    );
  });

  test('a deploy without AWS_REGION (the CLI falls back to us-east-1) is refused on one line that says what to set', () => {
    expect(() =>
      environmentsFromContext(
        context({ ...PLATFORM_CONTEXT, productionRegion: 'eu-west-1' }),
        CLI_WITHOUT_REGION,
      ),
    ).toThrow(
      /^Invalid configuration of environment "production" \(lib\/config\/environments\.ts\): region is eu-west-1 but this deploy targets us-east-1 \(CDK_DEFAULT_REGION: the CDK CLI takes AWS_REGION, else your AWS profile's region, else us-east-1\): set AWS_REGION=eu-west-1 for the deploy, e\.g\. AWS_REGION=eu-west-1 npx cdk deploy --all -c productionRegion=eu-west-1 …$/,
    );
  });
});

/**
 * The app as the CDK CLI runs it (`node --import tsx bin/animal-store.ts`, context in
 * CDK_CONTEXT_JSON): a configuration error is a typo to correct, printed as its message alone.
 */
describe('bin/animal-store.ts with a bad configuration', () => {
  async function runApp(contextValues: Record<string, string>) {
    return runTs('bin/animal-store.ts', [], {
      CDK_CONTEXT_JSON: JSON.stringify(contextValues),
      ...CLI_WITHOUT_REGION,
    });
  }

  test.each([
    [
      'production region without AWS_REGION',
      { ...PLATFORM_CONTEXT, productionRegion: 'eu-west-1' },
      /set AWS_REGION=eu-west-1 for the deploy/,
    ],
    ['a malformed production region', { productionRegion: 'Europe' }, /"productionRegion" is "Europe"/],
    [
      'a reserved concurrency of 0',
      { productionReservedConcurrency: '0' },
      /"productionReservedConcurrency" is "0"/,
    ],
  ])(
    '%s: exit 1, one line, no stack trace',
    async (_what, values, message) => {
      const result = await runApp(values);
      expect(result.code).toBe(1);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at |Error:/);
      expect(result.stdout).toBe('');
    },
    60_000,
  );
});
