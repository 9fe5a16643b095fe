import { CustomDomains } from '../core/custom-domains/custom-domains';
import { domainRuleAudit } from '../operations/domain-rule-audit';
import type { ServicePorts } from './ports';

export interface CustomDomainsSettings {
  /** The shared target, `domains.<platform domain>` (projects' own targets are names under it). */
  readonly target: string;
  /** The platform's own domain: names under it are refused. */
  readonly platformDomain: string;
}

/**
 * The domains service over the custom domains table, the edge's tenants, DNS and the projects
 * (their targets); what its own rules do to a project's domain (a contest, a release) goes to
 * that project's audit log, as the platform's.
 */
export function composeCustomDomains(
  ports: Pick<ServicePorts, 'customDomains' | 'edgeTenants' | 'dns' | 'projects' | 'clock' | 'auditLog'>,
  settings: CustomDomainsSettings,
): CustomDomains {
  return new CustomDomains({
    store: ports.customDomains,
    edge: ports.edgeTenants,
    dns: ports.dns,
    projects: ports.projects,
    clock: ports.clock,
    target: settings.target,
    platformDomain: settings.platformDomain,
    ruleEvents: domainRuleAudit(ports.auditLog, ports.clock),
  });
}
