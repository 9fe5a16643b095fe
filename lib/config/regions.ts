/**
 * Regions in the configuration: production's stated region (`-c productionRegion=…`) and the
 * region a deploy targets (CDK_DEFAULT_REGION, which the CDK CLI sets).
 */

/** An AWS region name, e.g. `eu-west-1`, `us-gov-west-1`. */
export const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

/** What an environment's region check reads of its configuration. */
export interface RegionFacts {
  /** The stated region, e.g. production's `-c productionRegion=…`. */
  readonly region?: string;
  /** The region the deploy targets (CDK_DEFAULT_REGION). */
  readonly env?: { readonly region?: string };
}

/**
 * The problems of an environment's stated region, each on one line with its fix; empty when
 * valid. The CDK CLI sets CDK_DEFAULT_REGION from AWS_REGION, else the profile's region, and
 * falls back to us-east-1 when neither is set: a deploy without AWS_REGION lands there, so the
 * message says to set it, whatever the profile.
 */
export function regionProblems(config: RegionFacts): string[] {
  const { region, env } = config;
  if (region === undefined) return [];
  if (!AWS_REGION.test(region)) {
    return [`region is ${JSON.stringify(region)}: use an AWS region name, e.g. eu-west-1.`];
  }
  if (env?.region !== undefined && env.region !== region) {
    return [
      `region is ${region} but this deploy targets ${env.region} (CDK_DEFAULT_REGION: the CDK CLI takes AWS_REGION, ` +
        `else your AWS profile's region, else us-east-1): set AWS_REGION=${region} for the deploy, ` +
        `e.g. AWS_REGION=${region} npx cdk deploy --all -c productionRegion=${region} …`,
    ];
  }
  return [];
}

/** Production's region given as `-c productionRegion=…`; undefined when unset. */
export function productionRegionFromContext(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !AWS_REGION.test(value)) {
    throw new Error(
      `Context value "productionRegion" is ${JSON.stringify(value)}: give the AWS region of AnimalStore-production, e.g. -c productionRegion=eu-west-1.`,
    );
  }
  return value;
}
