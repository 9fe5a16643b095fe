import type { ArnComponents, Stack } from 'aws-cdk-lib';
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference';

/**
 * A value as cdk-nag names it in a finding's id (`AwsSolutions-IAM5[Resource::…]`): references
 * as `<Logical.Attr>`, pseudo parameters as `<AWS::…>`, known values as themselves. An
 * acknowledgement must name exactly that, so it is derived here, never typed by hand.
 */
export function nagName(stack: Stack, value: string): string {
  return flattenCfnReference(stack.resolve(value));
}

/** The ARN `stack.formatArn(components)` makes, as cdk-nag names it. */
export function nagArn(stack: Stack, components: ArnComponents): string {
  return nagName(stack, stack.formatArn(components));
}
