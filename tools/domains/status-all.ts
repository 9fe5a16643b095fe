import type { CustomDomain } from '../../lambda/core/custom-domains/custom-domain';
import { recordChangeOf } from '../domains-import';
import type { DomainsCommandIo } from './io';
import type { DomainsValues } from './options';
import type { Platform } from './platform';
import { formatDuration, stateLabel } from './views';

/** `status --all`: every project's domains, from the tables, each imported one moved on first. */
export async function statusAll(
  io: DomainsCommandIo,
  values: DomainsValues,
  platform: Platform,
): Promise<number> {
  const now = (io.now ?? (() => new Date()))().getTime();
  const domains: CustomDomain[] = (await platform.domains.all()).sort(
    (a, b) => a.project.localeCompare(b.project) || a.name.localeCompare(b.name),
  );
  const rows = [];
  for (const stored of domains) {
    let domain = stored;
    let certificate = domain.certificate;
    // An imported domain is moved on (its tenant once its certificate is issued), and an attached
    // one's certificate asked at the edge: nobody may have listed them since.
    if (domain.migratedFrom && platform.service && !domain.attached) {
      // One domain the edge cannot answer for now keeps its stored state; the others go on.
      domain = await platform.service.advanceImport(domain).then(
        (progress) => progress.domain,
        () => domain,
      );
      certificate = domain.certificate;
    } else if (domain.migratedFrom && platform.edge && domain.certificate !== 'issued') {
      certificate = (await platform.edge.certificate(domain.name)).state;
    }
    rows.push({
      project: domain.project,
      domain: domain.name,
      role: domain.role,
      state: domain.state,
      label: stateLabel(domain),
      since: domain.since,
      for: formatDuration(now - Date.parse(domain.since)),
      certificate,
      ...(domain.migratedFrom ? { oldTarget: domain.migratedFrom } : {}),
      ...(domain.migratedFrom && domain.attached && certificate === 'issued'
        ? { recordChange: recordChangeOf(domain.migratedFrom, platform.routingEndpoint) }
        : {}),
    });
  }
  if (values.json) {
    io.out(JSON.stringify(rows));
    return 0;
  }
  if (rows.length === 0) io.out('No custom domains.');
  const width = Math.max(0, ...rows.map((row) => row.domain.length));
  const projectWidth = Math.max(0, ...rows.map((row) => row.project.length));
  for (const row of rows) {
    io.out(
      `${row.project.padEnd(projectWidth)}  ${row.domain.padEnd(width)}  ${row.role.padEnd(10)}  ${row.label}  for ${row.for}  (certificate ${row.certificate})`,
    );
    if (row.recordChange) io.out(`  migrated: now change ${row.recordChange}`);
    else if (row.oldTarget) io.out(`  migrated: keep ${row.oldTarget} until the certificate is issued`);
  }
  return 0;
}
