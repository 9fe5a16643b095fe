import {
  APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  type CreateApiKeyCommandInput,
  CreateUsagePlanKeyCommand,
  type CreateUsagePlanKeyCommandInput,
  DeleteApiKeyCommand,
  type DeleteApiKeyCommandInput,
  GetApiKeysCommand,
  type GetApiKeysCommandInput,
  GetUsagePlansCommand,
  type GetUsagePlansCommandInput,
  LimitExceededException,
  NotFoundException,
} from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { PLAN_NAMES, type PlanName } from '../../lambda/core/plans';
import { ANONYMOUS_PLAN, PREFLIGHT_PLAN, usagePlanName } from '../../lib/config/usage-plan-names';

/**
 * API Gateway's key and usage-plan state, as the mocked commands change it, for tests of
 * the tools on a deployed stage. Pages hold two items, so every caller must follow
 * `position`.
 */

export const gatewayMock = mockClient(APIGatewayClient);
export const stacksMock = mockClient(CloudFormationClient);

export class FakeGateway {
  readonly apiKeys = new Map<string, { name: string; value: string; enabled: boolean }>();
  /** Usage plan id → ids of the API keys in it. */
  readonly members = new Map<string, Set<string>>();
  readonly planIds = new Map<string, string>();
  /** API keys the account may hold (API Gateway: 10,000 per account and region). */
  quota = Number.POSITIVE_INFINITY;
  private nextId = 1;

  constructor(
    private readonly stackName: string,
    planNames: readonly string[] = FakeGateway.stackPlans(stackName),
  ) {
    for (const name of planNames) {
      const id = `up${this.nextId++}`;
      this.planIds.set(name, id);
      this.members.set(id, new Set());
    }
  }

  /** The usage plans a stack deploys, one per plan and the anonymous one. */
  static stackPlans(stackName: string): string[] {
    return [
      ...PLAN_NAMES.map((plan) => usagePlanName(stackName, plan)),
      usagePlanName(stackName, ANONYMOUS_PLAN),
      usagePlanName(stackName, PREFLIGHT_PLAN),
    ];
  }

  planId(plan: PlanName): string {
    const id = this.planIds.get(usagePlanName(this.stackName, plan));
    if (!id) throw new Error(`no usage plan for ${plan}`);
    return id;
  }

  /** The usage plans (by name) the API key valued `value` is in. */
  plansOfValue(value: string): string[] {
    const apiKeyId = this.idOfValue(value);
    return [...this.planIds]
      .filter(([, id]) => apiKeyId !== undefined && this.members.get(id)?.has(apiKeyId))
      .map(([name]) => name);
  }

  idOfValue(value: string): string | undefined {
    return [...this.apiKeys].find(([, key]) => key.value === value)?.[0];
  }

  /** Answers the mocked commands. */
  install(): void {
    gatewayMock.on(GetUsagePlansCommand).callsFake((input: GetUsagePlansCommandInput) =>
      page(
        [...this.planIds].map(([name, id]) => ({ id, name })),
        input.position,
      ),
    );
    gatewayMock.on(GetApiKeysCommand).callsFake((input: GetApiKeysCommandInput) => {
      const items = [...this.apiKeys]
        .filter(([, key]) => key.name.startsWith(input.nameQuery ?? ''))
        .map(([id, { name, value, enabled }]) => ({
          id,
          name,
          enabled,
          ...(input.includeValues ? { value } : {}),
        }));
      return page(items, input.position);
    });
    gatewayMock.on(CreateApiKeyCommand).callsFake((input: CreateApiKeyCommandInput) => {
      if (this.apiKeys.size >= this.quota) {
        throw new LimitExceededException({ message: 'API Key limit exceeded', $metadata: {} });
      }
      const id = `ak${this.nextId++}`;
      this.apiKeys.set(id, {
        name: input.name ?? '',
        value: input.value ?? '',
        enabled: input.enabled ?? false,
      });
      return { id, name: input.name };
    });
    gatewayMock.on(DeleteApiKeyCommand).callsFake(({ apiKey = '' }: DeleteApiKeyCommandInput) => {
      if (!this.apiKeys.delete(apiKey)) throw notFound();
      for (const members of this.members.values()) members.delete(apiKey);
      return {};
    });
    gatewayMock
      .on(CreateUsagePlanKeyCommand)
      .callsFake(({ usagePlanId = '', keyId = '' }: CreateUsagePlanKeyCommandInput) => {
        const members = this.members.get(usagePlanId);
        if (!members || !this.apiKeys.has(keyId)) throw notFound();
        if (members.has(keyId)) throw new ConflictException({ message: 'already a member', $metadata: {} });
        members.add(keyId);
        return { id: keyId, type: 'API_KEY' };
      });
  }
}

function page<T>(items: T[], position: string | undefined) {
  const start = Number(position ?? 0);
  const next = start + 2;
  return { items: items.slice(start, next), ...(next < items.length ? { position: String(next) } : {}) };
}

function notFound() {
  return new NotFoundException({ message: 'Invalid API Key identifier specified', $metadata: {} });
}

/** The inputs of every call of one command to the mocked API Gateway. */
export function inputsOf<T extends object>(
  command: abstract new (...args: never) => { readonly input: T },
): T[] {
  return gatewayMock.commandCalls(command as never).map((call) => call.args[0].input as T);
}

/** The mocked API Gateway commands in the order they were sent, by name. */
export function gatewayCommandsSent(): string[] {
  return gatewayMock.calls().map((call) => call.args[0].constructor.name);
}

/** Every input sent to API Gateway and CloudFormation, as text. */
export function everythingSentToAws(): string {
  return JSON.stringify([...gatewayMock.calls(), ...stacksMock.calls()].map((call) => call.args[0].input));
}

/** Makes DescribeStacks of `stackName` answer with these outputs. */
export function stackWithOutputs(stackName: string, outputs: Record<string, string>): void {
  stacksMock.on(DescribeStacksCommand, { StackName: stackName }).resolves({
    Stacks: [
      {
        StackName: stackName,
        CreationTime: new Date(),
        StackStatus: 'UPDATE_COMPLETE',
        Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
      },
    ],
  });
}
