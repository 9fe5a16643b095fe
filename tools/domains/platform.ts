import { ACMClient } from '@aws-sdk/client-acm';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CustomDomains } from '../../lambda/core/custom-domains/custom-domains';
import type { EdgeTenants } from '../../lambda/core/custom-domains/edge-tenants';
import { AcmCertificates } from '../../lambda/store/acm-certificates';
import { CloudFrontEdgeTenants } from '../../lambda/store/cloudfront-edge-tenants';
import { CustomDomainRepository } from '../../lambda/store/custom-domain-repository';
import { createDocumentClient } from '../../lambda/store/dynamodb-client';
import { ProjectRepository } from '../../lambda/store/project-repository';
import { STACK_OUTPUTS } from '../../lib/animal-store-stack';
import { platformCnameTarget } from '../../lib/config/platform';
import { type EnvironmentName, environmentConfigs } from '../../lib/config/environments';
import { EDGE_OUTPUTS, EDGE_STACK_NAME } from '../../lib/edge-stack';
import { LOCAL_TABLE_NAMES } from '../../local/local-tables';
import { LOCAL_PLATFORM_DOMAIN } from '../../local/server';
import { resolverLookup } from '../domains-dns';
import { Refusal } from '../failures';
import { openLocalTable, toolStoreEndpoint } from '../local-store';
import { findStack } from '../stage';
import type { DomainsCommandIo } from './io';

/**
 * The platform engineer's side of the tool (`import`, `status --all`): the tables and the edge
 * themselves, local mode's store by default or a deployed environment's with --stage, never the
 * tenant's HTTP client.
 */

/** ACM calls the import makes before it reports throttling (the SDK's retries, with backoff). */
const ACM_ATTEMPTS = 6;

/** The tables and the edge a platform engineer's command acts on. */
export interface Platform {
  readonly domains: CustomDomainRepository;
  readonly projects: ProjectRepository;
  /** The edge's tenants; none in local mode (its edge lives inside npm start). */
  readonly edge?: EdgeTenants;
  /** The domains service over the tables and the edge (with the edge only). */
  readonly service?: CustomDomains;
  /** Where the old per-domain targets point once their certificate is issued. */
  readonly routingEndpoint: string;
  close(): void;
}

function outputsOf(stack: { Outputs?: { OutputKey?: string; OutputValue?: string }[] } | undefined) {
  return new Map(
    (stack?.Outputs ?? []).flatMap(({ OutputKey, OutputValue }) =>
      OutputKey && OutputValue ? [[OutputKey, OutputValue] as const] : [],
    ),
  );
}

export async function connectPlatform(
  io: DomainsCommandIo,
  stage: EnvironmentName | undefined,
): Promise<Platform> {
  if (!stage) {
    const documents = await openLocalTable(io.endpoint ?? toolStoreEndpoint(), {
      tableName: LOCAL_TABLE_NAMES.customDomains,
      variable: 'CUSTOM_DOMAINS_TABLE_NAME',
    });
    return {
      domains: new CustomDomainRepository(documents, LOCAL_TABLE_NAMES.customDomains),
      projects: new ProjectRepository(documents, LOCAL_TABLE_NAMES.projects),
      routingEndpoint: platformCnameTarget(LOCAL_PLATFORM_DOMAIN),
      close: () => documents.destroy(),
    };
  }
  const clients = io.stageClients ?? {};
  const made: { destroy(): void }[] = [];
  const make = <T extends { destroy(): void }>(given: T | undefined, create: () => T): T => {
    if (given) return given;
    const client = create();
    made.push(client);
    return client;
  };
  const close = () => {
    for (const client of made) client.destroy();
  };
  try {
    const { stackName } = environmentConfigs()[stage];
    const cloudFormation = make(clients.cloudFormation, () => new CloudFormationClient({}));
    const outputs = outputsOf(await findStack(cloudFormation, stackName));
    const domainsTable = outputs.get(STACK_OUTPUTS.customDomainsTable);
    const projectsTable = outputs.get(STACK_OUTPUTS.projectsTable);
    if (!domainsTable || !projectsTable) {
      throw new Refusal(
        `Stack ${stackName} has no outputs ${STACK_OUTPUTS.customDomainsTable} and ${STACK_OUTPUTS.projectsTable} in this account and region: deploy its current version, or set AWS_REGION / AWS_PROFILE to where it is.`,
      );
    }
    // The edge stack lives in us-east-1 whatever the service's region (CloudFront's own).
    const edgeCloudFormation = make(
      clients.edgeCloudFormation,
      () => new CloudFormationClient({ region: 'us-east-1' }),
    );
    const edgeOutputs = outputsOf(await findStack(edgeCloudFormation, EDGE_STACK_NAME));
    const distributionId = edgeOutputs.get(EDGE_OUTPUTS.distributionId);
    const connectionGroupId = edgeOutputs.get(EDGE_OUTPUTS.connectionGroupId);
    const routingEndpoint =
      edgeOutputs.get(EDGE_OUTPUTS.routingEndpoint) ?? edgeOutputs.get(EDGE_OUTPUTS.domainsTarget);
    if (!distributionId || !connectionGroupId || !routingEndpoint) {
      throw new Refusal(
        `Stack ${EDGE_STACK_NAME} in us-east-1 has no outputs ${EDGE_OUTPUTS.distributionId}, ${EDGE_OUTPUTS.connectionGroupId} and ${EDGE_OUTPUTS.routingEndpoint}: deploy the edge stack first (doc/deploying.md).`,
      );
    }
    const documents: DynamoDBDocumentClient = make(clients.documents, () => createDocumentClient());
    const client = make(clients.cloudFront, () => new CloudFrontClient({ region: 'us-east-1' }));
    // CloudFront takes certificates from us-east-1 only; the SDK retries ACM's throttling
    // (RequestCertificate's rate is low) with backoff before the import reports it.
    const acm = make(clients.acm, () => new ACMClient({ region: 'us-east-1', maxAttempts: ACM_ATTEMPTS }));
    const domains = new CustomDomainRepository(documents, domainsTable);
    const projects = new ProjectRepository(documents, projectsTable);
    const edge = new CloudFrontEdgeTenants({
      client,
      distributionId,
      connectionGroupId,
      certificates: new AcmCertificates({ client: acm }),
    });
    // The target is `domains.<platform domain>`: the service's views and names need both.
    const target = edgeOutputs.get(EDGE_OUTPUTS.domainsTarget) ?? routingEndpoint;
    const service = new CustomDomains({
      store: domains,
      edge,
      dns: resolverLookup(),
      clock: () => (io.now ?? (() => new Date()))().getTime(),
      target,
      platformDomain: target.slice(target.indexOf('.') + 1),
      projects,
    });
    return {
      domains,
      projects,
      edge,
      service,
      routingEndpoint,
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}
