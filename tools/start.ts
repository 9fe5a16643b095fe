import path from 'node:path';
import { composeProjectKeys } from '../lambda/composition/console';
import { isAgreedPlan, isPlanName, PLAN_NAMES, type PlanName, PLANS } from '../lambda/core/plans';
import { issueConsoleToken, newUsageId } from '../lambda/core/project';
import { newTargetId } from '../lambda/core/custom-domains/project-target';
import { ApiKeyRepository } from '../lambda/store/api-key-repository';
import { createDocumentClient } from '../lambda/store/dynamodb-client';
import { PetRepository } from '../lambda/store/pet-repository';
import { ProjectRepository } from '../lambda/store/project-repository';
import { describeMigration, migrateToProjects } from './project-migration';
import { buildConsole, CONSOLE_BUILD_DIR } from '../console/build';
import { CONSOLE_API_PREFIX } from '../lambda/api/console-routes';
import { CONSOLE_PAGE_PATH } from '../local/console-site';
import type { LocalDomainsOptions } from '../local/local-domains';
import { LOCAL_TABLE_NAMES, localStoreLocation, portFromEnv } from '../local/local-tables';
import { startLocalApi } from '../local/server';
import { DEV_OWNER } from '../local/dev-people';
import { DEV_PROJECT, DEV_PROJECT_DEFAULT_PLAN } from '../local/dev-project';

/** Name of the key `npm start` issues; the previous one is revoked at each start, so only hashes are ever stored. */
const DEV_KEY_NAME = 'local development key';

/** The development project's plan: DEV_PROJECT_PLAN, a standard plan (default pro). */
function devProjectPlan(env: NodeJS.ProcessEnv = process.env): PlanName {
  const plan = env.DEV_PROJECT_PLAN || DEV_PROJECT_DEFAULT_PLAN;
  const standard = PLAN_NAMES.filter((name) => !isAgreedPlan(PLANS[name]));
  if (!isPlanName(plan) || isAgreedPlan(PLANS[plan])) {
    throw new Error(
      `DEV_PROJECT_PLAN=${plan} is not a standard plan: use one of ${standard.join(', ')} (an agreed plan needs numbers: npm run projects -- set-plan).`,
    );
  }
  return plan;
}

interface DevelopmentAccess {
  readonly apiKey: string;
  readonly consoleToken: string;
  readonly plan: PlanName;
  /** What the upgrade of data from before projects did, if anything. */
  readonly migration?: string;
}

/**
 * Prepares the development project: moves data from before projects into `legacy`, makes
 * project `dev` on DEV_PROJECT_PLAN, and issues a new key and console token (the previous
 * ones stop working: only hashes are stored, so they could not be shown again).
 */
async function prepareDevelopmentProject(endpoint: string): Promise<DevelopmentAccess> {
  const documents = createDocumentClient(endpoint);
  try {
    const keys = new ApiKeyRepository(documents, LOCAL_TABLE_NAMES.apiKeys);
    const projects = new ProjectRepository(documents, LOCAL_TABLE_NAMES.projects);
    const pets = new PetRepository(documents, LOCAL_TABLE_NAMES.pets);
    const migration = describeMigration(await migrateToProjects({ keys, projects, pets }));

    const plan = devProjectPlan();
    const { token: consoleToken, hash } = issueConsoleToken(DEV_PROJECT);
    const now = new Date();
    const created = await projects.create({
      name: DEV_PROJECT,
      plan,
      createdAt: now.toISOString(),
      consoleTokenHash: hash,
      consoleTokenIssuedAt: now.toISOString(),
      usageId: newUsageId(),
      targetId: newTargetId(),
    });
    if (!created) {
      await projects.setPlan(DEV_PROJECT, plan);
      await projects.setConsoleToken(DEV_PROJECT, hash, now);
    }
    // Through the key rules, so the project's count of active keys stays right.
    const rules = composeProjectKeys({ apiKeys: keys, projects, clock: () => now.getTime() });
    const [previous, ...others] = (await keys.listByProject(DEV_PROJECT)).filter(
      (record) => record.name === DEV_KEY_NAME && !record.revokedAt,
    );
    for (const other of others) await rules.revoke(other.keyId);
    const { apiKey } = previous
      ? await rules.rotate(previous.keyId)
      : await rules.create(DEV_PROJECT, DEV_KEY_NAME);
    return { apiKey, consoleToken, plan, ...(migration ? { migration } : {}) };
  } finally {
    documents.destroy();
  }
}

/** Local mode's custom domains, from the environment: ports of the sandbox DNS and the edge, the resolver. */
function localDomainsFromEnv(env: NodeJS.ProcessEnv = process.env): LocalDomainsOptions {
  return {
    dnsPort: portFromEnv('SANDBOX_DNS_PORT', 3053, env),
    edgeHttpsPort: portFromEnv('EDGE_HTTPS_PORT', 3443, env),
    edgeHttpPort: portFromEnv('EDGE_HTTP_PORT', 3080, env),
    ...(env.DNS_RESOLVER ? { dnsResolver: env.DNS_RESOLVER } : {}),
    // Pending certificates are tried every 2 s, so a verified domain is served moments later.
    attemptIntervalMs: 2_000,
  };
}

async function main(): Promise<void> {
  const store = localStoreLocation();
  // esbuild takes a fraction of a second: the page is always the one of these sources.
  const consoleSite = await buildConsole(CONSOLE_BUILD_DIR);
  const api = await startLocalApi({
    consoleSite,
    port: portFromEnv('PORT', 3000),
    dynamodbPort: store.port,
    dataDir: path.resolve(process.env.DATA_DIR || '.data'),
    ...(store.endpoint ? { dynamodbEndpoint: store.endpoint } : {}),
    customDomains: localDomainsFromEnv(),
    openIdProviderPort: portFromEnv('OIDC_PORT', 3900),
  });
  const access = await prepareDevelopmentProject(api.dynamodbEndpoint);
  if (access.migration) console.log(access.migration);
  console.log(`Animal Store API listening at ${api.baseUrl}`);
  console.log(
    `DynamoDB-compatible store at ${api.dynamodbEndpoint}${api.store ? ` (embedded, data in ${process.env.DATA_DIR || '.data'})` : ''}`,
  );
  const projectUrl = api.baseUrl.replace('//127.0.0.1:', `//${DEV_PROJECT}.localhost:`);
  console.log(`Project ${DEV_PROJECT} (${access.plan} plan) at ${projectUrl}`);
  console.log(`Development API key of project ${DEV_PROJECT} (valid until the next start): ${access.apiKey}`);
  console.log(`Console token of project ${DEV_PROJECT} (valid until the next start): ${access.consoleToken}`);
  console.log(`Try: curl -H "Authorization: Bearer ${access.apiKey}" ${projectUrl}/pets`);
  // Sign-in through the local OpenID provider (issue 26).
  if (api.openIdProvider) {
    console.log(
      `OpenID provider (local) at ${api.openIdProvider.issuer}: sign in at http://localhost:${api.port}${CONSOLE_PAGE_PATH} with "Sign in with the identity provider" as`,
    );
    for (const person of api.openIdProvider.people) {
      console.log(`  ${person.email} / ${person.password} (${person.name})`);
    }
    // Not done at start: a first owner retires dev's console token, which the domains tool uses.
    console.log(
      `Make the development owner an owner of ${DEV_PROJECT} first (this retires its console token): npm run members -- add --project ${DEV_PROJECT} --role owner --issuer ${api.openIdProvider.issuer} --subject ${DEV_OWNER.subject} --email ${DEV_OWNER.email}`,
    );
  }
  const { domains } = api;
  if (domains) {
    const consoleUrl = `${api.baseUrl.replace(/\/v1$/, '')}${CONSOLE_API_PREFIX}`;
    console.log(
      `Console at http://localhost:${api.port}${CONSOLE_PAGE_PATH} (sign in with the console token of project ${DEV_PROJECT} above)`,
    );
    console.log(
      `Console API (custom domains) at ${consoleUrl}/domains (Authorization: Bearer <console token>)`,
    );
    console.log(
      `Custom domains: CNAME target ${domains.target}; sandbox DNS at ${domains.dns.address} (npm run domains -- sandbox-record); edge at https://${domains.edge.host}:${domains.edge.httpsPort} and http://${domains.edge.host}:${domains.edge.httpPort}`,
    );
    console.log(
      `Local certificate authority's root: ${domains.authority.rootCertificatePath ?? '(in memory)'} (curl --cacert <it> --resolve <domain>:${domains.edge.httpsPort}:${domains.edge.host} https://<domain>:${domains.edge.httpsPort}/v1/pets)`,
    );
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: finishing requests in flight, then closing the store.`);
    api.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`Shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(`Could not start the local API: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
