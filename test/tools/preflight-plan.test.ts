import { planDeploy } from '../../tools/preflight-plan';

/** The preflight's plan comes from the app itself: a synth with the -c values a deploy takes. */

/**
 * Without CDK's built-in CloudFormation validation (CDK_VALIDATION=false, which the App reads):
 * it starts a WebAssembly engine (about 5 s of CPU) and checks each template (1 to 2 s each),
 * and the plan reads no finding of it. The same stacks are validated once per run by the
 * synthesis the nag and IAM tests share and by the offline `cdk synth` test.
 */
const validationBefore = process.env.CDK_VALIDATION;
beforeAll(() => {
  process.env.CDK_VALIDATION = 'false';
});
afterAll(() => {
  if (validationBefore === undefined) delete process.env.CDK_VALIDATION;
  else process.env.CDK_VALIDATION = validationBefore;
});

const PLATFORM = {
  productionRegion: 'eu-west-1',
  platformDomain: 'animalstore.example',
  platformHostedZoneId: 'Z0123456789PLATFORM',
};

describe('planDeploy', () => {
  it("production with the edge and a reservation: each stack in its region, and what production's functions reserve", () => {
    const plan = planDeploy(
      'production',
      { ...PLATFORM, productionReservedConcurrency: '10' },
      { account: '123456789012', region: 'eu-west-1' },
    );
    expect(plan.stacks.map(({ name, region }) => [name, region])).toEqual([
      ['AnimalStore-account', 'eu-west-1'],
      ['AnimalStore-edge', 'us-east-1'],
      ['AnimalStore-production', 'eu-west-1'],
    ]);
    // The catch-all's 10 and the stale-tenant sweep's 1.
    expect(plan.stacks.map((stack) => stack.reservedConcurrency)).toEqual([0, 0, 11]);
    // The modern synthesizer's templates need version 6 at least (CheckBootstrapVersion).
    for (const stack of plan.stacks) expect(stack.bootstrapVersion).toBeGreaterThanOrEqual(6);
    expect(plan).toEqual(
      expect.objectContaining({
        region: 'eu-west-1',
        edge: true,
        platformAddress: { domain: 'animalstore.example', hostedZoneId: 'Z0123456789PLATFORM' },
        reservedConcurrencyKey: 'productionReservedConcurrency',
        reservedConcurrency: 10,
      }),
    );
  }, 180_000);

  it("a deploy to another region than production's is refused with the app's own message", () => {
    expect(() => planDeploy('production', PLATFORM, { region: 'us-east-1' })).toThrow(
      /region is eu-west-1 but this deploy targets us-east-1 .*set AWS_REGION=eu-west-1/,
    );
  });

  it('a bad context value is refused with its fix', () => {
    expect(() =>
      planDeploy('staging', { stagingReservedConcurrency: 'ten' }, { region: 'eu-west-1' }),
    ).toThrow(/Context value "stagingReservedConcurrency" is "ten": give a whole number of at least 1/);
  });
});
