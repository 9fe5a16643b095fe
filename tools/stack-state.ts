import type { DeployedStack } from './preflight-aws';

/**
 * CloudFormation's stack states as a deploy meets them: which ones it can update, and for the
 * others the command that gets the stack there (CloudFormation User Guide, "Stack status codes").
 */

/**
 * What is wrong with a stack's state for a deploy, with the fix; undefined when a deploy can
 * update it (every `*_COMPLETE` but ROLLBACK_COMPLETE).
 */
export function stackStateProblem(
  name: string,
  region: string,
  stack: DeployedStack,
): { summary: string; fix: string } | undefined {
  const { status } = stack;
  const where = `--stack-name ${name} --region ${region}`;
  const because = stack.statusReason ? ` (${stack.statusReason})` : '';
  if (status === 'ROLLBACK_COMPLETE') {
    return {
      summary: `${name} is ROLLBACK_COMPLETE: its first deploy failed${because}, and CloudFormation cannot update it`,
      fix: `delete it (aws cloudformation delete-stack ${where}), then deploy again`,
    };
  }
  if (status === 'REVIEW_IN_PROGRESS') {
    return {
      summary: `${name} is REVIEW_IN_PROGRESS: a change set created it and was never executed`,
      fix: `execute or delete the change set (aws cloudformation list-change-sets ${where}), or delete the stack`,
    };
  }
  if (status.endsWith('_IN_PROGRESS')) {
    return {
      summary: `${name} is ${status}: an operation on it is running`,
      fix: `wait for it to end (aws cloudformation describe-stacks ${where}), then run the preflight again`,
    };
  }
  if (status === 'UPDATE_ROLLBACK_FAILED') {
    return {
      summary: `${name} is UPDATE_ROLLBACK_FAILED${because}`,
      fix: `aws cloudformation continue-update-rollback ${where} (with --resources-to-skip for a resource changed by hand)`,
    };
  }
  if (status === 'UPDATE_FAILED') {
    return {
      summary: `${name} is UPDATE_FAILED: an update failed with rollback turned off${because}`,
      fix: `aws cloudformation rollback-stack ${where}, or fix the cause and deploy again`,
    };
  }
  if (status.endsWith('_FAILED')) {
    return {
      summary: `${name} is ${status}${because}`,
      fix: `delete it (aws cloudformation delete-stack ${where}, with --retain-resources for what cannot be deleted), then deploy again`,
    };
  }
  return undefined;
}
