import { type PlanLimits, type PlanName, planLimits } from './plans';
import { hashSecret, newSecret, randomId, SECRET_PATTERN, secretMatches } from './secret';

/**
 * Projects: the tenant. A project owns its plan, its API keys, its pets and its
 * addresses. Its name is its subdomain of the platform (`<name>.<platform domain>`).
 */

/** What a project is, as everyone may see it. */
export interface Project {
  /** A DNS label: the project's subdomain. */
  readonly name: string;
  readonly plan: PlanName;
  /** The numbers agreed with the customer, on an agreed plan (Enterprise) only. */
  readonly agreedLimits?: PlanLimits;
  readonly createdAt: string;
  /**
   * The browser origins whose pages may call the project's address (CORS), each normalized
   * by {@link parseAllowedOrigins}; none when absent.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * The id of the project's custom-domain target, `<targetId>.domains.<platform domain>`
   * (project-target.ts): random, set once, never changed nor reused. Absent on a project made
   * before per-project targets: local mode's start, `import` and the domains service give it one.
   */
  readonly targetId?: string;
}

/** The stored form of a project: never its console token, only the token's hash. */
export interface ProjectRecord extends Project {
  /** SHA-256 of the console token's secret, hex. */
  readonly consoleTokenHash: string;
  readonly consoleTokenIssuedAt: string;
  /**
   * Random value the authorizer hands API Gateway as the usage identifier of every key of
   * the project (one gateway API key per project, never a secret).
   */
  readonly usageId: string;
  /**
   * How many of the project's keys are active, kept by the key rules with conditional writes
   * (lambda/core/project-keys.ts); absent until its first key change since the count began.
   */
  readonly activeKeys?: number;
  /**
   * How many of the project's members are owners, kept by the member rules with conditional
   * writes (lambda/core/members.ts), never above the true number; absent until its first owner.
   */
  readonly owners?: number;
}

/**
 * Whether the project is run by its members: from its first owner on, its console token no
 * longer opens its console (the migration from console tokens, doc/console.md).
 */
export function hasOwners(project: Pick<ProjectRecord, 'owners'>): boolean {
  return (project.owners ?? 0) > 0;
}

/** What authentication needs of project storage (the store implements it; tools use more of it). */
export interface ProjectStore {
  get(name: string): Promise<ProjectRecord | undefined>;
}

/**
 * The project that receives everything written before projects existed (`npm run projects --
 * migrate`). A key from before projects acts for it even before the migration reaches the key.
 */
export const LEGACY_PROJECT = 'legacy';

/**
 * Labels of the platform domain that are never project names: the platform uses them
 * itself, and a specific DNS record there would shadow the wildcard that serves projects.
 */
export const RESERVED_PROJECT_NAMES: readonly string[] = [
  'admin',
  'api',
  'app',
  'auth',
  'cdn',
  'console',
  // The console distribution's origin for its API (lib/constructs/console-site.ts).
  'console-api',
  'dashboard',
  'docs',
  'domains',
  'help',
  'login',
  'mail',
  'status',
  'support',
  'tenants',
  'www',
];

/** Longest DNS label (RFC 1035). */
const MAX_LABEL = 63;
const MIN_NAME = 3;
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/**
 * Why a name cannot be a project's; undefined when it can. The name is its address's
 * label, so it must be a lower-case DNS label of 3 to 63 characters without a leading or
 * trailing hyphen, not an IDN (`xn--`, it would display as another name), and not one of
 * the platform's reserved labels (a specific record there would shadow the wildcard).
 */
export function projectNameProblem(name: string, reservedNames: readonly string[]): string | undefined {
  const shown = JSON.stringify(name);
  if (name.length < MIN_NAME || name.length > MAX_LABEL) {
    return `Project name ${shown} must be ${MIN_NAME} to ${MAX_LABEL} characters long.`;
  }
  if (!LABEL.test(name)) {
    return `Project name ${shown} may hold only lower-case letters, digits and hyphens, and may not start or end with a hyphen.`;
  }
  if (name.startsWith('xn--'))
    return `Project name ${shown} may not start with "xn--" (internationalized names).`;
  if (reservedNames.includes(name))
    return `Project name ${shown} is reserved by the platform; choose another.`;
  return undefined;
}

/**
 * Whether some project could have this name: a DNS label, at most 63 characters. Every name that
 * comes from a request (a host's label, a console token's) is checked with it before it is looked
 * up, so nothing longer ever reaches the store (DynamoDB refuses keys over 2,048 bytes).
 */
export function couldNameProject(name: string): boolean {
  return name.length <= MAX_LABEL && LABEL.test(name);
}

/** The requests per minute and per day a project may make. */
export function projectLimits(project: Pick<Project, 'plan' | 'agreedLimits'>): PlanLimits {
  const limits = planLimits(project.plan, project.agreedLimits);
  // Tools refuse an agreed plan without numbers; a record that has none anyway gets nothing.
  return limits ?? { perMinute: 0, perDay: 0 };
}

const CONSOLE_TOKEN_PREFIX = 'pct_';

export interface ParsedConsoleToken {
  readonly project: string;
  readonly secret: string;
}

/**
 * A new console token for a project: `pct_<project>_<secret>`, 256 random bits. The token
 * names its project (a label holds no `_`), so checking it is one read and one
 * constant-time comparison against the stored hash.
 */
export function issueConsoleToken(project: string): { token: string; hash: string } {
  const secret = newSecret();
  return { token: `${CONSOLE_TOKEN_PREFIX}${project}_${secret}`, hash: hashSecret(secret) };
}

export function parseConsoleToken(token: string): ParsedConsoleToken | undefined {
  if (!token.startsWith(CONSOLE_TOKEN_PREFIX)) return undefined;
  const rest = token.slice(CONSOLE_TOKEN_PREFIX.length);
  const split = rest.indexOf('_');
  if (split < 1) return undefined;
  const project = rest.slice(0, split);
  const secret = rest.slice(split + 1);
  if (!couldNameProject(project) || !SECRET_PATTERN.test(secret)) return undefined;
  return { project, secret };
}

export function consoleTokenMatches(
  record: Pick<ProjectRecord, 'consoleTokenHash'>,
  secret: string,
): boolean {
  return secretMatches(record.consoleTokenHash, secret);
}

/** A fresh usage identifier for the gateway (random, never derived from a secret). */
export function newUsageId(): string {
  return randomId();
}

/**
 * The project a request's host names: `acme` for `acme.<platform domain>` (any port, any
 * case, a trailing dot); undefined for every other host (execute-api, a loopback address),
 * where any project's key is accepted. A deeper name (`a.acme.<platform domain>`) names no
 * project: the wildcard covers one label only.
 */
export function projectOfHost(
  host: string | undefined,
  platformDomain: string | undefined,
): string | undefined {
  if (!host || !platformDomain) return undefined;
  const name = host.replace(/:\d+$/, '').replace(/\.$/, '').toLowerCase();
  const suffix = `.${platformDomain.toLowerCase()}`;
  if (!name.endsWith(suffix)) return undefined;
  const label = name.slice(0, -suffix.length);
  return label.length > 0 && !label.includes('.') ? label : undefined;
}

/** Most origins one project may allow: a short list of its own apps, not a registry. */
export const MAX_ALLOWED_ORIGINS = 20;

/** Longest origin: `https://`, a 253-character host name and `:65535`. */
const MAX_ORIGIN_LENGTH = 'https://'.length + 253 + ':65535'.length;

/** Scheme, `://`, then an authority with nothing after it: no path, query, fragment or user. */
const ORIGIN_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#@\s\\]+)$/;

/**
 * A browser origin as the `Origin` header serializes it (`https://app.example.com`,
 * `http://localhost:5173`): scheme and host lower-cased, an IDN host in its `xn--` form, the
 * scheme's default port dropped. `problem` says what is wrong in words an operator can act
 * on: only http and https, no path, no wildcard, no `null`.
 */
export function normalizeOrigin(text: string): { origin: string } | { problem: string } {
  const shown = JSON.stringify(text);
  const example = 'an origin is a scheme, a host and an optional port, e.g. https://app.example.com';
  if (text.trim().toLowerCase() === 'null') {
    return {
      problem: `Origin ${shown} cannot be allowed: sandboxed pages and local files send it, so it would let any of them in.`,
    };
  }
  if (text.includes('*')) {
    return { problem: `Origin ${shown} holds a wildcard, which is not supported: list each origin.` };
  }
  const shape = ORIGIN_SHAPE.exec(text);
  if (!shape) {
    if (/^https?:\/\/[^/?#]*@/i.test(text))
      return { problem: `Origin ${shown} may not hold a user name or password; ${example}.` };
    const withoutPath = /^(https?:\/\/[^/?#@\s\\]+)[/?#]/i.exec(text)?.[1];
    if (withoutPath) {
      return {
        problem: `Origin ${shown} has a path, query or fragment, which an origin never has: use ${withoutPath.toLowerCase()}.`,
      };
    }
    return { problem: `Origin ${shown} is not an origin; ${example}.` };
  }
  const scheme = shape[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') {
    return { problem: `Origin ${shown} must use http or https, not ${scheme}; ${example}.` };
  }
  let origin: string;
  try {
    origin = new URL(text).origin;
  } catch {
    return { problem: `Origin ${shown} has no valid host or port; ${example}.` };
  }
  if (origin.length > MAX_ORIGIN_LENGTH) {
    return { problem: `Origin ${shown} is longer than ${MAX_ORIGIN_LENGTH} characters.` };
  }
  return { origin };
}

/**
 * A project's list of allowed origins, each normalized, repeats dropped (in the order given),
 * at most {@link MAX_ALLOWED_ORIGINS}; or one problem per bad origin. An empty list allows none.
 */
export function parseAllowedOrigins(
  texts: readonly string[],
): { origins: string[]; problems?: undefined } | { problems: string[] } {
  const origins: string[] = [];
  const problems: string[] = [];
  for (const text of texts) {
    const result = normalizeOrigin(text);
    if ('problem' in result) problems.push(result.problem);
    else if (!origins.includes(result.origin)) origins.push(result.origin);
  }
  if (problems.length > 0) return { problems };
  if (origins.length > MAX_ALLOWED_ORIGINS) {
    return {
      problems: [
        `A project may allow at most ${MAX_ALLOWED_ORIGINS} origins, not ${origins.length}: serve its apps from fewer origins.`,
      ],
    };
  }
  return { origins };
}

/**
 * The request's `Origin` when the project allows it, normalized (a browser sends it so
 * already); undefined for no origin, an origin not on the list, or no list.
 */
export function allowedOrigin(
  requestOrigin: string | undefined,
  allowed: readonly string[] | undefined,
): string | undefined {
  if (requestOrigin === undefined || !allowed || allowed.length === 0) return undefined;
  const result = normalizeOrigin(requestOrigin);
  return 'origin' in result && allowed.includes(result.origin) ? result.origin : undefined;
}
