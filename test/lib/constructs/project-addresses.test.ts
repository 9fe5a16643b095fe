import { STACK_OUTPUTS } from '../../../lib/animal-store-stack';
import type { PlatformAddressConfig } from '../../../lib/config/platform';
import { synthEnvironment } from '../../support/synth';
import { referencedId, resourcesOfType, templateJson } from '../template-queries';

const ADDRESS: PlatformAddressConfig = { domain: 'animalstore.example', hostedZoneId: 'Z0123456789PLATFORM' };

const template = synthEnvironment('production', { platformAddress: ADDRESS });
const only = (type: string) => {
  const found = Object.entries(resourcesOfType(template, type));
  if (found.length !== 1) throw new Error(`Expected one ${type}, found ${found.length}`);
  return found[0] as [string, (typeof found)[number][1]];
};

describe('every project address at once: *.<platform domain>', () => {
  test('one wildcard certificate, DNS-validated in the platform zone', () => {
    const [, certificate] = only('AWS::CertificateManager::Certificate');
    expect(certificate.Properties).toMatchObject({
      DomainName: '*.animalstore.example',
      ValidationMethod: 'DNS',
      DomainValidationOptions: [{ DomainName: '*.animalstore.example', HostedZoneId: ADDRESS.hostedZoneId }],
    });
  });

  test('one wildcard REGIONAL custom domain with TLS 1.2, dual-stack, on that certificate', () => {
    const [certificateId] = only('AWS::CertificateManager::Certificate');
    const [, domain] = only('AWS::ApiGateway::DomainName');
    expect(domain.Properties).toEqual({
      DomainName: '*.animalstore.example',
      EndpointConfiguration: { Types: ['REGIONAL'], IpAddressType: 'dualstack' },
      RegionalCertificateArn: { Ref: certificateId },
      SecurityPolicy: 'TLS_1_2',
    });
  });

  test("its empty base path maps to the environment's API stage, so /v1/... reaches the API", () => {
    const [domainId] = only('AWS::ApiGateway::DomainName');
    const [restApiId] = Object.keys(resourcesOfType(template, 'AWS::ApiGateway::RestApi'));
    const [stageId] = Object.keys(resourcesOfType(template, 'AWS::ApiGateway::Stage'));
    const [, mapping] = only('AWS::ApiGateway::BasePathMapping');
    expect(mapping.Properties.BasePath).toBeUndefined();
    expect(referencedId(mapping.Properties.DomainName)).toBe(domainId);
    expect(referencedId(mapping.Properties.RestApiId)).toBe(restApiId);
    expect(referencedId(mapping.Properties.Stage)).toBe(stageId);
  });

  test('wildcard alias records, A and AAAA, in the platform zone, to the custom domain', () => {
    const [domainId] = only('AWS::ApiGateway::DomainName');
    const records = Object.values(resourcesOfType(template, 'AWS::Route53::RecordSet'));
    expect(records.map((record) => record.Properties.Type).sort()).toEqual(['A', 'AAAA']);
    for (const record of records) {
      expect(record.Properties).toMatchObject({
        Name: '*.animalstore.example.',
        HostedZoneId: ADDRESS.hostedZoneId,
        AliasTarget: {
          DNSName: { 'Fn::GetAtt': [domainId, 'RegionalDomainName'] },
          HostedZoneId: { 'Fn::GetAtt': [domainId, 'RegionalHostedZoneId'] },
        },
      });
    }
  });

  test('the stack outputs the platform domain, which the tools read to print project addresses', () => {
    expect(templateJson(template).Outputs[STACK_OUTPUTS.platformDomain]?.Value).toBe('animalstore.example');
  });
});

describe('without a platform address', () => {
  test.each(['staging', 'production'] as const)(
    '%s has no certificate, custom domain, record or output',
    (name) => {
      const plain = synthEnvironment(name);
      for (const type of [
        'AWS::CertificateManager::Certificate',
        'AWS::ApiGateway::DomainName',
        'AWS::ApiGateway::BasePathMapping',
        'AWS::Route53::RecordSet',
      ]) {
        plain.resourceCountIs(type, 0);
      }
      expect(templateJson(plain).Outputs[STACK_OUTPUTS.platformDomain]).toBeUndefined();
    },
  );
});
