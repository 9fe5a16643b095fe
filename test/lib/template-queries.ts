import type { Template } from 'aws-cdk-lib/assertions';

/** A resource of a synthesized template, loosely typed: tests check the values themselves. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

/** An IAM policy statement as synthesized. */
export interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Condition?: Record<string, unknown>;
}

interface TemplateJson {
  readonly Resources: Record<string, CfnResource>;
  readonly Outputs: Record<string, { Value: unknown; Description?: string }>;
  readonly Parameters?: Record<string, { Type: string; Default?: string }>;
}

/** The template as plain JSON with typed top-level sections. */
export function templateJson(template: Template): TemplateJson {
  return template.toJSON() as TemplateJson;
}

/** Logical id → resource, for every resource of a type. */
export function resourcesOfType(template: Template, type: string): Record<string, CfnResource> {
  return Object.fromEntries(
    Object.entries(templateJson(template).Resources).filter(([, r]) => r.Type === type),
  );
}

/** The resource with a logical id; throws when it does not exist. */
export function resource(template: Template, logicalId: string): CfnResource {
  const found = templateJson(template).Resources[logicalId];
  if (!found) throw new Error(`No resource ${logicalId} in the template`);
  return found;
}

/** Logical id that a `{ Ref }` or `{ Fn::GetAtt: [id, attr] }` points to. */
export function referencedId(value: unknown): string {
  const ref = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  const id = ref.Ref ?? ref['Fn::GetAtt']?.[0];
  if (!id) throw new Error(`Not a reference: ${JSON.stringify(value)}`);
  return id;
}

/**
 * Logical id of the log group a destination ARN names. The ARN is built from the group's name,
 * without the `:*` of its Arn attribute, which API Gateway drops (so drift detection stays quiet).
 */
export function logGroupIdOfArn(value: unknown): string {
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  const parts = join?.[1] ?? [];
  const expected = [
    'arn:',
    { Ref: 'AWS::Partition' },
    ':logs:',
    { Ref: 'AWS::Region' },
    ':',
    { Ref: 'AWS::AccountId' },
    ':log-group:',
  ];
  if (join?.[0] !== '' || JSON.stringify(parts.slice(0, -1)) !== JSON.stringify(expected)) {
    throw new Error(`Not a log group ARN built from its name: ${JSON.stringify(value)}`);
  }
  return referencedId(parts.at(-1));
}

/** Logical id of the table whose name an output carries (`PetsTableName`, `ApiKeysTableName`). */
export function tableIdFromOutput(template: Template, outputName: string): string {
  const output = templateJson(template).Outputs[outputName];
  if (!output) throw new Error(`No output ${outputName}`);
  return referencedId(output.Value);
}

/** Full path of an API Gateway resource, e.g. `/v1/pets/{petId}`, from its PathPart chain. */
export function resourcePath(template: Template, resourceId: unknown): string {
  const parts: string[] = [];
  let current: unknown = resourceId;
  while (current && typeof current === 'object' && 'Ref' in current) {
    const node = resource(template, referencedId(current));
    parts.unshift(String(node.Properties.PathPart));
    current = node.Properties.ParentId;
  }
  return `/${parts.join('/')}`;
}

/** Every API method with its full resource path. */
export function apiMethods(
  template: Template,
): { id: string; path: string; props: Record<string, unknown> }[] {
  return Object.entries(resourcesOfType(template, 'AWS::ApiGateway::Method')).map(([id, method]) => ({
    id,
    path: resourcePath(template, method.Properties.ResourceId),
    props: method.Properties,
  }));
}

/** Logical id of the function a Lambda proxy method or an authorizer invokes, from its URI. */
export function invokedFunctionId(uri: unknown): string {
  const found = JSON.stringify(uri).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/);
  if (!found?.[1]) throw new Error(`No function in URI ${JSON.stringify(uri)}`);
  return found[1];
}

/** Logical id of the function behind an operation, found through its method's OperationName. */
export function operationFunctionId(template: Template, operationId: string): string {
  const method = apiMethods(template).find((m) => m.props.OperationName === operationId);
  if (!method) throw new Error(`No method for operation ${operationId}`);
  return invokedFunctionId((method.props.Integration as { Uri: unknown }).Uri);
}

/** Logical id of the authorizer's function. */
export function authorizerFunctionId(template: Template): string {
  const authorizers = Object.values(resourcesOfType(template, 'AWS::ApiGateway::Authorizer'));
  if (authorizers.length !== 1) throw new Error(`Expected one authorizer, found ${authorizers.length}`);
  return invokedFunctionId(authorizers[0]?.Properties.AuthorizerUri);
}

/** Logical id of a function's execution role. */
export function roleIdOfFunction(template: Template, functionId: string): string {
  return referencedId(resource(template, functionId).Properties.Role);
}

/** Every statement of every policy attached to a function's role. */
export function statementsOfFunction(template: Template, functionId: string): Statement[] {
  const roleId = roleIdOfFunction(template, functionId);
  return Object.values(resourcesOfType(template, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as unknown[]).some((role) => referencedId(role) === roleId))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** A statement's actions as a list, whether synthesized as a string or an array. */
export function actionsOf(statement: Statement): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

/** A function's environment variables. */
export function environmentOf(template: Template, functionId: string): Record<string, unknown> {
  const environment = resource(template, functionId).Properties.Environment as
    { Variables: Record<string, unknown> } | undefined;
  return environment?.Variables ?? {};
}

/** A CloudFront ARN as an environment-agnostic stack writes it: `arn:<partition>:cloudfront::<account>:<resourcePath>`. */
export function cloudFrontArn(resourcePath: string): unknown {
  return {
    'Fn::Join': [
      '',
      ['arn:', { Ref: 'AWS::Partition' }, ':cloudfront::', { Ref: 'AWS::AccountId' }, `:${resourcePath}`],
    ],
  };
}
