/* eslint-disable max-lines -- kept whole until issue 23 splits it along its seam: the command table, as data, apart from each command's gather, diagnose and render. */
import { ACMClient } from '@aws-sdk/client-acm';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CONFIRM_PARAMETER, CONSOLE_API_PREFIX } from '../lambda/api/console-routes';
import type { CustomDomain, DomainView } from '../lambda/domain/custom-domain';
import { CustomDomains, REMOVE_CONFIRMATION } from '../lambda/domain/custom-domains';
import type { EdgeTenants } from '../lambda/domain/edge-tenants';
import { newTargetId } from '../lambda/domain/project-target';
import { AcmCertificates } from '../lambda/store/acm-certificates';
import { CloudFrontEdgeTenants } from '../lambda/store/cloudfront-edge-tenants';
import { CustomDomainRepository } from '../lambda/store/custom-domain-repository';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { ProjectRepository } from '../lambda/store/project-repository';
import { STACK_OUTPUTS } from '../lib/animal-store-stack';
import { platformCnameTarget } from '../lib/config/platform';
import { type EnvironmentName, environmentConfigs } from '../lib/config/environments';
import { EDGE_OUTPUTS, EDGE_STACK_NAME } from '../lib/edge-stack';
import { SANDBOX_RECORDS_PATH } from '../local/console-gateway';
import { LOCAL_TABLE_NAMES, portFromEnv } from '../local/local-tables';
import { SANDBOX_RECORD_TYPES } from '../local/sandbox-dns';
import { LOCAL_PLATFORM_DOMAIN } from '../local/server';
import { type OptionValues, parseCommandLine, runToolMain, type ToolSpec } from './cli';
import { explainVerdict, observe, parseResolverAddress, resolverLookup, verdictOf } from './domains-dns';
import { describeImport, importDomains, readOldDomainsConfig, recordChangeOf } from './domains-import';
import { reason, Refusal, UsageError } from './failures';
import { localStoreHelp, openLocalTable, toolStoreEndpoint } from './local-store';
import { findStack, parseStage, type StageClients } from './stage';

export { Refusal } from './failures';

/**
 * `npm run domains`: a tenant's custom domains, for one project, as a thin client of the
 * domains service (the console's API): local mode's by default, a deployed one with --url.
 * The project is the one whose console token is in ANIMAL_STORE_CONSOLE_TOKEN. `import` and
 * `status --all` are the platform engineer's: they act on the tables directly.
 */

/** The variable holding the project's console token (never an argument: it would land in shell history). */
export const CONSOLE_TOKEN_VARIABLE = 'ANIMAL_STORE_CONSOLE_TOKEN';

const OPTIONS = {
  url: {
    type: 'string',
    value: 'URL',
    description: `The console API's base, e.g. https://console.example.com${CONSOLE_API_PREFIX} (default: local mode's, http://127.0.0.1:<PORT>${CONSOLE_API_PREFIX}).`,
  },
  redirect: { type: 'boolean', description: "add: a 301 redirect to the project's primary domain." },
  resolver: {
    type: 'string',
    value: 'IP[:PORT]',
    description: [
      'verify: first ask this DNS server too, and print what it sees (the service asks its own:',
      "DNS_RESOLVER of npm start, the sandbox by default). e.g. 127.0.0.1:3053, the sandbox's.",
      "import: where to look for the certificates' validation records (default: the system's).",
    ].join('\n'),
  },
  json: { type: 'boolean', description: 'Print JSON instead of text.' },
  'to-primary': { type: 'boolean', description: "Redirect to the project's primary domain." },
  yes: { type: 'boolean', description: 'remove: confirm that traffic to a domain that has served it stops.' },
  remove: { type: 'boolean', description: 'sandbox-record: remove the record(s) instead of adding one.' },
  ttl: { type: 'string', value: 'SECONDS', description: 'sandbox-record: the TTL (default 3600).' },
  all: {
    type: 'boolean',
    description: "status: every project's domains, from the tables (platform engineers).",
  },
  stage: {
    type: 'string',
    value: 'NAME',
    description: [
      'import, status --all: act on a deployed environment: its CustomDomains and projects tables',
      `(stack outputs ${STACK_OUTPUTS.customDomainsTable}, ${STACK_OUTPUTS.projectsTable}) and the edge of`,
      `${EDGE_STACK_NAME} in us-east-1, with the AWS credentials of the SDK's default chain.`,
      'Without it, the local store of npm start.',
    ].join('\n'),
  },
} as const;

const VERIFY_SUMMARY =
  'Check the DNS record (the service prints one verdict and its fix), then the certificate.';

export const DOMAINS_TOOL: ToolSpec<typeof OPTIONS> = {
  name: 'domains',
  options: OPTIONS,
  global: ['url'],
  commands: [
    {
      name: 'add',
      operands: ['domain'],
      options: ['redirect', 'json'],
      summary: 'Add a custom domain (paid plans): prints the one DNS record to create.',
    },
    { name: 'verify', operands: ['domain'], options: ['resolver', 'json'], summary: VERIFY_SUMMARY },
    {
      name: 'reverify',
      operands: ['domain'],
      options: ['resolver', 'json'],
      summary: `${VERIFY_SUMMARY}\nThe same as verify, after a fix; a certificate that timed out is requested again.`,
    },
    {
      name: 'status',
      options: ['json', 'all', 'stage'],
      summary: [
        "The project's domains: state, for how long, the record to create, the certificate.",
        "With --all: every project's, from the tables, with each imported domain's record change",
        'once its certificate is issued (platform engineers).',
      ].join('\n'),
    },
    {
      name: 'redirect',
      operands: ['domain'],
      options: ['to-primary', 'json'],
      required: ['to-primary'],
      summary: "Make the domain a 301 redirect to the project's primary domain.",
    },
    {
      name: 'primary',
      operands: ['domain'],
      options: ['json'],
      summary: "Make the domain the project's primary domain.",
    },
    {
      name: 'remove',
      operands: ['domain'],
      options: ['yes', 'json'],
      summary: 'Remove the domain: the host is refused at once.',
    },
    {
      name: 'sandbox-record',
      operands: ['name', 'type', 'value?'],
      options: ['remove', 'ttl'],
      summary: [
        `Local mode: add a record to the sandbox DNS zone of npm start (types ${SANDBOX_RECORD_TYPES.join(', ')}),`,
        "e.g. sandbox-record shop.example.test CNAME domains.localhost; with --remove, remove the name's",
        'records of that type (only the one with that value when given). Its port is PORT, as npm start reads it.',
        `As the project of ${CONSOLE_TOKEN_VARIABLE}, in zones no other project holds records in.`,
      ].join('\n'),
    },
    {
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
    },
  ],
  epilogue: `Environment:
  ${CONSOLE_TOKEN_VARIABLE}  The project's console token (pct_…), which says which project the
      tool acts for. Never an argument: arguments land in shell history and process lists.
  PORT  Local mode's API port (default 3000), as npm start reads it.
${localStoreHelp([])}
Exit codes: 0 done (verify: verified); 1 refused, failed or not verified; 2 wrong invocation.`,
};

export interface DomainsCommandIo {
  readonly out: (line: string) => void;
  /** The environment (the console token, PORT); process.env by default. */
  readonly env?: NodeJS.ProcessEnv;
  /** The local API's base URL (tests); by default http://127.0.0.1:<PORT>. */
  readonly localApiUrl?: string;
  /** The local store (import, status --all); by default npm start's. */
  readonly endpoint?: string;
  /** The clock (tests). */
  readonly now?: () => Date;
  /** AWS clients to use with --stage (tests). */
  readonly stageClients?: StageClients & {
    readonly edgeCloudFormation?: CloudFormationClient;
    readonly cloudFront?: CloudFrontClient;
    readonly acm?: ACMClient;
  };
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

function localBase(io: DomainsCommandIo): string {
  if (io.localApiUrl !== undefined) return io.localApiUrl;
  try {
    return `http://127.0.0.1:${portFromEnv('PORT', 3000, io.env ?? process.env)}`;
  } catch (error) {
    throw new UsageError(reason(error));
  }
}

/** The console API's base: --url, or local mode's. */
function consoleBase(io: DomainsCommandIo, url: string | undefined): string {
  if (url === undefined) return `${localBase(io)}${CONSOLE_API_PREFIX}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(
      `--url ${url}: give the console API's base URL, e.g. https://console.example.com${CONSOLE_API_PREFIX}.`,
    );
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new UsageError(`--url ${url}: give an http(s) URL.`);
  }
  return url.replace(/\/+$/, '');
}

interface ServiceAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** One call of the domains service, as the project of the console token; a non-2xx is a Refusal with the service's message. */
async function call(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  let answer: ServiceAnswer;
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      parsed = {};
    }
    answer = { status: response.status, body: parsed };
  } catch {
    throw new Refusal(
      `No domains service answers at ${base}: start local mode (npm start, and set PORT to its port), or give --url.`,
    );
  }
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  const message = typeof answer.body.message === 'string' ? answer.body.message : `HTTP ${answer.status}`;
  const hint =
    answer.status === 401
      ? ` Check ${CONSOLE_TOKEN_VARIABLE}: it holds the project's console token (pct_…).`
      : '';
  throw new Refusal(`${message}${hint}`);
}

const STATE_LABELS: Record<DomainView['state'], string> = {
  'pending-dns': 'pending DNS',
  verified: 'verified',
  'certificate-pending': 'certificate pending',
  active: 'active',
  redirect: 'redirect (301 to the primary)',
  failed: 'failed',
};

function stateLabel(view: Pick<DomainView, 'state' | 'reason'>): string {
  return view.state === 'failed' ? `failed: ${view.reason ?? 'unknown'}` : STATE_LABELS[view.state];
}

function recordLines(view: DomainView): string[] {
  const { record } = view;
  return [
    `Create this record at the DNS provider of ${record.zone}:`,
    `  Name   ${record.name}`,
    `  Type   ${record.type === 'CNAME' ? 'CNAME' : 'ALIAS (or ANAME, whichever your provider offers)'}`,
    `  Value  ${record.value}`,
    `  TTL    ${record.ttl}`,
    ...(view.ownershipRecord
      ? [
          "And beside it the record that proves the domain is this project's:",
          `  Name   ${view.ownershipRecord.name}`,
          `  Type   TXT`,
          `  Value  ${view.ownershipRecord.value}`,
          `  TTL    ${view.ownershipRecord.ttl}`,
        ]
      : []),
    ...(view.apexFallback ? [view.apexFallback] : []),
  ];
}

function viewLines(view: DomainView): string[] {
  return [
    `State: ${stateLabel(view)} for ${formatDuration(view.secondsInState * 1000)}; certificate: ${view.certificate}.`,
    ...view.notices,
    ...(view.troubleshooting
      ? [
          'The certificate has been pending for over 30 minutes:',
          ...view.troubleshooting.map((step, index) => `  ${index + 1}. ${step}`),
        ]
      : []),
  ];
}

type Values = OptionValues<typeof OPTIONS>;

function domainPath(name: string, suffix = ''): string {
  return `/domains/${encodeURIComponent(name)}${suffix}`;
}

/** The project's console token, from the environment only. */
function consoleTokenOf(io: DomainsCommandIo): string {
  const token = (io.env ?? process.env)[CONSOLE_TOKEN_VARIABLE];
  if (!token) {
    throw new UsageError(
      `Set ${CONSOLE_TOKEN_VARIABLE} to the project's console token (pct_…, printed by npm run projects -- create): the tool acts for that project. It is never an argument, which would land in shell history.`,
    );
  }
  return token;
}

/** The tenant's commands: each one call (verify with --resolver: two) of the service. */
async function tenantCommand(
  io: DomainsCommandIo,
  command: string,
  operands: readonly string[],
  values: Values,
): Promise<number> {
  const base = consoleBase(io, values.url);
  const token = consoleTokenOf(io);
  const [name = ''] = operands;
  const print = (json: unknown, lines: () => string[]) => {
    if (values.json) io.out(JSON.stringify(json));
    else for (const line of lines()) io.out(line);
  };
  switch (command) {
    case 'add': {
      const view = (await call(base, token, 'POST', '/domains', {
        name,
        ...(values.redirect ? { redirect: true } : {}),
      })) as unknown as DomainView;
      print(view, () => [
        `Added ${view.name} as ${view.role}; state: ${stateLabel(view)}.`,
        ...recordLines(view),
        `Then: npm run domains -- verify ${view.name}`,
      ]);
      return 0;
    }
    case 'verify':
    case 'reverify': {
      let own: { resolver: string; verdict: string; summary: string } | undefined;
      if (values.resolver !== undefined) own = await resolverCheck(base, token, name, values.resolver);
      const result = (await call(base, token, 'POST', domainPath(name, '/verify'))) as unknown as {
        domain: DomainView;
        verified: boolean;
        verdict: string;
        summary: string;
        fix: string;
      };
      const view = result.domain;
      print(
        {
          domain: view.name,
          role: view.role,
          verified: result.verified,
          verdict: result.verdict,
          summary: result.summary,
          fix: result.fix,
          certificate: view.certificate,
          state: view.state,
          ...(view.reason ? { reason: view.reason } : {}),
          since: view.since,
          record: view.record,
          troubleshooting: view.troubleshooting ?? [],
          ...(own ? { resolverCheck: own } : {}),
        },
        () => [
          `${command === 'reverify' ? 'Re-verifying' : 'Verifying'} ${view.name} (${view.role}).`,
          ...(own ? [`${own.resolver} sees: ${own.summary}`] : []),
          result.summary,
          ...(result.verified ? [] : [`Fix: ${result.fix}`]),
          ...viewLines(view),
        ],
      );
      return result.verified ? 0 : 1;
    }
    case 'status': {
      const { domains } = (await call(base, token, 'GET', '/domains')) as unknown as {
        domains: DomainView[];
      };
      const rows = domains.map((view) => ({
        domain: view.name,
        role: view.role,
        state: view.state,
        label: stateLabel(view),
        since: view.since,
        for: formatDuration(view.secondsInState * 1000),
        certificate: view.certificate,
        record: view.record,
      }));
      print(rows, () => {
        if (rows.length === 0) return ['No custom domains.'];
        const width = Math.max(...rows.map((row) => row.domain.length));
        const labelWidth = Math.max(...rows.map((row) => row.label.length));
        return rows.map(
          (row) =>
            `${row.domain.padEnd(width)}  ${row.role.padEnd(10)}  ${row.label.padEnd(labelWidth)}  for ${row.for}  (certificate ${row.certificate}; ${row.record.name} ${row.record.type} ${row.record.value})`,
        );
      });
      return 0;
    }
    case 'primary': {
      const { domains } = (await call(base, token, 'POST', domainPath(name, '/primary'))) as unknown as {
        domains: DomainView[];
      };
      print({ domains }, () => [
        `${domains.find((view) => view.role === 'primary')?.name ?? name} is the primary domain; redirects point at it.`,
      ]);
      return 0;
    }
    case 'redirect': {
      const view = (await call(base, token, 'POST', domainPath(name, '/redirect'))) as unknown as DomainView;
      print(view, () => [
        `${view.name} answers 301 to the primary domain (same path and query); state: ${stateLabel(view)}.`,
      ]);
      return 0;
    }
    case 'remove': {
      const query = values.yes ? `?${CONFIRM_PARAMETER}=${REMOVE_CONFIRMATION}` : '';
      let removal: { name: string; tenant: string };
      try {
        removal = (await call(
          base,
          token,
          'DELETE',
          `${domainPath(name)}${query}`,
        )) as unknown as typeof removal;
      } catch (error) {
        if (
          error instanceof Refusal &&
          !values.yes &&
          error.message.includes(`confirm=${REMOVE_CONFIRMATION}`)
        ) {
          throw new Refusal(`${error.message}\nWith this tool: npm run domains -- remove ${name} --yes`);
        }
        throw error;
      }
      print(removal, () => [
        `Removed ${removal.name}: its host is refused from now on${removal.tenant === 'pending' ? '; its edge tenant is deleted by the next clean-up' : ''}. Delete its record at your DNS provider.`,
      ]);
      return 0;
    }
    default:
      throw new Error(`Command ${command} is declared but not implemented.`);
  }
}

/** verify --resolver: the tool's own look through that server, at the record the service asks for. */
async function resolverCheck(base: string, token: string, name: string, resolver: string) {
  const { domains } = (await call(base, token, 'GET', '/domains')) as unknown as { domains: DomainView[] };
  const wanted = name.trim().toLowerCase().replace(/\.$/, '');
  const view = domains.find((candidate) => candidate.name === wanted);
  if (!view) return undefined;
  const expectation = {
    domain: view.name,
    zone: view.record.zone,
    apex: view.record.type !== 'CNAME',
    target: view.record.value,
  };
  try {
    const verdict = verdictOf(expectation, await observe(resolverLookup(resolver), expectation));
    return { resolver, verdict: verdict.kind, summary: explainVerdict(expectation, verdict).summary };
  } catch (error) {
    return { resolver, verdict: 'unreachable', summary: `no answer (${reason(error)})` };
  }
}

/** `sandbox-record`: adds or removes a record in the sandbox DNS of the running local mode. */
async function sandboxRecord(
  io: DomainsCommandIo,
  [name = '', rawType = '', value]: readonly string[],
  values: Values,
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
  const token = consoleTokenOf(io);
  const base = localBase(io);
  const url = new URL(SANDBOX_RECORDS_PATH, base);
  const authorization = { Authorization: `Bearer ${token}` };
  let response: Response;
  try {
    if (values.remove) {
      url.search = new URLSearchParams({ name, type, ...(value === undefined ? {} : { value }) }).toString();
      response = await fetch(url, { method: 'DELETE', headers: authorization });
    } else {
      response = await fetch(url, {
        method: 'POST',
        headers: { ...authorization, 'Content-Type': 'application/json' },
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
    const hint =
      response.status === 401
        ? ` Check ${CONSOLE_TOKEN_VARIABLE}: it holds the project's console token (pct_…).`
        : '';
    throw new Refusal(`${body.message ?? `The sandbox DNS at ${base} answered ${response.status}.`}${hint}`);
  }
  io.out(
    values.remove
      ? `Sandbox DNS: removed ${body.removed ?? 0} ${type} record${body.removed === 1 ? '' : 's'} of ${name}.`
      : `Sandbox DNS: ${body.name} ${body.type} ${body.value} (TTL ${body.ttl}).`,
  );
  return 0;
}

/** ACM calls the import makes before it reports throttling (the SDK's retries, with backoff). */
const ACM_ATTEMPTS = 6;

/** The tables and the edge a platform engineer's command acts on. */
interface Platform {
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

async function connectPlatform(io: DomainsCommandIo, stage: EnvironmentName | undefined): Promise<Platform> {
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

async function importCommand(
  io: DomainsCommandIo,
  file: string,
  values: Values,
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

async function statusAll(io: DomainsCommandIo, values: Values, platform: Platform): Promise<number> {
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

/** Runs one domains command; resolves to the exit code (verify: 0 verified, 1 not). */
export async function runDomainsCommand(argv: readonly string[], io: DomainsCommandIo): Promise<number> {
  const line = parseCommandLine(DOMAINS_TOOL, argv);
  if (line.help !== undefined) {
    io.out(line.help);
    return 0;
  }
  const { command, values, operands } = line;
  // Every usage check comes before any connection, so a typo costs no call.
  if (values.resolver !== undefined) parseResolverAddress(values.resolver);
  const stage = values.stage === undefined ? undefined : parseStage(values.stage);
  if (command === 'sandbox-record') {
    if (values.url !== undefined)
      throw new UsageError('sandbox-record acts on the sandbox DNS of npm start: it takes no --url.');
    return sandboxRecord(io, operands, values);
  }
  const platformCommand = command === 'import' || (command === 'status' && values.all);
  if (stage && !platformCommand) throw new UsageError('--stage goes with import and status --all only.');
  if (platformCommand) {
    if (values.url !== undefined) {
      throw new UsageError(
        `${command === 'import' ? 'import' : 'status --all'} acts on the tables, not the service: it takes --stage, not --url.`,
      );
    }
    const platform = await connectPlatform(io, stage);
    try {
      return command === 'import'
        ? await importCommand(io, operands[0] ?? '', values, platform)
        : await statusAll(io, values, platform);
    } finally {
      platform.close();
    }
  }
  return tenantCommand(io, command, operands, values);
}

if (require.main === module) {
  runToolMain(DOMAINS_TOOL, (argv) =>
    runDomainsCommand(argv, { out: (line) => process.stdout.write(`${line}\n`) }),
  );
}
