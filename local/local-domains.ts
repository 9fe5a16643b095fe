import path from 'node:path';
import { composeCustomDomains } from '../lambda/composition/custom-domains';
import type { CustomDomains } from '../lambda/core/custom-domains/custom-domains';
import type { DnsLookup } from '../lambda/core/custom-domains/dns-verdict';
import type { TxtLookup } from '../lambda/core/custom-domains/domain-ownership';
import { newTargetId } from '../lambda/core/custom-domains/project-target';
import type { EdgeRoute } from '../lambda/core/custom-domains/edge-tenants';
import type { CustomDomainRepository } from '../lambda/store/custom-domain-repository';
import { resolverLookup } from '../lambda/store/dns-resolver';
import type { ProjectRepository } from '../lambda/store/project-repository';
import { platformCnameTarget } from '../lib/config/platform';
import { type HttpsEdge, startHttpsEdge } from './https-edge';
import {
  createLocalCertificateAuthority,
  type LocalCertificateAuthority,
} from './local-certificate-authority';
import { localEdgeTenants, type LocalEdgeTenants } from './local-edge-tenants';
import type { LocalTablePorts } from './local-ports';
import { type SandboxDns, startSandboxDns } from './sandbox-dns';

/**
 * Local mode's custom domains, the whole flow on one machine: the sandbox DNS zone (the
 * tenant's DNS provider), the HTTPS edge (CloudFront's tenants), the certificate authority
 * (CloudFront's managed certificates) and the domains service over them and the local tables.
 */

/** `DNS_RESOLVER=system` makes the service ask the machine's resolvers (real domains). */
export const SYSTEM_RESOLVER = 'system';

export interface LocalDomainsOptions {
  /** Port of the sandbox DNS (UDP and TCP) on 127.0.0.1; 0 picks a free one. @default 0 */
  readonly dnsPort?: number;
  /** Ports of the edge's HTTPS and plain HTTP on 127.0.0.1; 0 picks free ones. @default 0 */
  readonly edgeHttpsPort?: number;
  readonly edgeHttpPort?: number;
  /**
   * The DNS server the service and the authority ask: an address (`IP[:PORT]`), or
   * {@link SYSTEM_RESOLVER}. @default the sandbox
   */
  readonly dnsResolver?: string;
  /** Milliseconds since the epoch (tests move it). @default the wall clock */
  readonly clock?: () => number;
  /** How long a certificate may stay pending before it times out. @default 72 hours, as ACM */
  readonly certificatePatienceMs?: number;
  /** How often `npm start` tries the pending certificates; none when omitted (tests ask through the service). */
  readonly attemptIntervalMs?: number;
}

export interface LocalDomains {
  /** The spec's `{platform_cname_target}` in local mode, e.g. `domains.localhost`. */
  readonly target: string;
  readonly dns: SandboxDns;
  readonly edge: HttpsEdge;
  readonly authority: LocalCertificateAuthority;
  readonly tenants: LocalEdgeTenants;
  readonly service: CustomDomains;
  close(): Promise<void>;
}

export interface StartLocalDomainsInput {
  /** Local mode's tables: the custom domains and the projects (their targets). */
  readonly ports: Pick<LocalTablePorts, 'customDomains' | 'projects' | 'auditLog'>;
  /** The local API every project's origin is on, e.g. `http://127.0.0.1:3000`. */
  readonly upstream: string;
  readonly platformDomain: string;
  /** The data folder: the sandbox's records and the authority's root are kept there. In memory when omitted. */
  readonly dataDir?: string;
  readonly options: LocalDomainsOptions;
  /** Headers the edge adds to every request to the origin: the origin secret, as CloudFront's origin does. */
  readonly originHeaders?: Readonly<Record<string, string>>;
}

function lookupFor(resolver: string | undefined, sandbox: SandboxDns): DnsLookup & TxtLookup {
  if (resolver === SYSTEM_RESOLVER) return resolverLookup();
  return resolverLookup(resolver || sandbox.address);
}

/** Gives every attached domain its tenant again (the edge and the authority keep theirs in memory). */
async function restoreTenants(repository: CustomDomainRepository, tenants: LocalEdgeTenants): Promise<void> {
  const domains = await repository.all();
  for (const domain of domains.filter((candidate) => candidate.attached)) {
    const primary = domains.find((other) => other.project === domain.project && other.role === 'primary');
    const route: EdgeRoute =
      domain.role === 'redirect' && primary
        ? { project: domain.project, role: 'redirect', primary: primary.name }
        : { project: domain.project, role: 'serve' };
    await tenants.attach(domain.name, route);
  }
}

/**
 * Moves a data folder to per-project targets: every project without a target id gets one. Its
 * domains verified before keep serving (the authorizer reads only their records), and their CNAME
 * to the shared target is accepted for them alone until they verify again (domain-ownership.ts).
 */
export async function giveProjectsTargets(projects: ProjectRepository): Promise<number> {
  let given = 0;
  for (const project of await projects.list()) {
    if (project.targetId === undefined && (await projects.assignTargetId(project.name, newTargetId())))
      given += 1;
  }
  return given;
}

/** Starts the sandbox DNS, the edge and the authority, and composes the domains service over them. */
export async function startLocalDomains({
  ports,
  upstream,
  platformDomain,
  dataDir,
  options,
  originHeaders,
}: StartLocalDomainsInput): Promise<LocalDomains> {
  const clock = options.clock ?? Date.now;
  const target = platformCnameTarget(platformDomain);
  const dns = await startSandboxDns({
    port: options.dnsPort ?? 0,
    ...(dataDir ? { file: path.join(dataDir, 'sandbox-dns.json') } : {}),
  });
  const closing: (() => Promise<void>)[] = [() => dns.close()];
  const close = async () => {
    for (const step of closing.reverse()) await step();
  };
  try {
    const edge = await startHttpsEdge({
      upstream,
      platformDomain,
      ...(originHeaders ? { originHeaders } : {}),
      ...(options.edgeHttpsPort === undefined ? {} : { httpsPort: options.edgeHttpsPort }),
      ...(options.edgeHttpPort === undefined ? {} : { httpPort: options.edgeHttpPort }),
    });
    closing.push(() => edge.close());
    // The shared target and every project's target under it reach the edge (`*.localhost` is
    // loopback for browsers and curl, not for resolvers).
    dns.setRecord({ name: target, type: 'A', value: edge.host });
    dns.setRecord({ name: `*.${target}`, type: 'A', value: edge.host });
    const lookup = lookupFor(options.dnsResolver, dns);
    const authority = await createLocalCertificateAuthority({
      ...(dataDir ? { dataDir } : {}),
      dns: lookup,
      target,
      httpPort: edge.httpPort,
      clock,
      ...(options.certificatePatienceMs === undefined ? {} : { patienceMs: options.certificatePatienceMs }),
    });
    const tenants = localEdgeTenants({ edge, authority });
    await giveProjectsTargets(ports.projects);
    await restoreTenants(ports.customDomains, tenants);
    const service = composeCustomDomains(
      {
        customDomains: ports.customDomains,
        projects: ports.projects,
        auditLog: ports.auditLog,
        edgeTenants: tenants,
        dns: lookup,
        clock,
      },
      { target, platformDomain },
    );
    if (options.attemptIntervalMs) {
      let running = false;
      const timer = setInterval(() => {
        if (running) return;
        running = true;
        // A try that fails is tried again at the next tick; the service shows the reason.
        void tenants
          .attemptPending()
          .catch(() => undefined)
          .finally(() => {
            running = false;
          });
      }, options.attemptIntervalMs);
      timer.unref();
      closing.push(async () => clearInterval(timer));
    }
    return { target, dns, edge, authority, tenants, service, close };
  } catch (error) {
    await close();
    throw error;
  }
}
