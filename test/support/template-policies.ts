import { EDGE_PARAMETERS } from '../../lib/edge-stack';

/**
 * The IAM policies of synthesized templates, with CloudFormation's intrinsic functions resolved to
 * sample values of the right shape (an ARN stays an ARN of its resource type), so that actions,
 * ARNs and condition keys can be checked against the Service Authorization Reference and
 * policies evaluated by a simulator.
 */

/** The account the samples use. */
export const SAMPLE_ACCOUNT = '123456789012';

/** A CloudFormation template, as far as these checks read it. */
export interface TemplateJson {
  readonly Resources: Record<
    string,
    { readonly Type: string; readonly Properties?: Record<string, unknown> }
  >;
  readonly Parameters?: Record<string, { readonly Type: string; readonly Default?: string }>;
}

/** A stack's template and the region it deploys to. */
export interface StackTemplate {
  readonly stack: string;
  readonly region: string;
  readonly template: TemplateJson;
}

/** What the edge stack hands over in SSM parameters, as the environments' stacks read them at deploy. */
const SSM_SAMPLES: Readonly<Record<string, (region: string) => string>> = {
  [EDGE_PARAMETERS.distributionId]: () => 'E2EDGEDISTRIB1',
  [EDGE_PARAMETERS.connectionGroupId]: () => 'cg_2edgegroup',
  [EDGE_PARAMETERS.originSecretArn]: (region) =>
    `arn:aws:secretsmanager:${region}:${SAMPLE_ACCOUNT}:secret:animal-store/edge/origin-AbCdEf`,
};

/** The name (`Ref`) of a resource of the template: its logical id, shaped as its type's names are. */
function nameOf(type: string, id: string, region: string): string {
  switch (type) {
    case 'AWS::S3::Bucket':
      return id.toLowerCase();
    case 'AWS::SNS::Topic':
      return `arn:aws:sns:${region}:${SAMPLE_ACCOUNT}:${id}`;
    case 'AWS::SecretsManager::Secret':
      return `arn:aws:secretsmanager:${region}:${SAMPLE_ACCOUNT}:secret:${id}-AbCdEf`;
    case 'AWS::CloudFront::Distribution':
      return `E${id.slice(0, 12).toUpperCase()}`;
    default:
      return id;
  }
}

/** A resource's `Fn::GetAtt` attribute. */
function attributeOf(type: string, id: string, attribute: string, region: string): string {
  const name = nameOf(type, id, region);
  const arns: Record<string, string> = {
    'AWS::DynamoDB::Table': `arn:aws:dynamodb:${region}:${SAMPLE_ACCOUNT}:table/${name}`,
    'AWS::Logs::LogGroup': `arn:aws:logs:${region}:${SAMPLE_ACCOUNT}:log-group:${name}:*`,
    'AWS::S3::Bucket': `arn:aws:s3:::${name}`,
    'AWS::Lambda::Function': `arn:aws:lambda:${region}:${SAMPLE_ACCOUNT}:function:${name}`,
    'AWS::IAM::Role': `arn:aws:iam::${SAMPLE_ACCOUNT}:role/${name}`,
    'AWS::Events::Rule': `arn:aws:events:${region}:${SAMPLE_ACCOUNT}:rule/${name}`,
  };
  if (attribute === 'Arn' && arns[type]) return arns[type];
  if (attribute === 'Id' && type === 'AWS::CloudFront::Distribution') return name;
  throw new Error(
    `No sample of ${type}'s ${attribute} (${id}): add one to test/support/template-policies.ts`,
  );
}

/** `value` with every intrinsic function resolved to a sample of the right shape. */
export function resolveIntrinsics(
  value: unknown,
  { template, region }: Omit<StackTemplate, 'stack'>,
): unknown {
  const resolve = (inner: unknown): unknown => resolveIntrinsics(inner, { template, region });
  const text = (inner: unknown): string => String(resolve(inner));
  if (Array.isArray(value)) return value.map(resolve);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  const [key, argument] = entries[0] ?? [];
  if (entries.length !== 1 || (!key?.startsWith('Fn::') && key !== 'Ref')) {
    return Object.fromEntries(entries.map(([name, inner]) => [name, resolve(inner)]));
  }
  const reference = (name: string): string => {
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::Region': region,
      'AWS::AccountId': SAMPLE_ACCOUNT,
      'AWS::URLSuffix': 'amazonaws.com',
    };
    if (pseudo[name]) return pseudo[name];
    const parameter = template.Parameters?.[name];
    if (parameter) {
      const sample = parameter.Default === undefined ? undefined : SSM_SAMPLES[parameter.Default];
      if (!sample) throw new Error(`No sample of parameter ${name} (${parameter.Default ?? 'no default'})`);
      return sample(region);
    }
    const resource = template.Resources[name];
    if (!resource) throw new Error(`Ref to ${name}, which the template lacks`);
    return nameOf(resource.Type, name, region);
  };
  switch (key) {
    case 'Ref':
      return reference(String(argument));
    case 'Fn::GetAtt': {
      const [id = '', attribute = ''] = Array.isArray(argument)
        ? argument.map(String)
        : String(argument).split('.');
      const resource = template.Resources[id];
      if (!resource) throw new Error(`Fn::GetAtt of ${id}, which the template lacks`);
      return attributeOf(resource.Type, id, attribute, region);
    }
    case 'Fn::Join': {
      const [separator, parts] = argument as [string, unknown[]];
      return parts.map(text).join(separator);
    }
    case 'Fn::Sub':
      return String(Array.isArray(argument) ? argument[0] : argument).replace(
        /\$\{([^}]+)\}/g,
        (_, name: string) => (name.includes('.') ? text({ 'Fn::GetAtt': name }) : reference(name)),
      );
    case 'Fn::Select': {
      const [index, list] = argument as [number, unknown];
      return (resolve(list) as unknown[])[Number(index)];
    }
    case 'Fn::Split': {
      const [separator, source] = argument as [string, unknown];
      return text(source).split(separator);
    }
    default:
      throw new Error(`No resolution of ${key}: add it to test/support/template-policies.ts`);
  }
}

/** One IAM policy document of a template, resolved. */
export interface FoundPolicy {
  /** `stack/logical id/property path`, to name it in a finding. */
  readonly where: string;
  /** The resource's logical id and type. */
  readonly resource: string;
  readonly resourceType: string;
  /** The roles it is attached to (identity policies), by logical id. */
  readonly roles: readonly string[];
  readonly document: PolicyDocument;
}

/** An IAM policy document. */
export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: readonly PolicyStatementJson[];
}

/** One statement of a policy document. */
export interface PolicyStatementJson {
  readonly Sid?: string;
  readonly Effect: 'Allow' | 'Deny';
  readonly Action?: string | readonly string[];
  readonly NotAction?: string | readonly string[];
  readonly Resource?: string | readonly string[];
  readonly NotResource?: string | readonly string[];
  readonly Principal?: unknown;
  readonly Condition?: Record<string, Record<string, unknown>>;
}

const isPolicyDocument = (value: unknown): value is PolicyDocument =>
  typeof value === 'object' && value !== null && Array.isArray((value as { Statement?: unknown }).Statement);

/**
 * Every policy document of a template, wherever a resource's properties hold one (a role's inline
 * policies and trust policy, a policy, a bucket, topic or key policy…), and each
 * `AWS::Lambda::Permission` as a one-statement document of its action.
 */
export function policiesOf(stackTemplate: StackTemplate): FoundPolicy[] {
  const { stack, template } = stackTemplate;
  const found: FoundPolicy[] = [];
  for (const [id, resource] of Object.entries(template.Resources)) {
    const properties = resource.Properties ?? {};
    const roles = (
      (properties.Roles as unknown[] | undefined)?.map((role) => (role as { Ref?: string }).Ref ?? '') ?? []
    ).concat(resource.Type === 'AWS::IAM::Role' ? [id] : []);
    const visit = (value: unknown, where: string): void => {
      if (isPolicyDocument(value)) {
        found.push({
          where: `${stack}/${id}/${where}`,
          resource: id,
          resourceType: resource.Type,
          // A role's trust policy is not an identity policy of it.
          roles: where === 'AssumeRolePolicyDocument' ? [] : roles,
          document: resolveIntrinsics(value, stackTemplate) as PolicyDocument,
        });
      } else if (Array.isArray(value)) {
        value.forEach((inner, index) => visit(inner, `${where}/${index}`));
      } else if (value !== null && typeof value === 'object') {
        for (const [name, inner] of Object.entries(value)) visit(inner, where ? `${where}/${name}` : name);
      }
    };
    visit(properties, '');
    if (resource.Type === 'AWS::Lambda::Permission') {
      found.push({
        where: `${stack}/${id}/Action`,
        resource: id,
        resourceType: resource.Type,
        roles: [],
        document: {
          Statement: [
            {
              Effect: 'Allow',
              Action: String(properties.Action),
              Resource: '*',
              Principal: properties.Principal,
            },
          ],
        },
      });
    }
  }
  return found;
}

/** A value of `Action`, `Resource`… as a list. */
export const listOf = (value: string | readonly string[] | undefined): string[] =>
  value === undefined ? [] : typeof value === 'string' ? [value] : [...value];
