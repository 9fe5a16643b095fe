import type { Template } from 'aws-cdk-lib/assertions';
import { CONSOLE_API_PREFIX } from '../../../lambda/api/console-routes';
import { SELF_SERVICE_VARIABLES } from '../../../lambda/core/self-service-settings';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import { productionWithEdge } from '../../support/synth';
import {
  actionsOf,
  apiMethods,
  environmentOf,
  invokedFunctionId,
  resourcesOfType,
  statementsOfFunction,
  tableIdFromOutput,
  templateJson,
} from '../template-queries';
import { STACK_OUTPUTS } from '../../../lib/animal-store-stack';

/**
 * The console function's self-service start in AWS (issue 27), on (the default) and off
 * (`-c selfService=off`): its setting in the variables local mode reads, and exactly the rights
 * project creation needs, the API Gateway ones scoped to the Free plan's usage plan.
 */

const on = productionWithEdge();
const off = productionWithEdge({ selfService: { enabled: false, projectCap: 0 } });

function consoleFunctionOf(template: Template): string {
  const method = apiMethods(template).find((candidate) => candidate.path.startsWith(CONSOLE_API_PREFIX));
  return invokedFunctionId((method?.props.Integration as { Uri: unknown } | undefined)?.Uri ?? {});
}

/** The logical id of the usage plan named `name`. */
function usagePlanId(template: Template, name: string): string {
  const [id] = Object.entries(resourcesOfType(template, 'AWS::ApiGateway::UsagePlan')).find(
    ([, plan]) => plan.Properties.UsagePlanName === name,
  )!;
  return id;
}

/** An ARN as an environment-agnostic stack writes an API Gateway one: `arn:<partition>:apigateway:<region>::<path>`. */
const gatewayArn = (path: string, ...rest: unknown[]) => ({
  'Fn::Join': [
    '',
    ['arn:', { Ref: 'AWS::Partition' }, ':apigateway:', { Ref: 'AWS::Region' }, `::${path}`, ...rest],
  ],
});

const apiGatewayStatements = (template: Template) =>
  statementsOfFunction(template, consoleFunctionOf(template)).filter((statement) =>
    actionsOf(statement).some((action) => action.startsWith('apigateway:')),
  );

/** The actions the console's role has on the projects table itself (not its indexes). */
function onProjectsTable(template: Template): string[] {
  const table = tableIdFromOutput(template, 'ProjectsTableName');
  return statementsOfFunction(template, consoleFunctionOf(template))
    .filter(
      (statement) => JSON.stringify(statement.Resource) === JSON.stringify({ 'Fn::GetAtt': [table, 'Arn'] }),
    )
    .flatMap(actionsOf)
    .sort();
}

describe('self-service on (the default)', () => {
  test('the function reads the setting as local mode does, the cap 2,000, and the stack name (which names the Free usage plan)', () => {
    const environment = environmentOf(on, consoleFunctionOf(on));
    expect(environment).toMatchObject({
      [SELF_SERVICE_VARIABLES.enabled]: 'on',
      [SELF_SERVICE_VARIABLES.cap]: '2000',
      [RUNTIME_ENV.gatewayStackName]: 'AnimalStore-production',
    });
  });

  test("API Gateway: find the usage plans, create a key and add it to the Free plan's usage plan only, delete a key; no key read, no other plan", () => {
    const free = usagePlanId(on, 'AnimalStore-production-free');
    expect(apiGatewayStatements(on)).toEqual([
      { Action: 'apigateway:GET', Effect: 'Allow', Resource: gatewayArn('/usageplans') },
      {
        Action: 'apigateway:POST',
        Effect: 'Allow',
        Resource: [gatewayArn('/apikeys'), gatewayArn('/usageplans/', { Ref: free }, '/keys')],
      },
      { Action: 'apigateway:DELETE', Effect: 'Allow', Resource: gatewayArn('/apikeys/*') },
    ]);
  });

  test('projects: a new one is put, and deleted again when its owner cannot be added', () => {
    expect(onProjectsTable(on)).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
  });
});

test('the stack states the cap for the projects tool (npm run projects -- self-service), or off', () => {
  const output = (template: Template) =>
    (templateJson(template).Outputs as Record<string, { Value: unknown }>)[
      STACK_OUTPUTS.selfServiceProjectCap
    ]?.Value;
  expect([output(on), output(off)]).toEqual(['2000', 'off']);
});

describe('self-service off (-c selfService=off)', () => {
  test('the function is told it is off, and is given no usage plan, stack name or cap', () => {
    const environment = environmentOf(off, consoleFunctionOf(off));
    expect(environment[SELF_SERVICE_VARIABLES.enabled]).toBe('off');
    for (const name of [SELF_SERVICE_VARIABLES.cap, RUNTIME_ENV.gatewayStackName])
      expect(environment).not.toHaveProperty(name);
  });

  test('no API Gateway right, and the projects table only read and its counters updated, as before self-service', () => {
    expect(apiGatewayStatements(off)).toEqual([]);
    expect(onProjectsTable(off)).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
  });

  test('every other right of the role is the same as with self-service on', () => {
    const projects = { 'Fn::GetAtt': [tableIdFromOutput(on, 'ProjectsTableName'), 'Arn'] };
    const selfServiceOnly = (statement: { Action: unknown; Resource?: unknown }) =>
      actionsOf(statement as never).some((action) => action.startsWith('apigateway:')) ||
      (JSON.stringify(statement.Resource) === JSON.stringify(projects) &&
        JSON.stringify(actionsOf(statement as never).sort()) ===
          JSON.stringify(['dynamodb:DeleteItem', 'dynamodb:PutItem']));
    const onStatements = statementsOfFunction(on, consoleFunctionOf(on));
    expect(onStatements.filter(selfServiceOnly)).toHaveLength(4);
    expect(statementsOfFunction(off, consoleFunctionOf(off))).toEqual(
      onStatements.filter((statement) => !selfServiceOnly(statement)),
    );
  });
});
