/**
 * The platform's own address space: every project is served at `<project>.<domain>`.
 * Read by the CDK app (the wildcard address) and by the tools (project names).
 */

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

/** Where projects get their addresses in an environment. */
export interface PlatformAddressConfig {
  /** The platform domain, e.g. `animalstore.example`; project `acme` is `acme.animalstore.example`. */
  readonly domain: string;
  /** The Route 53 hosted zone of the platform domain (given, not looked up: synth stays offline). */
  readonly hostedZoneId: string;
}
