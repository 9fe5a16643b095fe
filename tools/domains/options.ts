import { CONSOLE_API_PREFIX } from '../../lambda/api/console-routes';
import { STACK_OUTPUTS } from '../../lib/animal-store-stack';
import { EDGE_STACK_NAME } from '../../lib/edge-stack';
import type { CommandSpec, OptionValues } from '../cli';

/** The variable holding the project's console token (never an argument: it would land in shell history). */
export const CONSOLE_TOKEN_VARIABLE = 'ANIMAL_STORE_CONSOLE_TOKEN';

/**
 * The variable holding a member's personal access token (`pat_…`, issue 28), made in the console's
 * Tokens view: the tool acts for its project with its role. It wins over the console token, which
 * opens a project only until its first owner.
 */
export const PERSONAL_TOKEN_VARIABLE = 'ANIMAL_STORE_TOKEN';

/** Where to look after a 401: the variables the token came from. */
export const TOKEN_HINT = ` Check ${PERSONAL_TOKEN_VARIABLE} (your personal access token, pat_…) or ${CONSOLE_TOKEN_VARIABLE} (the project's console token, pct_…).`;

/** Every option of `npm run domains`, declared once; each command names the ones it takes. */
export const DOMAINS_OPTIONS = {
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

export type DomainsOptions = typeof DOMAINS_OPTIONS;

/** One command's declaration: name, operands, options, summary (usage, parsing and checks come from it). */
export type DomainsCommandSpec = CommandSpec<DomainsOptions>;

/** The option values of a parsed command line. */
export type DomainsValues = OptionValues<DomainsOptions>;
