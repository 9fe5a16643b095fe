import { existsSync, writeFileSync } from 'node:fs';
import {
  ACMClient,
  type CertificateDetail,
  DescribeCertificateCommand,
  ListCertificatesCommand,
} from '@aws-sdk/client-acm';
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import {
  cnameTarget,
  type CustomDomainConfig,
  type DomainsConfig,
  isApex,
  isHostName,
  isWithin,
  primaryHost,
  type ProjectConfig,
  readDomainsConfig,
  tenantDnsRecord,
  validateDomainsConfig,
} from '../lib/config/domains';
import { type EnvironmentName, environmentConfigs } from '../lib/config/environments';
import { STACK_OUTPUTS } from '../lib/animal-store-stack';
import { DOMAIN_ENVIRONMENTS, domainsStackName } from '../lib/domains-stack';
import { SANDBOX_RECORDS_PATH } from '../local/console-gateway';
import { LOCAL_TABLE_NAMES, portFromEnv } from '../local/local-tables';
import { SANDBOX_RECORD_TYPES } from '../local/sandbox-dns';
import { type OptionValues, parseCommandLine, runToolMain, type ToolSpec } from './cli';
import {
  type DnsExpectation,
  type DnsLookup,
  explainVerdict,
  observe,
  parseResolverAddress,
  resolverLookup,
  type Verdict,
  verdictOf,
} from './domains-dns';
import { type DomainState, type DomainStateRecord, DomainStateStore } from './domains-store';
import { PLAN_NAMES, PLANS } from '../lambda/domain/plans';
import { ProjectRepository } from '../lambda/store/project-repository';
import { reason, Refusal, UsageError } from './failures';

export { Refusal } from './failures';
import { localStoreHelp, openLocalTable, toolStoreEndpoint } from './local-store';
import { connectStageTable, findStack, parseStage, type StageClients } from './stage';

const DEFAULT_CONFIG = 'config/domains.json';

/** Minutes after which a pending certificate gets the spec's troubleshooting steps. */
export const CERTIFICATE_PATIENCE_MINUTES = 30;

const OPTIONS = {
  config: {
    type: 'string',
    value: 'FILE',
    description: `Domains configuration (default ${DEFAULT_CONFIG}, or DOMAINS_CONFIG).`,
  },
  zone: {
    type: 'string',
    value: 'NAME',
    description: "The domain's DNS zone (default: guessed from the name).",
  },
  'hosted-zone-id': {
    type: 'string',
    value: 'ID',
    description: "The zone's Route 53 hosted zone, when it is there: the deploy then creates the records.",
  },
  redirect: {
    type: 'boolean',
    description: "Add the domain as a 301 redirect to the project's primary domain.",
  },
  resolver: {
    type: 'string',
    value: 'IP[:PORT]',
    description: "DNS server to ask, e.g. 127.0.0.1:5353 (default: the system's resolvers).",
  },
  acm: {
    type: 'boolean',
    description: "Look the certificate up in ACM (AWS credentials and region of the SDK's chain).",
  },
  json: { type: 'boolean', description: 'Print JSON instead of text.' },
  'to-primary': { type: 'boolean', description: "Redirect to the project's primary domain." },
  yes: { type: 'boolean', description: 'Remove a domain that still receives traffic.' },
  remove: { type: 'boolean', description: 'sandbox-record: remove the record(s) instead of adding one.' },
  ttl: { type: 'string', value: 'SECONDS', description: 'sandbox-record: the TTL (default 3600).' },
  stage: {
    type: 'string',
    value: 'NAME',
    description: [
      `Act on a deployed environment that has custom domains (${DOMAIN_ENVIRONMENTS.join(', ')}): the state`,
      `lives in its domains table (stack output ${STACK_OUTPUTS.domainsTable}), deployed checks the`,
      "project's stack in CloudFormation and certificates come from ACM, all with the AWS credentials",
      "and region of the SDK's default chain (AWS_PROFILE, AWS_REGION, ...). Without it, act on the",
      'local store.',
    ].join('\n'),
  },
} as const;

const VERIFY_SUMMARY = "Check the domain's DNS and print one verdict with its fix, then the certificate.";

/** The domains tool, declared once: usage, parsing and checks come from it. */
export const DOMAINS_TOOL: ToolSpec<typeof OPTIONS> = {
  name: 'domains',
  options: OPTIONS,
  global: ['config', 'stage'],
  commands: [
    {
      name: 'deployed',
      operands: ['project'],
      summary: [
        "Record the project's successful deploy (run after cdk deploy; add needs it).",
        "With --stage, only once CloudFormation shows the project's domains stack deployed.",
      ].join('\n'),
    },
    {
      name: 'add',
      operands: ['project', 'domain'],
      options: ['zone', 'hosted-zone-id', 'redirect'],
      summary: [
        'Add a custom domain (paid plans only): writes it to the configuration, records it',
        'as pending and prints the DNS record to create and the deploy command.',
      ].join('\n'),
    },
    { name: 'verify', operands: ['domain'], options: ['resolver', 'acm', 'json'], summary: VERIFY_SUMMARY },
    {
      name: 'reverify',
      operands: ['domain'],
      options: ['resolver', 'acm', 'json'],
      summary: `${VERIFY_SUMMARY}\nThe same check as verify, after a fix.`,
    },
    {
      name: 'status',
      operands: ['project?'],
      options: ['json'],
      summary: 'Every domain with its state and how long it has been in it.',
    },
    {
      name: 'redirect',
      operands: ['domain'],
      options: ['to-primary'],
      required: ['to-primary'],
      summary: "Make the domain a 301 redirect to its project's primary domain.",
    },
    { name: 'primary', operands: ['domain'], summary: "Make the domain its project's primary domain." },
    {
      name: 'remove',
      operands: ['domain'],
      options: ['yes'],
      summary: 'Remove the domain from the configuration (traffic stops on the next deploy).',
    },
    {
      name: 'sandbox-record',
      operands: ['name', 'type', 'value?'],
      options: ['remove', 'ttl'],
      summary: [
        `Local mode: add a record to the sandbox DNS zone of npm start (types ${SANDBOX_RECORD_TYPES.join(', ')}),`,
        "e.g. sandbox-record shop.example.test CNAME domains.localhost; with --remove, remove the name's",
        'records of that type (only the one with that value when given). Its port is PORT, as npm start reads it.',
      ].join('\n'),
    },
  ],
  epilogue: `${localStoreHelp([
    { variable: 'DOMAINS_TABLE_NAME', what: `Domain state table (default ${LOCAL_TABLE_NAMES.domains}).` },
  ])}

Exit codes: 0 done (verify: verified); 1 refused, failed or not verified; 2 wrong invocation.`,
};

export interface DomainsCommandIo {
  readonly out: (line: string) => void;
  /** The local store; by default where npm start runs it (DYNAMODB_PORT, DYNAMODB_ENDPOINT). */
  readonly endpoint?: string;
  readonly tableName: string;
  /** The local projects table (default: npm start's). */
  readonly projectsTableName?: string;
  readonly configPath: string;
  /** The clock (tests). */
  readonly now?: () => Date;
  /** The DNS lookup for a resolver address (tests); node:dns's Resolver by default. */
  readonly lookup?: (server: string | undefined) => DnsLookup;
  /** The ACM client (tests); a default one is made when a certificate ARN is known or --acm is given. */
  readonly acm?: ACMClient;
  /** AWS clients to use with --stage instead of the default ones (tests). */
  readonly stageClients?: StageClients;
  /** The local API's base URL for sandbox-record (tests); by default http://127.0.0.1:<PORT>. */
  readonly localApiUrl?: string;
}

/** The deployed environment a command acts on (--stage). */
interface DeployedStage {
  readonly name: EnvironmentName;
  readonly cloudFormation: CloudFormationClient;
}

interface Context {
  readonly io: DomainsCommandIo;
  readonly store: DomainStateStore;
  /** The projects table (the only place a project's plan is kept), connected on first use. */
  projects(): Promise<ProjectRepository>;
  readonly now: Date;
  readonly values: OptionValues<typeof OPTIONS>;
  /** Set with --stage; without it the tool acts on the local store. */
  readonly stage?: DeployedStage;
  acm(): ACMClient;
}

/** "3 min", "2 h 5 min", "1 d 4 h". */
export function formatDuration(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

function loadConfig(file: string): DomainsConfig {
  if (!existsSync(file)) {
    throw new Refusal(
      `No domains configuration at ${file}: copy config/domains.example.json there and set the platform's zone, or pass --config FILE.`,
    );
  }
  return readDomainsConfig(file);
}

/** Validates first, so the tool never writes a configuration that fails synth. */
function saveConfig(file: string, config: DomainsConfig): void {
  validateDomainsConfig(config, file);
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
}

function findDomain(
  context: Context,
  config: DomainsConfig,
  name: string,
): { project: ProjectConfig; domain: CustomDomainConfig } {
  for (const project of config.projects) {
    const domain = project.domains.find((d) => d.name === name);
    if (domain) return { project, domain };
  }
  throw new Refusal(
    `${name} is not in the domains configuration: add it first (${toolCommand(context, `add <project> ${name}`)}).`,
  );
}

function replaceProject(config: DomainsConfig, project: ProjectConfig): DomainsConfig {
  return { ...config, projects: config.projects.map((p) => (p.name === project.name ? project : p)) };
}

/** A command of this tool, with the current --stage, so that it acts on the same state. */
function toolCommand(context: Context, args: string): string {
  return `npm run domains -- ${args}${context.stage ? ` --stage ${context.stage.name}` : ''}`;
}

/** The project's domains stack in the environment the command acts on. */
function projectStackName(context: Context, project: string): string {
  const environment = context.stage?.name ?? DOMAIN_ENVIRONMENTS[0] ?? 'production';
  return domainsStackName(environmentConfigs()[environment], project);
}

/** Deploys the project's domains stack, then records the deploy. */
function deployCommand(context: Context, project: string): string {
  const stack = projectStackName(context, project);
  return `npx cdk deploy -c domainsConfig=${context.io.configPath} ${stack} && ${toolCommand(context, `deployed ${project}`)}`;
}

function expectationOf(config: DomainsConfig, domain: CustomDomainConfig): DnsExpectation {
  return {
    domain: domain.name,
    zone: domain.zone.name,
    apex: isApex(domain),
    target: cnameTarget(config.platform, domain.name),
  };
}

/** What the tool knows of a domain's certificate. */
interface CertificateView {
  readonly status: string;
  readonly since: Date;
  readonly source: 'acm' | 'local';
  readonly arn?: string;
  readonly reason?: string;
  readonly validationRecord?: { readonly name: string; readonly type: string; readonly value: string };
}

async function findCertificateArn(acm: ACMClient, domain: string): Promise<string | undefined> {
  let nextToken: string | undefined;
  do {
    const page = await acm.send(new ListCertificatesCommand({ NextToken: nextToken }));
    const found = page.CertificateSummaryList?.find((summary) => summary.DomainName === domain);
    if (found?.CertificateArn) return found.CertificateArn;
    nextToken = page.NextToken;
  } while (nextToken);
  return undefined;
}

function fromAcm(
  detail: CertificateDetail | undefined,
  arn: string,
  domain: string,
  now: Date,
): CertificateView {
  const validation = detail?.DomainValidationOptions?.find(
    (option) => option.DomainName === domain,
  )?.ResourceRecord;
  return {
    status: detail?.Status ?? 'UNKNOWN',
    since: detail?.CreatedAt ?? now,
    source: 'acm',
    arn,
    reason: detail?.FailureReason,
    validationRecord:
      validation?.Name && validation.Type && validation.Value
        ? { name: validation.Name, type: validation.Type, value: validation.Value }
        : undefined,
  };
}

/** Whether certificates are looked up in ACM: asked for with --acm, and always for a deployed stage. */
function lookUpCertificates(context: Context): boolean {
  return Boolean(context.values.acm) || context.stage !== undefined;
}

/**
 * The certificate's state: from ACM when its ARN is known (or found with --acm or --stage);
 * in local mode, where there is no certificate authority, a verified domain counts as issued.
 */
async function certificateOf(
  context: Context,
  record: DomainStateRecord,
): Promise<CertificateView | undefined> {
  try {
    const arn =
      record.certificateArn ??
      (lookUpCertificates(context) ? await findCertificateArn(context.acm(), record.id) : undefined);
    if (arn) {
      const { Certificate } = await context
        .acm()
        .send(new DescribeCertificateCommand({ CertificateArn: arn }));
      return fromAcm(Certificate, arn, record.id, context.now);
    }
  } catch (error) {
    throw new Error(
      `Could not look up the certificate of ${record.id} in ACM (AWS credentials and region of the SDK's default chain: AWS_PROFILE, AWS_REGION, ...): ${reason(error)}`,
    );
  }
  if (lookUpCertificates(context)) return undefined;
  return { status: 'ISSUED', since: context.now, source: 'local' };
}

const FAILURE_REASONS = {
  'conflicting-record': 'a conflicting A/AAAA record blocks the CNAME',
  'cname-mismatch': 'the CNAME points elsewhere',
  'caa-blocks': 'CAA records forbid Amazon',
  'apex-mismatch': "the apex's addresses differ from the target's",
} as const;

function stateAfter(verdict: Verdict, certificate: CertificateView | undefined, previous: DomainState) {
  if (verdict.kind === 'not-found') {
    return previous === 'active'
      ? { state: 'failed' as const, reason: 'DNS record no longer found' }
      : { state: 'pending-dns' as const };
  }
  if (verdict.kind !== 'verified') return { state: 'failed' as const, reason: FAILURE_REASONS[verdict.kind] };
  if (!certificate) return { state: 'verified' as const };
  if (certificate.status === 'ISSUED') return { state: 'active' as const };
  if (certificate.status === 'PENDING_VALIDATION') return { state: 'certificate-pending' as const };
  return {
    state: 'failed' as const,
    reason: `certificate ${certificate.status}${certificate.reason ? ` (${certificate.reason})` : ''}`,
  };
}

function troubleshooting(
  context: Context,
  domain: string,
  pendingMinutes: number,
  certificate: CertificateView,
): string[] {
  return [
    `The certificate has been pending for ${pendingMinutes} minutes (more than ${CERTIFICATE_PATIENCE_MINUTES}):`,
    `  1. Confirm that the domain still verifies (above: it does).`,
    `  2. Check that CAA records do not block the certificate authority: they must allow Amazon (0 issue "amazon.com").`,
    ...(certificate.validationRecord
      ? [
          `     Where DNS is outside Route 53, the certificate's validation record must exist too: ` +
            `${certificate.validationRecord.name} ${certificate.validationRecord.type} ${certificate.validationRecord.value} (TTL 3600).`,
        ]
      : []),
    `  3. Re-verify: ${toolCommand(context, `reverify ${domain}`)}`,
  ];
}

async function verify(context: Context, name: string, again: boolean): Promise<number> {
  const { io, store, now, values } = context;
  const config = loadConfig(io.configPath);
  const { project, domain } = findDomain(context, config, name);
  const expectation = expectationOf(config, domain);
  const lookup = (io.lookup ?? resolverLookup)(values.resolver);
  const verdict = verdictOf(expectation, await observe(lookup, expectation));
  const { summary, fix } = explainVerdict(expectation, verdict);

  const previous: DomainStateRecord = (await store.get(name)) ?? {
    id: name,
    project: project.name,
    state: 'pending-dns',
    since: now.toISOString(),
  };
  const certificate = verdict.kind === 'verified' ? await certificateOf(context, previous) : undefined;
  const next = stateAfter(verdict, certificate, previous.state);
  const unchanged = next.state === previous.state && next.reason === previous.reason;
  const since =
    next.state === 'certificate-pending' && certificate?.source === 'acm'
      ? certificate.since.toISOString()
      : unchanged
        ? previous.since
        : now.toISOString();
  const record: DomainStateRecord = {
    id: name,
    project: project.name,
    state: next.state,
    since,
    reason: next.reason,
    certificateArn: certificate?.arn ?? previous.certificateArn,
  };
  await store.put(record);

  const pendingMinutes =
    next.state === 'certificate-pending' ? Math.floor((now.getTime() - Date.parse(since)) / 60_000) : 0;
  const advice =
    certificate && pendingMinutes > CERTIFICATE_PATIENCE_MINUTES
      ? troubleshooting(context, name, pendingMinutes, certificate)
      : [];

  if (values.json) {
    io.out(
      JSON.stringify({
        domain: name,
        project: project.name,
        role: domain.role,
        verdict,
        summary,
        fix,
        certificate: certificate
          ? {
              status: certificate.status,
              source: certificate.source,
              arn: certificate.arn,
              since: certificate.since.toISOString(),
              validationRecord: certificate.validationRecord,
            }
          : null,
        state: record.state,
        reason: record.reason,
        troubleshooting: advice,
      }),
    );
  } else {
    io.out(`${again ? 'Re-verifying' : 'Verifying'} ${name} (project ${project.name}, ${domain.role}).`);
    io.out(summary);
    if (verdict.kind !== 'verified') io.out(`Fix: ${fix}`);
    if (certificate) io.out(describeCertificate(certificate, pendingMinutes));
    else if (verdict.kind === 'verified') {
      io.out(`Certificate: none in ACM yet for ${name}: deploy (${deployCommand(context, project.name)}).`);
    }
    for (const line of advice) io.out(line);
    io.out(`State: ${stateLabel(config, record, domain)}.`);
  }
  return verdict.kind === 'verified' ? 0 : 1;
}

function describeCertificate(certificate: CertificateView, pendingMinutes: number): string {
  if (certificate.source === 'local') {
    return 'Certificate: issued (local mode has no certificate authority: a verified domain counts as issued).';
  }
  const validation = certificate.validationRecord
    ? ` Its validation record (add it where DNS is outside Route 53): ${certificate.validationRecord.name} ${certificate.validationRecord.type} ${certificate.validationRecord.value} TTL 3600.`
    : '';
  switch (certificate.status) {
    case 'ISSUED':
      return `Certificate: issued (${certificate.arn}).`;
    case 'PENDING_VALIDATION':
      return `Certificate: pending validation for ${pendingMinutes} min (${certificate.arn}); usually issued within a couple of minutes.${validation}`;
    default:
      return `Certificate: ${certificate.status}${certificate.reason ? ` (${certificate.reason})` : ''} (${certificate.arn}).`;
  }
}

function stateLabel(
  config: DomainsConfig,
  record: DomainStateRecord | undefined,
  domain: CustomDomainConfig,
): string {
  if (!record) return 'pending DNS (no state yet: run verify)';
  switch (record.state) {
    case 'pending-dns':
      return 'pending DNS';
    case 'verified':
      return 'verified (certificate not requested yet: deploy)';
    case 'certificate-pending':
      return 'certificate pending';
    case 'active': {
      if (domain.role !== 'redirect') return 'active';
      const project = config.projects.find((p) => p.domains.includes(domain));
      return `redirect (301 to ${project ? primaryHost(config.platform, project) : 'the primary'})`;
    }
    case 'failed':
      return `failed: ${record.reason ?? 'unknown'}`;
  }
}

async function status(context: Context, projectName: string | undefined): Promise<void> {
  const { io, store, now, values } = context;
  const config = loadConfig(io.configPath);
  const projects = projectName ? config.projects.filter((p) => p.name === projectName) : config.projects;
  if (projectName && projects.length === 0)
    throw new Refusal(`No project ${JSON.stringify(projectName)} in ${io.configPath}.`);
  const records = await store.all();
  const plans = new Map<string, string>();
  const projectsTable = projects.length > 0 ? await context.projects() : undefined;
  for (const project of projects) {
    plans.set(project.name, (await projectsTable?.get(project.name))?.plan ?? 'none');
  }
  const rows = projects.flatMap((project) =>
    project.domains.map((domain) => {
      const record = records.get(domain.name);
      return {
        project: project.name,
        plan: plans.get(project.name),
        domain: domain.name,
        role: domain.role,
        state: record?.state ?? 'pending-dns',
        label: stateLabel(config, record, domain),
        since: record?.since,
        for: record ? formatDuration(now.getTime() - Date.parse(record.since)) : undefined,
      };
    }),
  );
  if (values.json) {
    io.out(JSON.stringify(rows));
    return;
  }
  if (rows.length === 0) {
    io.out(projectName ? `Project ${projectName} has no custom domains.` : 'No custom domains.');
    return;
  }
  const width = Math.max(...rows.map((row) => row.domain.length));
  const projectWidth = Math.max(...rows.map((row) => row.project.length));
  const labelWidth = Math.max(...rows.map((row) => row.label.length));
  for (const row of rows) {
    const duration = row.for ? `  for ${row.for}` : '';
    io.out(
      `${row.project.padEnd(projectWidth)}  ${row.domain.padEnd(width)}  ${row.role.padEnd(10)}  ${row.label.padEnd(labelWidth)}${duration}`,
    );
  }
}

function guessZone(
  project: ProjectConfig,
  name: string,
  zone: string | undefined,
  hostedZoneId: string | undefined,
) {
  if (zone !== undefined) {
    const known = project.domains.find((d) => d.zone.name === zone)?.zone;
    return { name: zone, hostedZoneId: hostedZoneId ?? known?.hostedZoneId };
  }
  const known = project.domains.map((d) => d.zone).find((z) => isWithin(name, z.name));
  if (known) return { name: known.name, hostedZoneId: hostedZoneId ?? known.hostedZoneId };
  const labels = name.split('.');
  return { name: labels.length <= 2 ? name : labels.slice(1).join('.'), hostedZoneId };
}

async function add(context: Context, projectName: string, name: string): Promise<void> {
  const { io, store, now, values } = context;
  if (!isHostName(name)) {
    throw new UsageError(
      `${JSON.stringify(name)} is not a domain name: use lower case without a trailing dot, e.g. shop.example.com.`,
    );
  }
  const config = loadConfig(io.configPath);
  const project = config.projects.find((p) => p.name === projectName);
  if (!project)
    throw new Refusal(
      `No project ${JSON.stringify(projectName)} in ${io.configPath}: the platform engineer adds projects there.`,
    );
  const stored = await (await context.projects()).get(projectName);
  if (!stored) {
    throw new Refusal(
      `Project ${projectName} is not in the projects table: create it first (npm run projects -- create ${projectName}${context.stage ? ` --stage ${context.stage.name}` : ''}).`,
    );
  }
  if (!PLANS[stored.plan].customDomains) {
    const paid = PLAN_NAMES.filter((plan) => PLANS[plan].customDomains);
    throw new Refusal(
      `Project ${projectName} is on the ${stored.plan} plan: custom domains need a paid plan (${paid.join(', ')}). Upgrade it (npm run projects -- set-plan ${projectName} <plan>) and try again.`,
    );
  }
  if (!(await store.deployOf(projectName))) {
    throw new Refusal(
      `Project ${projectName} has no successful deploy yet: deploy it first (${deployCommand(context, projectName)}).`,
    );
  }
  const existing = config.projects.find((p) => p.domains.some((d) => d.name === name));
  if (existing) throw new Refusal(`${name} is already a domain of project ${existing.name}.`);

  const hasPrimary = project.domains.some((d) => d.role === 'primary');
  const domain: CustomDomainConfig = {
    name,
    role: values.redirect ? 'redirect' : hasPrimary ? 'additional' : 'primary',
    zone: guessZone(project, name, values.zone, values['hosted-zone-id']),
  };
  if (domain.role === 'redirect' && !hasPrimary) {
    throw new Refusal(
      `Project ${projectName} has no primary domain to redirect to: add the primary domain first.`,
    );
  }
  saveConfig(io.configPath, replaceProject(config, { ...project, domains: [...project.domains, domain] }));
  await store.put({ id: name, project: projectName, state: 'pending-dns', since: now.toISOString() });

  const record = tenantDnsRecord(config.platform, domain);
  io.out(
    `Added ${name} to project ${projectName} as ${domain.role} (zone ${domain.zone.name}); state: pending DNS.`,
  );
  if (domain.zone.hostedZoneId) {
    io.out(
      `The zone is in Route 53 (${domain.zone.hostedZoneId}): the deploy creates this record and validates the certificate:`,
    );
  } else {
    io.out(`Create this record at the DNS provider of ${domain.zone.name}:`);
  }
  io.out(`  Name   ${record.name}`);
  io.out(
    `  Type   ${record.type === 'CNAME' ? 'CNAME' : 'ALIAS (or ANAME, whichever your provider offers)'}`,
  );
  io.out(`  Value  ${record.value}`);
  io.out(`  TTL    ${record.ttl}`);
  if (!domain.zone.hostedZoneId) {
    io.out(
      `The deploy then waits for the certificate's validation record (a CNAME from ACM): ${toolCommand(context, `verify ${name} --acm`)} prints it.`,
    );
  }
  io.out(`Deploy: ${deployCommand(context, projectName)}`);
  io.out(`Then: ${toolCommand(context, `verify ${name}`)}`);
}

async function remove(context: Context, name: string): Promise<void> {
  const { io, store, values } = context;
  const config = loadConfig(io.configPath);
  const { project, domain } = findDomain(context, config, name);
  if (domain.role === 'primary' && project.domains.length > 1) {
    const other = project.domains.find((d) => d !== domain)?.name ?? '<domain>';
    throw new Refusal(
      `${name} is the primary domain of project ${project.name}: make another one primary first (${toolCommand(context, `primary ${other}`)}).`,
    );
  }
  const record = await store.get(name);
  const receivesTraffic = record?.state === 'active' || record?.state === 'certificate-pending';
  if (receivesTraffic && domain.role !== 'redirect' && !values.yes) {
    throw new Refusal(
      [
        `Warning: ${name} still receives traffic and no redirect covers it: traffic to it stops immediately on the next deploy.`,
        `If its URL is shared, make it a redirect first (${toolCommand(context, `redirect ${name} --to-primary`)}), deploy, and remove it later.`,
        `To remove it anyway: ${toolCommand(context, `remove ${name} --yes`)}`,
      ].join('\n'),
    );
  }
  saveConfig(
    io.configPath,
    replaceProject(config, { ...project, domains: project.domains.filter((d) => d !== domain) }),
  );
  await store.delete(name);
  io.out(
    `Removed ${name} from project ${project.name}. Deploy to delete its certificate, custom domain and records:`,
  );
  io.out(`  ${deployCommand(context, project.name)}`);
  if (!domain.zone.hostedZoneId)
    io.out(`Then delete its records at the DNS provider of ${domain.zone.name}.`);
}

async function setRole(context: Context, name: string, role: 'primary' | 'redirect'): Promise<void> {
  const { io } = context;
  const config = loadConfig(io.configPath);
  const { project, domain } = findDomain(context, config, name);
  if (domain.role === role) {
    io.out(
      `${name} is already ${role === 'primary' ? 'the primary domain' : 'a redirect'} of project ${project.name}.`,
    );
    return;
  }
  if (role === 'redirect' && domain.role === 'primary') {
    throw new Refusal(
      `${name} is the primary domain: make another domain primary first (${toolCommand(context, 'primary <domain>')}).`,
    );
  }
  const domains = project.domains.map((d): CustomDomainConfig => {
    if (d === domain) return { ...d, role };
    if (role === 'primary' && d.role === 'primary') return { ...d, role: 'additional' };
    return d;
  });
  const updated = { ...project, domains };
  saveConfig(io.configPath, replaceProject(config, updated));
  if (role === 'primary') {
    const former = project.domains.find((d) => d.role === 'primary');
    io.out(
      `${name} is now the primary domain of project ${project.name}${former ? `; ${former.name} is additional` : ''}.`,
    );
  } else {
    io.out(
      `${name} now answers 301 to https://${primaryHost(config.platform, updated)} (same path and query).`,
    );
  }
  io.out(`Deploy: ${deployCommand(context, project.name)}`);
}

async function recordDeployed(context: Context, projectName: string): Promise<void> {
  const { io, store, now } = context;
  const config = loadConfig(io.configPath);
  if (!config.projects.some((p) => p.name === projectName)) {
    throw new Refusal(`No project ${JSON.stringify(projectName)} in ${io.configPath}.`);
  }
  if (context.stage) await requireDeployedStack(context, context.stage, projectName);
  const record = await store.recordDeploy(projectName, now);
  io.out(`Project ${projectName}: first successful deploy recorded at ${record.deployedAt}.`);
}

/**
 * A stack is deployed when its last operation completed and left it in place:
 * CREATE_COMPLETE, UPDATE_COMPLETE, or an update rolled back to the previous deploy.
 * ROLLBACK_COMPLETE is a failed first deploy: nothing of it serves traffic.
 */
function isDeployedStackStatus(status: string): boolean {
  return status.endsWith('_COMPLETE') && status !== 'ROLLBACK_COMPLETE' && status !== 'DELETE_COMPLETE';
}

function whyNotDeployed(status: string): string {
  if (status === 'ROLLBACK_COMPLETE') return 'its first deploy failed and was rolled back (see its events)';
  if (status === 'DELETE_COMPLETE') return 'it was deleted';
  if (status.endsWith('_IN_PROGRESS')) return 'an operation on it has not finished: wait for it to end';
  if (status.endsWith('_FAILED')) return 'its last operation failed (see its events)';
  return 'it is not in a completed state';
}

/** Refuses unless CloudFormation shows the project's domains stack deployed in the stage. */
async function requireDeployedStack(context: Context, stage: DeployedStage, project: string): Promise<void> {
  const stackName = projectStackName(context, project);
  const stack = await findStack(stage.cloudFormation, stackName);
  const deploy = deployCommand(context, project);
  if (!stack) {
    throw new Refusal(
      `Stack ${stackName} does not exist in this account and region, so project ${project} has no successful deploy in ${stage.name}: deploy it first (${deploy}), or set AWS_REGION / AWS_PROFILE to where it is.`,
    );
  }
  const status = stack.StackStatus ?? 'UNKNOWN';
  if (!isDeployedStackStatus(status)) {
    throw new Refusal(
      `Stack ${stackName} is ${status}, not deployed: ${whyNotDeployed(status)}. Deploy it, then record the deploy: ${deploy}`,
    );
  }
}

interface Connection {
  readonly store: DomainStateStore;
  projects(): Promise<ProjectRepository>;
  readonly stage?: DeployedStage;
  close(): void;
}

/** The store of the domain state and the projects: the deployed tables of --stage, or the local ones. */
async function connect(io: DomainsCommandIo, stage: EnvironmentName | undefined): Promise<Connection> {
  if (stage) {
    const table = await connectStageTable(stage, STACK_OUTPUTS.domainsTable, io.stageClients);
    let projects: Promise<ProjectRepository> | undefined;
    return {
      store: new DomainStateStore(table.documents, table.tableName),
      projects: () => {
        projects ??= connectStageTable(stage, STACK_OUTPUTS.projectsTable, {
          ...io.stageClients,
          cloudFormation: table.cloudFormation,
          documents: table.documents,
        }).then((found) => new ProjectRepository(table.documents, found.tableName));
        return projects;
      },
      stage: { name: stage, cloudFormation: table.cloudFormation },
      close: () => table.close(),
    };
  }
  const endpoint = io.endpoint ?? toolStoreEndpoint();
  const documents = await openLocalTable(endpoint, {
    tableName: io.tableName,
    variable: 'DOMAINS_TABLE_NAME',
  });
  const projectsTable = io.projectsTableName ?? LOCAL_TABLE_NAMES.projects;
  return {
    store: new DomainStateStore(documents, io.tableName),
    projects: async () => new ProjectRepository(documents, projectsTable),
    close: () => documents.destroy(),
  };
}

/** `sandbox-record`: adds or removes a record in the sandbox DNS of the running local mode. */
async function sandboxRecord(
  io: DomainsCommandIo,
  [name = '', rawType = '', value]: readonly string[],
  values: OptionValues<typeof OPTIONS>,
): Promise<number> {
  const type = rawType.toUpperCase();
  if (!(SANDBOX_RECORD_TYPES as readonly string[]).includes(type)) {
    throw new UsageError(
      `Record type ${JSON.stringify(rawType)}: use one of ${SANDBOX_RECORD_TYPES.join(', ')}.`,
    );
  }
  if (!values.remove && value === undefined) {
    throw new UsageError(`Give the record's value, e.g. sandbox-record ${name} ${type} domains.localhost.`);
  }
  const ttl = values.ttl === undefined ? undefined : Number(values.ttl);
  if (ttl !== undefined && !(Number.isInteger(ttl) && ttl >= 0)) {
    throw new UsageError(`--ttl ${values.ttl}: give a whole number of seconds.`);
  }
  let base = io.localApiUrl;
  if (base === undefined) {
    try {
      base = `http://127.0.0.1:${portFromEnv('PORT', 3000)}`;
    } catch (error) {
      throw new UsageError(reason(error));
    }
  }
  const url = new URL(SANDBOX_RECORDS_PATH, base);
  let response: Response;
  try {
    if (values.remove) {
      url.search = new URLSearchParams({ name, type, ...(value === undefined ? {} : { value }) }).toString();
      response = await fetch(url, { method: 'DELETE' });
    } else {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, type, value, ...(ttl === undefined ? {} : { ttl }) }),
      });
    }
  } catch {
    throw new Refusal(
      `No local mode answers at ${base}: start it with npm start (and set PORT to its port).`,
    );
  }
  const body = (await response.json().catch(() => ({}))) as {
    message?: string;
    removed?: number;
    name?: string;
    type?: string;
    value?: string;
    ttl?: number;
  };
  if (!response.ok) {
    throw new Refusal(body.message ?? `The sandbox DNS at ${base} answered ${response.status}.`);
  }
  io.out(
    values.remove
      ? `Sandbox DNS: removed ${body.removed ?? 0} ${type} record${body.removed === 1 ? '' : 's'} of ${name}.`
      : `Sandbox DNS: ${body.name} ${body.type} ${body.value} (TTL ${body.ttl}).`,
  );
  return 0;
}

/** The --stage value, refused before any AWS call when that environment has no custom domains. */
function parseDomainsStage(value: string | undefined): EnvironmentName | undefined {
  if (value === undefined) return undefined;
  const stage = parseStage(value);
  if (!DOMAIN_ENVIRONMENTS.includes(stage)) {
    throw new UsageError(
      `Stage ${stage} has no custom domains, so no domains table: they are deployed in ${DOMAIN_ENVIRONMENTS.join(', ')} only (DOMAIN_ENVIRONMENTS in lib/domains-stack.ts). Use --stage ${DOMAIN_ENVIRONMENTS.join(' or --stage ')}, or no --stage for the local store.`,
    );
  }
  return stage;
}

/** Runs one domains command; resolves to the exit code (verify: 0 verified, 1 not). */
export async function runDomainsCommand(argv: readonly string[], io: DomainsCommandIo): Promise<number> {
  const line = parseCommandLine(DOMAINS_TOOL, argv);
  if (line.help !== undefined) {
    io.out(line.help);
    return 0;
  }
  const { command, values, operands } = line;
  const resolvedIo: DomainsCommandIo = { ...io, configPath: values.config ?? io.configPath };
  // Every usage check comes before any connection, so a typo costs no AWS call.
  const stage = parseDomainsStage(values.stage);
  if (values.resolver !== undefined) parseResolverAddress(values.resolver);
  if (command === 'sandbox-record') {
    if (stage)
      throw new UsageError('sandbox-record acts on the sandbox DNS of npm start: it takes no --stage.');
    return sandboxRecord(resolvedIo, operands, values);
  }

  let run: (context: Context) => Promise<number | void>;
  switch (command) {
    case 'deployed': {
      const [project = ''] = operands;
      run = (context) => recordDeployed(context, project);
      break;
    }
    case 'add': {
      const [project = '', domain = ''] = operands;
      run = (context) => add(context, project, domain);
      break;
    }
    case 'verify':
    case 'reverify': {
      const [domain = ''] = operands;
      run = (context) => verify(context, domain, command === 'reverify');
      break;
    }
    case 'status': {
      const [project] = operands;
      run = (context) => status(context, project);
      break;
    }
    case 'remove': {
      const [domain = ''] = operands;
      run = (context) => remove(context, domain);
      break;
    }
    case 'redirect': {
      const [domain = ''] = operands;
      run = (context) => setRole(context, domain, 'redirect');
      break;
    }
    case 'primary': {
      const [domain = ''] = operands;
      run = (context) => setRole(context, domain, 'primary');
      break;
    }
    default:
      throw new Error(`Command ${command} is declared but not implemented.`);
  }

  const connection = await connect(resolvedIo, stage);
  let madeAcm: ACMClient | undefined;
  try {
    const context: Context = {
      io: resolvedIo,
      store: connection.store,
      projects: connection.projects,
      stage: connection.stage,
      now: (io.now ?? (() => new Date()))(),
      values,
      acm: () => {
        if (io.acm) return io.acm;
        madeAcm ??= new ACMClient({});
        return madeAcm;
      },
    };
    return (await run(context)) ?? 0;
  } finally {
    madeAcm?.destroy();
    connection.close();
  }
}

if (require.main === module) {
  runToolMain(DOMAINS_TOOL, (argv) =>
    runDomainsCommand(argv, {
      out: (line) => process.stdout.write(`${line}\n`),
      tableName: process.env.DOMAINS_TABLE_NAME || LOCAL_TABLE_NAMES.domains,
      configPath: process.env.DOMAINS_CONFIG || DEFAULT_CONFIG,
    }),
  );
}
