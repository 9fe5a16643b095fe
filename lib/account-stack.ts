import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ApiGatewayAccount } from './constructs/api-gateway-account';

/** Name of the stack that holds the account-level API Gateway settings. */
export const ACCOUNT_STACK_NAME = 'AnimalStore-account';

/**
 * The account-level settings the environments share: API Gateway's CloudWatch role, an
 * account-and-region singleton that the staging and production stacks would otherwise
 * fight over (each overwriting the other's, and deleting it with its stack). Every
 * environment stack depends on this one, so `cdk deploy AnimalStore-staging` deploys it
 * first; `--exclusively` skips it where the role is managed elsewhere.
 */
export class AccountStack extends Stack {
  public readonly apiGateway: ApiGatewayAccount;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, {
      description: 'Animal Store Service: account-level API Gateway settings (CloudWatch logging role)',
      stackName: ACCOUNT_STACK_NAME,
      ...props,
    });
    this.apiGateway = new ApiGatewayAccount(this, 'ApiGateway');
  }
}
