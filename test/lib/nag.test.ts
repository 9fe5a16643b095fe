import { EDGE_STACK_NAME } from '../../lib/edge-stack';
import { Stack } from 'aws-cdk-lib';
import { ACCOUNT_STACK_NAME } from '../../lib/account-stack';
import { NAG_ALARM_EMAIL_STACK, type NagRun, runNag } from '../support/nag-app';

/**
 * cdk-nag's AWS Solutions checks over everything the app can deploy: the account stack,
 * both environments, production's wildcard project addresses and domains service, the edge
 * stack and the optional alarm topic. A finding is fixed or acknowledged, with its reason, in
 * the construct that creates the resource.
 */
describe('AWS Solutions checks (cdk-nag)', () => {
  let run: NagRun;
  beforeAll(() => {
    run = runNag();
  });

  test('cover every kind of stack the app deploys', () => {
    const stacks = run.app.node.children.filter(Stack.isStack).map((stack) => stack.stackName);
    expect(stacks).toEqual(
      expect.arrayContaining([
        ACCOUNT_STACK_NAME,
        'AnimalStore-staging',
        'AnimalStore-production',
        EDGE_STACK_NAME,
        NAG_ALARM_EMAIL_STACK,
      ]),
    );
    const paths = run.app.node.findAll().map((construct) => construct.node.path);
    expect(paths).toContain('AnimalStore-production/ProjectAddresses/Domain');
    expect(paths).toContain('AnimalStore-production/Console');
    expect(paths).toContain(`${NAG_ALARM_EMAIL_STACK}/Observability/AlarmTopic`);
    expect(paths).toContain(`${EDGE_STACK_NAME}/Distribution`);
  });

  test('leave no finding unacknowledged', () => {
    // On failure, the list names each rule, resource and problem.
    expect(run.findings).toEqual([]);
  });

  test('let synthesis succeed with the checks registered as a validation plugin, as in bin/', () => {
    expect(run.synthError?.message).toBeUndefined();
  });

  test('every acknowledgement names one AWS Solutions rule and gives a reason a reviewer can check', () => {
    expect(run.acknowledgements.length).toBeGreaterThan(0);
    for (const { path, id, reason } of run.acknowledgements) {
      expect({
        path,
        id,
        ruleId: /^AwsSolutions-[A-Z]+\d+(\[.+\])?$/.test(id),
        words: reason.split(/\s+/).length >= 12,
      }).toEqual({ path, id, ruleId: true, words: true });
    }
  });

  test('nothing is acknowledged for a whole stack or the app', () => {
    const stackPaths = new Set(run.app.node.children.map((child) => child.node.path));
    for (const { path } of run.acknowledgements) expect(stackPaths.has(path) || path === '').toBe(false);
  });
});
