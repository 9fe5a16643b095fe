import { newTargetId } from '../../lambda/core/custom-domains/project-target';
import { resolverLookup } from '../domains-dns';
import { describeImport, importDomains, readOldDomainsConfig } from '../domains-import';
import type { DomainsCommandIo } from './io';
import type { DomainsCommandSpec, DomainsValues } from './options';
import type { Platform } from './platform';

export const IMPORT_DECLARATION: DomainsCommandSpec = {
  name: 'import',
  operands: ['old-config.json'],
  options: ['stage', 'resolver', 'json'],
  summary: [
    'Platform engineers: move the domains of an old configuration file (config/domains.json) to',
    'the domains service without downtime: a record, a DNS-validated ACM certificate, and once',
    'that is issued an edge tenant with it, each; re-running goes on from what exists. Prints,',
    'per domain, the validation record (and whether DNS answers it) and, once the tenant has its',
    'certificate, the record change that moves its traffic to the edge.',
  ].join('\n'),
};

/** `import <old-config.json>`: each domain of the file moved on as far as it can go now. */
export async function importCommand(
  io: DomainsCommandIo,
  file: string,
  values: DomainsValues,
  platform: Platform,
): Promise<number> {
  const config = readOldDomainsConfig(file);
  const results = await importDomains(config, {
    store: platform.domains,
    ...(platform.service ? { service: platform.service } : {}),
    dns: resolverLookup(values.resolver),
    // A project of the file without a target id (made before per-project targets) gets one here.
    projectExists: async (name) =>
      (await platform.projects.get(name)) !== undefined &&
      (await platform.projects.assignTargetId(name, newTargetId())) !== undefined,
    routingEndpoint: platform.routingEndpoint,
    clock: () => (io.now ?? (() => new Date()))().getTime(),
  });
  if (values.json) io.out(JSON.stringify(results));
  else {
    for (const result of results) io.out(describeImport(result));
    if (results.length === 0) io.out(`${file} has no domains.`);
    if (!platform.edge && results.some((result) => result.tenant === 'deferred')) {
      io.out(
        "Local mode: npm start's service gives each imported domain its certificate and tenant when the project's domains are listed or verified.",
      );
    }
  }
  return results.some((result) => result.reason) ? 1 : 0;
}
