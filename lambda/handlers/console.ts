import { consoleApiHost, SIGN_IN_CALLBACK_PATH } from '../api/console-routes';
import { composeConsole, composeSelfService } from '../composition/console';
import { composeCustomDomains } from '../composition/custom-domains';
import { now } from '../shared/clock';
import { RUNTIME_ENV, requireEnv } from '../shared/runtime-env';
import { cloudFrontEdgeTenantsFromEnv } from '../store/cloudfront-from-environment';
import { resolverLookup } from '../store/dns-resolver';
import {
  apiKeyRepositoryFromEnv,
  auditLogRepositoryFromEnv,
  consoleSessionRepositoryFromEnv,
  customDomainRepositoryFromEnv,
  invitationRepositoryFromEnv,
  memberRepositoryFromEnv,
  personalTokenRepositoryFromEnv,
  projectRepositoryFromEnv,
  usageHistoryStoreFromEnv,
  vouchedDomainsFromEnv,
} from '../store/from-environment';
import { invitationMailerFromEnv } from '../store/invitation-mailer-from-environment';
import { openIdSignInFromEnv } from '../store/oidc-from-environment';
import { originSecretsFromEnv } from '../store/origin-secret-source';
import { selfServiceFromEnv } from '../store/self-service-from-environment';

/**
 * The console function (`/console/api/…`): sessions, usage, keys and the domains service over
 * their tables, CloudFront's tenants and the system's DNS resolver, from the stack's environment.
 * It answers only at `console-api.<platform domain>`, and cookie requests that change state must
 * come from CONSOLE_ORIGIN.
 */
const platformDomain = requireEnv(RUNTIME_ENV.platformDomain);
const originSecrets = originSecretsFromEnv(now);
// People's own projects (issue 27), where the stack turns them on: its counters and gateway.
const selfService = selfServiceFromEnv();
const ports = {
  projects: projectRepositoryFromEnv(),
  apiKeys: apiKeyRepositoryFromEnv(),
  counters: usageHistoryStoreFromEnv(),
  consoleSessions: consoleSessionRepositoryFromEnv(),
  members: memberRepositoryFromEnv(),
  invitations: invitationRepositoryFromEnv(),
  auditLog: auditLogRepositoryFromEnv(),
  personalTokens: personalTokenRepositoryFromEnv(),
  customDomains: customDomainRepositoryFromEnv(),
  edgeTenants: cloudFrontEdgeTenantsFromEnv(),
  dns: resolverLookup(),
  clock: now,
  // Through the console's distribution, sign-ins are counted per viewer, not per edge address.
  ...(originSecrets ? { originSecrets } : {}),
  ...(selfService.slots ? { selfServiceSlots: selfService.slots } : {}),
  ...(selfService.gateway ? { selfServiceGateway: selfService.gateway } : {}),
};

const consoleOrigin = requireEnv(RUNTIME_ENV.consoleOrigin);
// Sign-in through the identity provider (issue 26), when the stack configures one.
const signIn = openIdSignInFromEnv(`${consoleOrigin}${SIGN_IN_CALLBACK_PATH}`);

export const handler = composeConsole(
  ports,
  {
    consoleOrigins: [consoleOrigin],
    ...(signIn ? { signIn } : {}),
    // The console distribution sends its API here; a project's address or custom domain is 404.
    consoleHosts: [consoleApiHost(platformDomain)],
    projectAddress: (name) => `https://${name}.${platformDomain}/v1`,
    // SES emails the link where the stack names a sender; the inviter may copy it in any case.
    invitations: {
      mailer: invitationMailerFromEnv(),
      linkOf: (token) => `${consoleOrigin}/console/#invitation=${token}`,
      vouched: vouchedDomainsFromEnv(),
    },
  },
  {
    domains: composeCustomDomains(ports, { target: requireEnv(RUNTIME_ENV.domainsTarget), platformDomain }),
    selfService: (members, keys) => composeSelfService(ports, selfService.settings, members, keys),
  },
);
