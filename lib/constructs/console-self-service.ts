import { type ArnComponents, ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import type { IUsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { SelfServiceSettings } from '../../lambda/core/self-service-settings';
import { RUNTIME_ENV } from '../../lambda/shared/runtime-env';
import { selfServiceVariables } from '../config/self-service';
import type { ApiFunction } from './api-function';
import type { DataTables } from './data-tables';
import { nagArn } from './nag-names';

/** The self-service start of the console function (issue 27): its setting, and where its keys go. */
export interface ConsoleSelfServiceProps {
  readonly settings: SelfServiceSettings;
  /** The Free plan's usage plan: the only one a self-service project's API Gateway key joins. */
  readonly usagePlan: IUsagePlan;
}

/**
 * The API Gateway management actions of the self-service start, exactly those
 * lambda/store/api-gateway-keys.ts sends from the console function, by the resource each one
 * takes (API Gateway's IAM actions are HTTP methods on resource paths): CreateApiKey is a POST on
 * `/apikeys`, CreateUsagePlanKey a POST on `/usageplans/{id}/keys`, DeleteApiKey (the undo of a
 * failed create) a DELETE on `/apikeys/{id}`; GetUsagePlans, which finds the Free plan's usage
 * plan by name, a GET on `/usageplans`. No key is read.
 */
export const SELF_SERVICE_GATEWAY_ACTIONS = {
  find: 'apigateway:GET',
  create: 'apigateway:POST',
  undo: 'apigateway:DELETE',
} as const;

/** The account's usage plans in the stack's region, listed to find the Free plan's. */
const USAGE_PLANS: ArnComponents = { service: 'apigateway', account: '', resource: '/usageplans' };

/** The account's API keys in the stack's region, where a new one is created. */
const API_KEYS: ArnComponents = { service: 'apigateway', account: '', resource: '/apikeys' };

/** Any API key of the account in the region: a new key's id is API Gateway's, known only at run time. */
const ANY_API_KEY: ArnComponents = {
  ...API_KEYS,
  resourceName: '*',
  arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
};

/**
 * Turns the console function's self-service start on or off. On: its setting in the variables
 * local mode reads, the stack's name (which names its usage plans and project keys), and the rights project creation needs beyond what the console already has: the projects table's
 * conditional PutItem (a new project) and DeleteItem (taking back one whose owner could not be
 * added), and the API Gateway actions above. The members, keys and rate-limit tables (the caps'
 * counters are items there) the console writes already. Off: the function is told so, and gets
 * nothing more.
 */
export class ConsoleSelfService extends Construct {
  constructor(
    scope: Construct,
    id: string,
    fn: ApiFunction,
    tables: Pick<DataTables, 'projects'>,
    props: ConsoleSelfServiceProps | undefined,
  ) {
    super(scope, id);
    const settings = props?.settings;
    for (const [name, value] of Object.entries(
      selfServiceVariables(settings ?? { enabled: false, projectCap: 0 }),
    ))
      fn.addEnvironment(name, value);
    if (!props || !settings?.enabled) return;
    const stack = Stack.of(this);
    fn.addEnvironment(RUNTIME_ENV.gatewayStackName, stack.stackName);
    const policy = new Policy(this, 'Policy', {
      roles: [fn.role!],
      statements: [
        // A new project, stored by a conditional put; deleted again when its owner cannot be added.
        new PolicyStatement({
          actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'],
          resources: [tables.projects.tableArn],
        }),
        // The Free plan's usage plan, found by name: its id cannot be in the function's environment,
        // since the usage plan depends on the stage, the stage on the methods, they on the function.
        new PolicyStatement({
          actions: [SELF_SERVICE_GATEWAY_ACTIONS.find],
          resources: [stack.formatArn(USAGE_PLANS)],
        }),
        // Its API Gateway key, made in the account's keys and added to the Free plan's usage plan only.
        new PolicyStatement({
          actions: [SELF_SERVICE_GATEWAY_ACTIONS.create],
          resources: [
            stack.formatArn(API_KEYS),
            stack.formatArn({
              service: 'apigateway',
              account: '',
              resource: '/usageplans',
              resourceName: `${props.usagePlan.usagePlanId}/keys`,
              arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
            }),
          ],
        }),
        // ...and deleted again when it cannot join the usage plan or the project cannot be stored.
        new PolicyStatement({
          actions: [SELF_SERVICE_GATEWAY_ACTIONS.undo],
          resources: [stack.formatArn(ANY_API_KEY)],
        }),
      ],
    });
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagArn(stack, ANY_API_KEY)}]`,
      reason:
        "A new project's API Gateway key gets its id from API Gateway at run time, so no ARN is known at deploy; " +
        'only apigateway:DELETE, on API keys alone, and the function deletes only a key it created in the same ' +
        'request (the undo of a failed create: it lists no keys and knows no other ids).',
    });
  }
}
