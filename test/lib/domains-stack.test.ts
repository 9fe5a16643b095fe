import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type App, Stack } from 'aws-cdk-lib';
import { type IRestApi, MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { addAnimalStoreStacks, withDomainsPlatform } from '../../lib/animal-store-app';
import { AnimalStoreStack } from '../../lib/animal-store-stack';
import {
  type DomainsConfig,
  domainsConfigFromContext,
  readDomainsConfig,
  validateDomainsConfig,
} from '../../lib/config/domains';
import { environmentConfigs } from '../../lib/config/environments';
import { accessLogTemplate } from '../../lib/constructs/api-stage-logs';
import { addProjectDomainStacks } from '../../lib/domains-stack';
import { REDIRECT_TARGET_ENV } from '../../lambda/handlers/redirect';
import { testApp } from '../support/synth';
import { logGroupIdOfArn, resource, resourcesOfType, templateJson } from './template-queries';

const PLATFORM_ZONE = 'Z0PLATFORM';
const ACME_ZONE = 'Z0ACMEPETS';

const CONFIG: DomainsConfig = {
  platform: {
    domain: 'animalstore.example',
    hostedZone: { id: PLATFORM_ZONE, name: 'animalstore.example' },
    cnameTargetDomain: 'tenants.animalstore.example',
  },
  projects: [
    {
      name: 'acme',
      domains: [
        {
          name: 'shop.acme-pets.example',
          role: 'primary',
          zone: { name: 'acme-pets.example', hostedZoneId: ACME_ZONE },
        },
        {
          name: 'acme-pets.example',
          role: 'additional',
          zone: { name: 'acme-pets.example', hostedZoneId: ACME_ZONE },
        },
        {
          name: 'www.acme-pets.example',
          role: 'redirect',
          zone: { name: 'acme-pets.example', hostedZoneId: ACME_ZONE },
        },
      ],
    },
    {
      name: 'birdhouse',
      domains: [
        { name: 'pets.birdhouse.example', role: 'primary', zone: { name: 'birdhouse.example' } },
        { name: 'birdhouse.example', role: 'additional', zone: { name: 'birdhouse.example' } },
      ],
    },
  ],
};

/**
 * The REST API the domain stacks serve: a stand-in stack with one method, so these
 * tests exercise the domain constructs alone; the last test composes the real stack.
 */
function apiStack(app: App): RestApi {
  const stack = new Stack(app, 'AnimalStore-production');
  const api = new RestApi(stack, 'Api', {
    deployOptions: { stageName: 'production' },
    cloudWatchRole: false,
  });
  api.root.addResource('v1').addMethod('GET', new MockIntegration());
  return api;
}

/** Synthesizes production with the domain stacks of `config` (no bundling); templates by stack name. */
function synth(config: DomainsConfig, withApi: (app: App) => IRestApi = apiStack): Map<string, Template> {
  const app = testApp();
  const production = environmentConfigs({}).production;
  const stacks = addProjectDomainStacks(app, production, validateDomainsConfig(config, 'test'), withApi(app));
  return new Map(stacks.map((stack) => [stack.stackName, Template.fromStack(stack)]));
}

function template(templates: Map<string, Template>, project: string): Template {
  const found = templates.get(`AnimalStore-production-domains-${project}`);
  if (!found) throw new Error(`no domains stack for ${project}`);
  return found;
}

function recordsNamed(t: Template, name: string) {
  return Object.values(resourcesOfType(t, 'AWS::Route53::RecordSet')).filter(
    (r) => r.Properties.Name === name,
  );
}

const templates = synth(CONFIG);
const acme = template(templates, 'acme');
const birdhouse = template(templates, 'birdhouse');
const birdhouseCertificates = templates.get('AnimalStore-production-certificates-birdhouse') as Template;
const BIRDHOUSE_DOMAINS = ['pets.birdhouse.example', 'birdhouse.example'];

describe('domain stacks', () => {
  test('one stack per project, in production only, and a certificates stack for DNS elsewhere', () => {
    expect([...templates.keys()]).toEqual([
      'AnimalStore-production-domains-acme',
      'AnimalStore-production-domains-birdhouse',
      'AnimalStore-production-certificates-birdhouse',
    ]);
    const app = testApp();
    expect(addProjectDomainStacks(app, environmentConfigs({}).staging, CONFIG, apiStack(app))).toEqual([]);
  });

  test('no domainsConfig context: no configuration, so no domain stacks', () => {
    expect(domainsConfigFromContext(undefined)).toBeUndefined();
  });

  test('the example configuration synthesizes with the real API stack, one domains stack per project', () => {
    const example = readDomainsConfig(path.join(__dirname, '..', '..', 'config', 'domains.example.json'));
    expect(example.projects.some((p) => p.domains.some((d) => d.role === 'redirect'))).toBe(true);
    const production = environmentConfigs({}).production;
    const real = synth(
      example,
      (app) => new AnimalStoreStack(app, production.stackName, { config: production }).api.restApi,
    );
    expect([...real.keys()].filter((name) => name.includes('-domains-'))).toHaveLength(
      example.projects.length,
    );
    const mapping = Object.values(
      resourcesOfType(template(real, 'acme'), 'AWS::ApiGateway::BasePathMapping'),
    )[0];
    expect(JSON.stringify(mapping?.Properties.RestApiId)).toContain(
      'AnimalStore-production:ExportsOutputRefApiRestApi',
    );
  });

  test("no project's platform address is in its domains stack: the environment's wildcard serves them all", () => {
    for (const [name, t] of templates) {
      const json = JSON.stringify(templateJson(t));
      for (const project of CONFIG.projects) {
        expect([name, json.includes(`"${project.name}.animalstore.example`)]).toEqual([name, false]);
      }
      expect(JSON.stringify(t.toJSON())).not.toContain('DefaultAddress');
    }
    // Only the custom domains: acme's three, birdhouse's two.
    acme.resourceCountIs('AWS::ApiGateway::DomainName', 3);
    birdhouse.resourceCountIs('AWS::ApiGateway::DomainName', 2);
  });

  test('a project without custom domains keeps a stack holding nothing but a placeholder', () => {
    const [hobby] = synth({ ...CONFIG, projects: [{ name: 'hobby', domains: [] }] }).values();
    expect(Object.values(templateJson(hobby as Template).Resources).map((r) => r.Type)).toEqual([
      'AWS::CloudFormation::WaitConditionHandle',
    ]);
  });

  test("each domains stack deploys after its environment's stack, which holds the wildcard", () => {
    const app = testApp();
    const api = apiStack(app);
    const stacks = addProjectDomainStacks(app, environmentConfigs({}).production, CONFIG, api);
    for (const stack of stacks.filter((st) => st.stackName.includes('-domains-'))) {
      expect([stack.stackName, stack.dependencies.map((st) => st.stackName)]).toEqual([
        stack.stackName,
        expect.arrayContaining(['AnimalStore-production']),
      ]);
    }
  });

  test('composed like bin/, the domains stacks depend on the stack that serves the wildcard address', () => {
    const app = testApp();
    const [, production] = addAnimalStoreStacks(app, {
      environments: [environmentConfigs({}).staging, environmentConfigs({}).production],
      domains: CONFIG,
    });
    expect(production?.projectAddresses).toBeDefined();
    const domains = app.node.children
      .filter(Stack.isStack)
      .filter((stack) => stack.stackName.startsWith('AnimalStore-production-domains-'));
    expect(domains.length).toBe(CONFIG.projects.length);
    for (const stack of domains) expect(stack.dependencies).toContain(production);
  });

  test('every custom domain is a REGIONAL API Gateway domain with TLS 1.2, dual-stack', () => {
    for (const name of ['shop.acme-pets.example', 'acme-pets.example', 'www.acme-pets.example']) {
      acme.hasResourceProperties('AWS::ApiGateway::DomainName', {
        DomainName: name,
        EndpointConfiguration: { Types: ['REGIONAL'], IpAddressType: 'dualstack' },
        SecurityPolicy: 'TLS_1_2',
        RegionalCertificateArn: Match.anyValue(),
      });
    }
  });

  test('a serving domain maps the empty base path to the API stage, so /v1/pets reaches the API', () => {
    const mappings = Object.values(resourcesOfType(birdhouse, 'AWS::ApiGateway::BasePathMapping'));
    expect(mappings).toHaveLength(2);
    for (const mapping of mappings) {
      expect(mapping.Properties.BasePath).toBeUndefined();
      expect(JSON.stringify(mapping.Properties.RestApiId)).toContain('ExportsOutputRefApi');
      expect(JSON.stringify(mapping.Properties.Stage)).toContain(
        'ExportsOutputRefApiDeploymentStageproduction',
      );
    }
  });

  test('a domain in Route 53 gets a certificate validated in its own zone', () => {
    acme.hasResourceProperties('AWS::CertificateManager::Certificate', {
      DomainName: 'shop.acme-pets.example',
      ValidationMethod: 'DNS',
      DomainValidationOptions: [{ DomainName: 'shop.acme-pets.example', HostedZoneId: ACME_ZONE }],
    });
  });

  test('DNS elsewhere: the certificates stack requests each certificate without waiting and names its ARN', () => {
    for (const name of BIRDHOUSE_DOMAINS) {
      birdhouseCertificates.hasResourceProperties('Custom::TenantCertificate', { DomainName: name });
      birdhouseCertificates.hasResourceProperties('AWS::SSM::Parameter', {
        Name: `/AnimalStore-production/certificates/${name}`,
        Value: { 'Fn::GetAtt': [Match.anyValue(), 'CertificateArn'] },
      });
    }
    birdhouseCertificates.resourceCountIs('AWS::CertificateManager::Certificate', 0);
    // Every certificate of the project is the requested one: none is CloudFormation's own.
    birdhouse.resourceCountIs('AWS::CertificateManager::Certificate', 0);
  });

  test("DNS elsewhere: the certificate request may only ask for the project's own domains", () => {
    const policies = Object.values(resourcesOfType(birdhouseCertificates, 'AWS::IAM::Policy'));
    const statements = policies.flatMap(
      (p) => (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
    );
    const request = statements.find((st) => st.Action === 'acm:RequestCertificate');
    expect(request).toMatchObject({
      Resource: '*',
      Condition: { 'ForAllValues:StringEquals': { 'acm:DomainNames': BIRDHOUSE_DOMAINS } },
    });
  });

  test('DNS elsewhere: each API Gateway domain waits for its certificate to be issued, read from its parameter', () => {
    const json = templateJson(birdhouse);
    const parameters: string[] = [];
    for (const name of BIRDHOUSE_DOMAINS) {
      const parameter = Object.entries(json.Parameters ?? {}).find(
        ([, p]) => p.Default === `/AnimalStore-production/certificates/${name}`,
      )?.[0];
      expect(parameter).toBeDefined();
      parameters.push(parameter ?? '');
      const waiter = Object.entries(resourcesOfType(birdhouse, 'Custom::CertificateIssued')).find(
        ([, r]) => (r.Properties.CertificateArn as { Ref?: string }).Ref === parameter,
      )?.[0];
      expect(waiter).toBeDefined();
      birdhouse.hasResourceProperties('AWS::ApiGateway::DomainName', {
        DomainName: name,
        RegionalCertificateArn: { Ref: waiter },
        SecurityPolicy: 'TLS_1_2',
      });
    }
    // The waiter's check may touch exactly these certificates.
    const statements = Object.values(resourcesOfType(birdhouse, 'AWS::IAM::Policy')).flatMap(
      (p) => (p.Properties.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
    );
    const acmStatements = statements.filter((st) => JSON.stringify(st.Action).includes('acm:'));
    // One statement: the minimizePolicies flag merges the per-certificate grants.
    expect(acmStatements).toEqual([
      {
        Effect: 'Allow',
        Action: ['acm:DeleteCertificate', 'acm:DescribeCertificate', 'acm:ListTagsForCertificate'],
        Resource: expect.arrayContaining(parameters.map((parameter) => ({ Ref: parameter }))),
      },
    ]);
    expect(acmStatements[0]?.Resource).toHaveLength(parameters.length);
  });

  test('DNS elsewhere: the domains stack deploys after the certificates stack (no export between them)', () => {
    const app = testApp();
    const stacks = addProjectDomainStacks(
      app,
      environmentConfigs({}).production,
      validateDomainsConfig(CONFIG, 'test'),
      apiStack(app),
    );
    const domains = stacks.find((st) => st.stackName === 'AnimalStore-production-domains-birdhouse');
    expect(domains?.dependencies.map((st) => st.stackName)).toContain(
      'AnimalStore-production-certificates-birdhouse',
    );
    // Imports come from the API stack only: none from the certificates stack, so removing a domain never blocks.
    expect(JSON.stringify(templateJson(birdhouse))).not.toContain(
      'AnimalStore-production-certificates-birdhouse:',
    );
    expect(
      Object.keys(templateJson(birdhouseCertificates).Outputs).filter((key) =>
        key.startsWith('ExportsOutput'),
      ),
    ).toEqual([]);
  });

  test('a subdomain in Route 53 gets a CNAME to its platform target with TTL 3600', () => {
    const [cname, ...more] = recordsNamed(acme, 'shop.acme-pets.example.');
    expect(more).toEqual([]);
    expect(cname?.Properties).toMatchObject({
      Type: 'CNAME',
      HostedZoneId: ACME_ZONE,
      TTL: '3600',
      ResourceRecords: ['shop.acme-pets.example.tenants.animalstore.example'],
    });
  });

  test('an apex in Route 53 gets ALIAS A and AAAA records to its API Gateway domain', () => {
    const records = recordsNamed(acme, 'acme-pets.example.');
    expect(records.map((r) => r.Properties.Type).sort()).toEqual(['A', 'AAAA']);
    for (const record of records) {
      expect(record.Properties.HostedZoneId).toBe(ACME_ZONE);
      expect(record.Properties.AliasTarget).toMatchObject({
        DNSName: {
          'Fn::GetAtt': [expect.stringMatching(/^Domainsacmepetsexample.*Domain/), 'RegionalDomainName'],
        },
      });
    }
  });

  test("each custom domain's platform target is an alias (A and AAAA) of its API Gateway domain in the platform zone", () => {
    for (const name of ['shop.acme-pets.example', 'acme-pets.example', 'www.acme-pets.example']) {
      const records = recordsNamed(acme, `${name}.tenants.animalstore.example.`);
      expect(records.map((r) => r.Properties.Type).sort()).toEqual(['A', 'AAAA']);
      expect(records.every((r) => r.Properties.HostedZoneId === PLATFORM_ZONE)).toBe(true);
    }
  });

  test('DNS elsewhere: outputs list the record to add (CNAME or ALIAS/ANAME, TTL 3600) and the validation record', () => {
    const validation = Object.values(templateJson(birdhouseCertificates).Outputs).map((o) => o.Value);
    expect(validation).toHaveLength(2);
    for (const value of validation) {
      const [, parts] = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
      expect(parts).toEqual([
        { 'Fn::GetAtt': [expect.any(String), 'ValidationRecordName'] },
        ' ',
        { 'Fn::GetAtt': [expect.any(String), 'ValidationRecordType'] },
        ' ',
        { 'Fn::GetAtt': [expect.any(String), 'ValidationRecordValue'] },
        ' TTL 3600',
      ]);
    }
    const outputs = Object.values(templateJson(birdhouse).Outputs).map((o) => o.Value);
    expect(outputs).toContain(
      'pets CNAME pets.birdhouse.example.tenants.animalstore.example TTL 3600 (for pets.birdhouse.example)',
    );
    expect(outputs).toContain(
      '@ ALIAS/ANAME birdhouse.example.tenants.animalstore.example TTL 3600 (for birdhouse.example)',
    );
    expect(resourcesOfType(birdhouse, 'AWS::Route53::RecordSet')).not.toEqual({});
    expect(
      Object.values(resourcesOfType(birdhouse, 'AWS::Route53::RecordSet')).every(
        (r) => r.Properties.HostedZoneId === PLATFORM_ZONE,
      ),
    ).toBe(true);
  });

  test('a redirect domain maps to the redirect API whose function answers 301 to the primary', () => {
    acme.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { [REDIRECT_TARGET_ENV]: 'shop.acme-pets.example' } },
    });
    const [apiId] = Object.keys(resourcesOfType(acme, 'AWS::ApiGateway::RestApi'));
    const domains = resourcesOfType(acme, 'AWS::ApiGateway::DomainName');
    const wwwId = Object.entries(domains).find(
      ([, d]) => d.Properties.DomainName === 'www.acme-pets.example',
    )?.[0];
    const mapping = Object.values(resourcesOfType(acme, 'AWS::ApiGateway::BasePathMapping')).find(
      (m) => (m.Properties.DomainName as { Ref: string }).Ref === wwwId,
    );
    expect(mapping?.Properties.RestApiId).toEqual({ Ref: apiId });
    acme.hasResourceProperties('AWS::ApiGateway::RestApi', { DisableExecuteApiEndpoint: true });
  });

  test('the redirect API writes the JSON access log and execution errors, kept as long as the environment keeps logs', () => {
    const [stage] = Object.values(resourcesOfType(acme, 'AWS::ApiGateway::Stage'));
    const access = stage?.Properties.AccessLogSetting as { DestinationArn: unknown; Format: string };
    expect(access.Format).toBe(accessLogTemplate());
    expect(resource(acme, logGroupIdOfArn(access.DestinationArn)).Properties.RetentionInDays).toBe(180);
    expect(stage?.Properties.MethodSettings).toEqual([
      { ResourcePath: '/*', HttpMethod: '*', LoggingLevel: 'ERROR', DataTraceEnabled: false },
    ]);
    acme.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: Match.objectLike({
        'Fn::Join': ['', Match.arrayWith(['API-Gateway-Execution-Logs_', '/redirect'])],
      }),
      RetentionInDays: 180,
    });
  });

  test("the redirect API sits behind the environment's web ACL when it is given", () => {
    acme.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
    const app = testApp();
    const production = environmentConfigs({}).production;
    const api = new AnimalStoreStack(app, production.stackName, { config: production });
    const [withAcl] = addProjectDomainStacks(app, production, CONFIG, api.api.restApi, api.firewall.webAcl);
    const webAcl = Template.fromStack(withAcl as Stack);
    webAcl.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
    webAcl.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: {
        'Fn::ImportValue': Match.stringLikeRegexp(
          '^AnimalStore-production:ExportsOutputFnGetAttFirewallWebAcl',
        ),
      },
    });
  });

  test('a project without redirect domains has no redirect function or API', () => {
    const functions = Object.values(resourcesOfType(birdhouse, 'AWS::Lambda::Function'));
    expect(functions.filter((f) => JSON.stringify(f.Properties).includes(REDIRECT_TARGET_ENV))).toEqual([]);
    birdhouse.resourceCountIs('AWS::ApiGateway::RestApi', 0);
  });

  test('removing a domain from the configuration removes all of its resources', () => {
    const [acmeProject, ...others] = CONFIG.projects;
    const without = synth({
      ...CONFIG,
      projects: [
        { ...acmeProject!, domains: acmeProject!.domains.filter((d) => d.name !== 'acme-pets.example') },
        ...others,
      ],
    });
    const json = JSON.stringify(templateJson(template(without, 'acme')));
    expect(json).not.toMatch(/"acme-pets\.example\.?"/);
    expect(json).not.toContain('"acme-pets.example.tenants.animalstore.example."');
    const remaining = template(without, 'acme');
    remaining.resourceCountIs('AWS::CertificateManager::Certificate', 2);
    remaining.resourceCountIs('AWS::ApiGateway::DomainName', 2);
  });

  test('removing a domain with DNS elsewhere removes its request; removing the last removes the certificates stack', () => {
    const [acmeProject, birdhouseProject] = CONFIG.projects;
    const withOne = synth({
      ...CONFIG,
      projects: [
        acmeProject!,
        {
          ...birdhouseProject!,
          domains: birdhouseProject!.domains.filter((d) => d.name !== 'birdhouse.example'),
        },
      ],
    });
    const certificates = withOne.get('AnimalStore-production-certificates-birdhouse') as Template;
    certificates.resourceCountIs('Custom::TenantCertificate', 1);
    expect(JSON.stringify(templateJson(certificates))).not.toMatch(/"birdhouse\.example"/);
    template(withOne, 'birdhouse').resourceCountIs('Custom::CertificateIssued', 1);
    const inRoute53 = synth({
      ...CONFIG,
      projects: [
        acmeProject!,
        {
          ...birdhouseProject!,
          domains: birdhouseProject!.domains.map((d) => ({
            ...d,
            zone: { ...d.zone, hostedZoneId: 'Z0BIRD' },
          })),
        },
      ],
    });
    expect([...inRoute53.keys()]).not.toContain('AnimalStore-production-certificates-birdhouse');
    template(inRoute53, 'birdhouse').resourceCountIs('Custom::CertificateIssued', 0);
  });

  test('a configuration that still carries a plan fails, saying the plan lives in the projects table', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'domains-config-'));
    const file = path.join(dir, 'domains.json');
    const withPlan = { ...CONFIG, projects: [{ ...CONFIG.projects[1]!, plan: 'free' }] };
    writeFileSync(file, JSON.stringify(withPlan));
    try {
      expect(() => readDomainsConfig(file)).toThrow(
        /projects\[0\]\.plan: a project's plan is kept in the projects table only/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('domains configuration', () => {
  const problems = (change: (c: DomainsConfig) => DomainsConfig) => () =>
    validateDomainsConfig(change(CONFIG), 'test.json');

  test('two primaries fail with the fix', () => {
    expect(
      problems((c) => ({
        ...c,
        projects: [
          {
            ...c.projects[0]!,
            domains: c.projects[0]!.domains.map((d) => ({ ...d, role: 'primary' as const })),
          },
        ],
      })),
    ).toThrow(/project "acme" has 3 primary domains .*mark exactly one domain "role": "primary"/);
  });

  test('a zone that does not hold the domain fails, naming both', () => {
    expect(
      problems((c) => ({
        ...c,
        projects: [
          {
            name: 'x',
            domains: [{ name: 'a.b.example', role: 'primary', zone: { name: 'c.example' } }],
          },
        ],
      })),
    ).toThrow(
      /domain "a.b.example" of project "x": zone.name "c.example" must be the zone that holds the domain/,
    );
  });

  test('a domain used by two projects, an unknown plan and a bad hosted zone id fail together', () => {
    expect(
      problems((c) => ({
        ...c,
        platform: { ...c.platform, hostedZone: { ...c.platform.hostedZone, id: 'nope' } },
        projects: [...c.projects, { name: 'copy', domains: [c.projects[0]!.domains[0]!] }],
      })),
    ).toThrow(/hostedZone.id is "nope"[\s\S]*also configured for project "acme"/);
  });

  test('a custom domain inside the platform zone is refused', () => {
    expect(
      problems((c) => ({
        ...c,
        projects: [
          {
            name: 'x',
            domains: [
              { name: 'x.animalstore.example', role: 'primary', zone: { name: 'animalstore.example' } },
            ],
          },
        ],
      })),
    ).toThrow(/it is in the platform zone/);
  });

  test('a project name that is not a project name (reserved, too short) fails with the reason', () => {
    expect(
      problems((c) => ({
        ...c,
        projects: [
          { name: 'www', domains: [] },
          { name: 'ab', domains: [] },
        ],
      })),
    ).toThrow(
      /project "www": Project name "www" is reserved[\s\S]*project "ab": Project name "ab" must be 3 to 63/,
    );
  });

  test('a context value that is not a path fails with the fix', () => {
    expect(() => domainsConfigFromContext(42)).toThrow(
      /pass the path of a JSON file, e.g. -c domainsConfig=/,
    );
  });
});

describe('the platform address and the domains configuration agree', () => {
  const production = environmentConfigs({}).production;
  const address = { domain: 'animalstore.example', hostedZoneId: PLATFORM_ZONE };

  test("without one of its own, production takes the domains configuration's platform", () => {
    expect(withDomainsPlatform(production, CONFIG).platformAddress).toEqual(address);
  });

  test('the same address from both is accepted; staging and no domains change nothing', () => {
    const withAddress = { ...production, platformAddress: address };
    expect(withDomainsPlatform(withAddress, CONFIG)).toBe(withAddress);
    const staging = environmentConfigs({}).staging;
    expect(withDomainsPlatform(staging, CONFIG)).toBe(staging);
    expect(withDomainsPlatform(production, undefined)).toBe(production);
  });

  test('a different domain or hosted zone fails synth, naming both values', () => {
    expect(() =>
      withDomainsPlatform(
        { ...production, platformAddress: { domain: 'pets.example', hostedZoneId: 'Z0OTHER' } },
        CONFIG,
      ),
    ).toThrow(
      /disagree:\n- platform.domain is "animalstore.example" but the platform domain \(-c platformDomain\) is "pets.example"[\s\S]*platform.hostedZone.id is "Z0PLATFORM" but the platform hosted zone \(-c platformHostedZoneId\) is "Z0OTHER"/,
    );
  });

  test('the example configuration gives production its wildcard address', () => {
    const example = readDomainsConfig(path.join(__dirname, '..', '..', 'config', 'domains.example.json'));
    const app = testApp();
    const [stack] = addAnimalStoreStacks(app, { environments: [production], domains: example });
    const t = Template.fromStack(stack as Stack);
    t.hasResourceProperties('AWS::ApiGateway::DomainName', { DomainName: `*.${example.platform.domain}` });
  });
});
