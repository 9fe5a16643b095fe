import type { AuditAction, AuditLog, PlatformRule } from '../core/audit';
import type { DomainRuleEvents } from '../core/custom-domains/custom-domains-ports';
import { logError } from '../shared/observability';

/**
 * The audit entries of the domains' own rules (issue 28), which no route makes: a name another
 * project took by its DNS proof is a `domain.contest` in the log of the project that lost it, and
 * a claim dropped once its window passed unverified is a `domain.release` in the log of the
 * project that held it, each by the platform acting on that rule. A contest names the domain
 * only, never the project that took it nor who acted there (that project's log has its own
 * `domain.verify`). A failure to record is logged and never fails the change, which is made.
 */
export function domainRuleAudit(auditLog: AuditLog, clock: () => number): DomainRuleEvents {
  const record = async (project: string, name: string, action: AuditAction, rule: PlatformRule) => {
    try {
      await auditLog.append({
        project,
        atMs: clock(),
        actor: { kind: 'platform', rule },
        action,
        target: name,
        outcome: { result: 'success' },
      });
    } catch (error) {
      logError('audit entry not recorded', error);
    }
  };
  return {
    contested: ({ project, name }) => record(project, name, 'domain.contest', 'dns-proof'),
    released: ({ project, name }) => record(project, name, 'domain.release', 'claim-window'),
  };
}
