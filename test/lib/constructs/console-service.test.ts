import { Template } from 'aws-cdk-lib/assertions';
import { CONSOLE_API_PREFIX } from '../../../lambda/api/console-routes';
import { ENVIRONMENT_VARIABLE } from '../../../lambda/shared/observability';
import { RUNTIME_ENV } from '../../../lambda/shared/runtime-env';
import {
  API_KEYS_TABLE,
  CONSOLE_SESSIONS_TABLE,
  INVITATIONS_TABLE,
  CUSTOM_DOMAINS_TABLE,
  PERSONAL_TOKENS_TABLE,
} from '../../../lambda/store/table-schema';
import { addAnimalStoreStacks } from '../../../lib/animal-store-app';
import { environmentConfigs } from '../../../lib/config/environments';
import {
  CONSOLE_TIMEOUT,
  EDGE_TENANT_ACTIONS,
  IMPORTED_CERTIFICATE_ACTIONS,
} from '../../../lib/constructs/console-service';
import { CONSOLE_OIDC_ENV } from '../../../lib/constructs/console-identity';
import { EDGE_PARAMETERS, EDGE_STACK_NAME } from '../../../lib/edge-stack';
import {
  edgeOfProductionWithEdge,
  productionWithEdge,
  synthEnvironment,
  TEST_PLATFORM,
  testApp,
} from '../../support/synth';
import {
  actionsOf,
  cloudFrontArn,
  apiMethods,
  authorizerFunctionId,
  environmentOf,
  invokedFunctionId,
  resource,
  referencedId,
  resourcesOfType,
  statementsOfFunction,
  tableIdFromOutput,
  templateJson,
} from '../template-queries';

const PLATFORM = TEST_PLATFORM;

const template = productionWithEdge();
const consoleMethods = apiMethods(template).filter((method) => method.path.startsWith(CONSOLE_API_PREFIX));
const consoleFunctionId = invokedFunctionId(
  (consoleMethods[0]?.props.Integration as { Uri: unknown } | undefined)?.Uri ?? {},
);
const customDomainsTable = tableIdFromOutput(template, 'CustomDomainsTableName');
const projectsTable = tableIdFromOutput(template, 'ProjectsTableName');
const rateLimitsTable = tableIdFromOutput(template, 'RateLimitsTableName');
const apiKeysTable = tableIdFromOutput(template, 'ApiKeysTableName');
/** The sessions table has no output (no tool reads it): found at Data/ConsoleSessions. */
const sessionsTable = Object.keys(resourcesOfType(template, 'AWS::DynamoDB::Table')).find((id) =>
  /^DataConsoleSessions[0-9A-F]{8}$/.test(id),
) as string;
const membersTable = Object.keys(resourcesOfType(template, 'AWS::DynamoDB::Table')).find((id) =>
  id.startsWith('DataProjectMembers'),
) as string;
const invitationsTable = Object.keys(resourcesOfType(template, 'AWS::DynamoDB::Table')).find((id) =>
  /^DataInvitations[0-9A-F]{8}$/.test(id),
) as string;
const tokensTable = Object.keys(resourcesOfType(template, 'AWS::DynamoDB::Table')).find((id) =>
  id.startsWith('DataPersonalTokens'),
) as string;
const tableArn = (tableId: string) => ({ 'Fn::GetAtt': [tableId, 'Arn'] });

/** The template parameter that reads an SSM parameter at deploy, by the parameter's name. */
function ssmParameterId(tpl: Template, name: string): string {
  const found = Object.entries(templateJson(tpl).Parameters ?? {}).find(
    ([, parameter]) => parameter.Type === 'AWS::SSM::Parameter::Value<String>' && parameter.Default === name,
  );
  if (!found) throw new Error(`No SSM parameter ${name}`);
  return found[0];
}

describe('the console route, where the edge serves production', () => {
  test('ANY on /console/api and on its greedy proxy, nowhere else, both to the console function', () => {
    expect(consoleMethods.map((method) => [method.path, method.props.HttpMethod]).sort()).toEqual([
      [CONSOLE_API_PREFIX, 'ANY'],
      [`${CONSOLE_API_PREFIX}/{proxy+}`, 'ANY'],
    ]);
    for (const method of consoleMethods) {
      expect(invokedFunctionId((method.props.Integration as { Uri: unknown }).Uri)).toBe(consoleFunctionId);
    }
  });

  test('no API Gateway authorizer and no API key: the function checks the console token itself', () => {
    for (const method of consoleMethods) {
      expect(method.props).toMatchObject({
        AuthorizationType: 'NONE',
        ApiKeyRequired: false,
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
      expect(method.props.AuthorizerId).toBeUndefined();
    }
  });

  test('the console function is none of the API functions, and runs up to API Gateway 29 s', () => {
    const others = apiMethods(template)
      .filter((method) => !method.path.startsWith(CONSOLE_API_PREFIX))
      .map((method) => invokedFunctionId((method.props.Integration as { Uri: unknown }).Uri));
    expect(others).not.toContain(consoleFunctionId);
    expect(resource(template, consoleFunctionId).Properties.Timeout).toBe(CONSOLE_TIMEOUT.toSeconds());
    expect(CONSOLE_TIMEOUT.toSeconds()).toBeLessThan(29);
  });
});

describe('its environment', () => {
  test('exactly its tables, the platform domain, the console origin, the CNAME target and the edge ids read from SSM at deploy', () => {
    expect(environmentOf(template, consoleFunctionId)).toEqual({
      [ENVIRONMENT_VARIABLE]: 'production',
      [RUNTIME_ENV.platformDomain]: PLATFORM.domain,
      [RUNTIME_ENV.consoleOrigin]: `https://console.${PLATFORM.domain}`,
      // Read by the console function to count sign-ins per viewer through its distribution.
      [RUNTIME_ENV.edgeOriginSecretArn]: {
        Ref: expect.stringMatching(/^SsmParameterValueanimalstoreedgeoriginsecretarn/),
      },
      [RUNTIME_ENV.consoleSessionsTable]: { Ref: sessionsTable },
      [RUNTIME_ENV.projectMembersTable]: { Ref: membersTable },
      [RUNTIME_ENV.invitationsTable]: { Ref: invitationsTable },
      [RUNTIME_ENV.auditLogTable]: { Ref: tableIdFromOutput(template, 'AuditLogTableName') },
      // The invitations' sender: the console emails invitations through SES (issue 27).
      [RUNTIME_ENV.invitationSender]: `invitations@${PLATFORM.domain}`,
      [RUNTIME_ENV.personalTokensTable]: { Ref: tokensTable },
      [RUNTIME_ENV.apiKeysTable]: { Ref: apiKeysTable },
      [RUNTIME_ENV.domainsTarget]: `domains.${PLATFORM.domain}`,
      [RUNTIME_ENV.edgeDistributionId]: { Ref: ssmParameterId(template, EDGE_PARAMETERS.distributionId) },
      [RUNTIME_ENV.edgeConnectionGroupId]: {
        Ref: ssmParameterId(template, EDGE_PARAMETERS.connectionGroupId),
      },
      [RUNTIME_ENV.customDomainsTable]: { Ref: customDomainsTable },
      [RUNTIME_ENV.projectsTable]: { Ref: projectsTable },
      [RUNTIME_ENV.rateLimitsTable]: { Ref: rateLimitsTable },
      // The sign-in's OpenID client (test/lib/console-identity.test.ts).
      [CONSOLE_OIDC_ENV.issuer]: expect.anything(),
      [CONSOLE_OIDC_ENV.clientId]: expect.anything(),
      [CONSOLE_OIDC_ENV.clientSecretArn]: expect.anything(),
      // People's own projects, on by default (test/lib/constructs/console-self-service.test.ts).
      SELF_SERVICE_PROJECTS: 'on',
      SELF_SERVICE_PROJECT_CAP: '2000',
      [RUNTIME_ENV.gatewayStackName]: 'AnimalStore-production',
    });
  });

  test("the CNAME target is the edge stack's: one name for both", () => {
    const edge = edgeOfProductionWithEdge();
    expect(templateJson(edge).Outputs.DomainsTarget?.Value).toBe(
      environmentOf(template, consoleFunctionId)[RUNTIME_ENV.domainsTarget],
    );
  });
});

describe('least privilege', () => {
  const statements = statementsOfFunction(template, consoleFunctionId);
  const granted = statements
    .map((statement) => ({ actions: actionsOf(statement).sort(), resource: statement.Resource }))
    .filter(
      (grant) => !grant.actions.some((action) => action.startsWith('logs:') || action.startsWith('xray:')),
    );

  test("DynamoDB: domains, sessions, a project's keys (never a Scan), projects read (and a target id set once), rate limits counted and read", () => {
    const dynamodb = granted.filter((grant) =>
      grant.actions.every((action) => action.startsWith('dynamodb:')),
    );
    // IAM statements with the same actions are merged: each table is named with its actions.
    const onTable = (table: string) =>
      dynamodb
        .filter((grant) => JSON.stringify(grant.resource).includes(`"${table}"`))
        .filter((grant) => !grant.actions.includes('dynamodb:Query'))
        .flatMap((grant) => grant.actions);
    expect(onTable(customDomainsTable)).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    // ...and a self-service project put, or deleted again (test/lib/constructs/console-self-service.test.ts).
    expect(onTable(projectsTable).sort()).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    expect(onTable(sessionsTable)).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    expect(onTable(apiKeysTable)).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    // Personal access tokens (issue 28): read, made, revoked, touched and withdrawn by key; never a Scan.
    expect(onTable(tokensTable)).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    // BatchGetItem: the usage history's one read of a project's day and hour items (issue 29).
    expect(onTable(rateLimitsTable)).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
    ]);
    expect(dynamodb).toContainEqual({
      actions: ['dynamodb:Query'],
      resource: expect.arrayContaining([
        {
          'Fn::Join': [
            '',
            [tableArn(customDomainsTable), `/index/${CUSTOM_DOMAINS_TABLE.globalIndexes[0]?.indexName}`],
          ],
        },
        {
          'Fn::Join': ['', [tableArn(apiKeysTable), `/index/${API_KEYS_TABLE.globalIndexes[0]?.indexName}`]],
        },
        {
          'Fn::Join': [
            '',
            [tableArn(sessionsTable), `/index/${CONSOLE_SESSIONS_TABLE.globalIndexes[0]?.indexName}`],
          ],
        },
        {
          'Fn::Join': [
            '',
            [tableArn(tokensTable), `/index/${PERSONAL_TOKENS_TABLE.globalIndexes[0]?.indexName}`],
          ],
        },
      ]),
    });
    const query = dynamodb.find((grant) => grant.actions.includes('dynamodb:Query'));
    expect(query?.resource).toHaveLength(6);
    // Members (issue 26): read, added, changed and removed by key, a project's listed by a
    // Query of its partition, a person's projects by a Query on the person index.
    expect(dynamodb).toContainEqual({
      actions: [
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ],
      resource: tableArn(membersTable),
    });
    // Invitations (issue 27): read by key, made and changed conditionally, never deleted (TTL
    // does), a project's listed on the project index.
    expect(dynamodb).toContainEqual({
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
      resource: tableArn(invitationsTable),
    });
    expect(query?.resource).toContainEqual({
      'Fn::Join': [
        '',
        [tableArn(invitationsTable), `/index/${INVITATIONS_TABLE.globalIndexes[0]?.indexName}`],
      ],
    });
  });

  test("projects: it may update a project's count of active keys and its target id, and no other attribute", () => {
    const updates = statements.filter(
      (statement) =>
        actionsOf(statement).includes('dynamodb:UpdateItem') &&
        JSON.stringify(statement.Resource) === JSON.stringify(tableArn(projectsTable)),
    );
    expect(updates).toEqual([
      expect.objectContaining({
        Condition: {
          // ...and the count of owners (the last owner's protection, issue 26).
          'ForAllValues:StringEquals': {
            'dynamodb:Attributes': ['name', 'activeKeys', 'targetId', 'owners'],
          },
          StringEqualsIfExists: { 'dynamodb:ReturnValues': ['NONE'] },
        },
      }),
    ]);
  });

  test('CloudFront: exactly the actions the adapter calls and those AWS documents them to need, each on the narrowest resource IAM takes', () => {
    const cloudfront = granted.filter((grant) =>
      grant.actions.every((action) => action.startsWith('cloudfront:')),
    );
    expect(cloudfront).toEqual([
      { actions: [...EDGE_TENANT_ACTIONS.tenant].sort(), resource: cloudFrontArn('distribution-tenant/*') },
      { actions: ['cloudfront:CreateDistributionTenant'], resource: '*' },
    ]);
    expect([...EDGE_TENANT_ACTIONS.tenant, ...EDGE_TENANT_ACTIONS.unscoped].sort()).toEqual(
      [
        'cloudfront:CreateDistributionTenant',
        'cloudfront:DeleteDistributionTenant',
        'cloudfront:GetDistributionTenant',
        'cloudfront:GetDistributionTenantByDomain',
        'cloudfront:GetManagedCertificateDetails',
        'cloudfront:UpdateDistributionTenant',
        'cloudfront:VerifyDnsConfiguration',
      ].sort(),
    );
  });

  test("ACM, for an imported domain's own certificate: read those of us-east-1, request only with DNS validation", () => {
    const acm = statements.filter((statement) => actionsOf(statement).every((a) => a.startsWith('acm:')));
    expect(acm).toEqual([
      {
        Action: 'acm:DescribeCertificate',
        Effect: 'Allow',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':acm:us-east-1:',
              { Ref: 'AWS::AccountId' },
              ':certificate/*',
            ],
          ],
        },
      },
      {
        Action: 'acm:RequestCertificate',
        Condition: { StringEquals: { 'acm:ValidationMethod': 'DNS' } },
        Effect: 'Allow',
        Resource: '*',
      },
    ]);
    expect(Object.values(IMPORTED_CERTIFICATE_ACTIONS).flat().sort()).toEqual([
      'acm:DescribeCertificate',
      'acm:RequestCertificate',
    ]);
  });

  test('nothing else: no Scan, no wildcard action, nothing on other tables', () => {
    expect(granted.flatMap((grant) => grant.actions).filter((action) => action.includes('*'))).toEqual([]);
    expect(granted.flatMap((grant) => grant.actions)).not.toContain('dynamodb:Scan');
    // The DynamoDB and CloudFront grants above (merged where their actions are the same), the two
    // of ACM, the members table's (issue 26), SendEmail of invitations (issue 27,
    // test/lib/constructs/invitation-email.test.ts), and GetSecretValue on the origin secret
    // (test/lib/edge-origin-trust.test.ts) and the sign-in's client secret
    // (test/lib/console-identity.test.ts).
    const others = granted.filter((grant) => !grant.actions.includes('secretsmanager:GetSecretValue'));
    // ...the audit log's PutItem and Query (test/lib/audit-log.test.ts), SES for invitations, and the
    // self-service start's four (test/lib/constructs/console-self-service.test.ts).
    expect(others).toHaveLength(17);
    expect(others.filter((grant) => grant.actions.some((action) => action.startsWith('ses:')))).toEqual([
      expect.objectContaining({ actions: ['ses:SendEmail'] }),
    ]);
  });

  test('no other function may touch the custom domains table or CloudFront (the authorizer and the scheduled stale-tenant sweep only read a domain)', () => {
    const authorizer = authorizerFunctionId(template);
    // The stale-tenant sweep's rule (the daily usage ranking's touches no domain: test/lib/usage-top-job.test.ts).
    const rules = Object.values(resourcesOfType(template, 'AWS::Events::Rule')).filter(
      (rule) => rule.Properties.Description === 'Runs the stale-tenant cleanup',
    );
    const sweeps = rules.flatMap((rule) =>
      ((rule.Properties.Targets ?? []) as { Arn: unknown }[]).map((target) => referencedId(target.Arn)),
    );
    expect(sweeps).toHaveLength(1);
    for (const reader of [authorizer, ...sweeps]) {
      const onTable = statementsOfFunction(template, reader).filter((statement) =>
        JSON.stringify(statement).includes(customDomainsTable),
      );
      expect([reader, onTable.flatMap(actionsOf)]).toEqual([reader, ['dynamodb:GetItem']]);
    }
    for (const [id] of Object.entries(resourcesOfType(template, 'AWS::Lambda::Function'))) {
      if (id === consoleFunctionId || id === authorizer || sweeps.includes(id)) continue;
      const text = JSON.stringify(statementsOfFunction(template, id));
      expect([id, text.includes(customDomainsTable) || text.includes('cloudfront:')]).toEqual([id, false]);
    }
  });
});

describe('without the edge, no console function and no route', () => {
  test.each([
    ['staging', synthEnvironment('staging')],
    ['production without a stated region', synthEnvironment('production', { platformAddress: PLATFORM })],
    ['production without a platform address', productionWithEdge({ platformAddress: undefined })],
  ])('%s', (_, tpl) => {
    expect(apiMethods(tpl).filter((method) => method.path.startsWith('/console'))).toEqual([]);
    const edgeParameters = Object.values(templateJson(tpl).Parameters ?? {}).filter((parameter) =>
      Object.values(EDGE_PARAMETERS).some((name) => parameter.Default === name),
    );
    expect(edgeParameters).toEqual([]);
    for (const fn of Object.values(resourcesOfType(tpl, 'AWS::Lambda::Function'))) {
      expect(JSON.stringify(fn.Properties.Environment ?? {})).not.toContain(RUNTIME_ENV.edgeDistributionId);
    }
  });

  test('the custom domains table is deployed everywhere all the same, with its output', () => {
    expect(() => tableIdFromOutput(synthEnvironment('staging'), 'CustomDomainsTableName')).not.toThrow();
  });
});

describe('deploy order', () => {
  test('production deploys after the edge stack, whose SSM parameters it reads', () => {
    const app = testApp();
    const config = { ...environmentConfigs({}).production, platformAddress: PLATFORM, region: 'eu-west-1' };
    const [production] = addAnimalStoreStacks(app, { environments: [config] });
    expect(production?.dependencies.map((stack) => stack.stackName)).toContain(EDGE_STACK_NAME);
  });
});
