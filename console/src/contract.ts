import type { ConsoleAnswer } from '../../lambda/api/console-routes';

/**
 * The page's names for the console API's answers, each the one its route declares
 * (lambda/api/console-routes.ts): nothing restated, so the page cannot drift from the service.
 */

export type Session = ConsoleAnswer<'getSession'>;
export type CreatedProject = ConsoleAnswer<'createProject'>;
export type Usage = ConsoleAnswer<'getUsage'>;
export type Counter = Usage['usage']['minute'];
export type IssuedKey = ConsoleAnswer<'createKey'>;
export type ApiKey = IssuedKey['key'];
export type DomainView = ConsoleAnswer<'addDomain'>;
export type Verification = ConsoleAnswer<'verifyDomain'>;
export type DomainRole = DomainView['role'];
export type DomainState = DomainView['state'];
export type EdgeCertificateState = DomainView['certificate'];
export type UsageHistory = ConsoleAnswer<'getUsageHistory'>;
export type UsageBucket = UsageHistory['hours'][number];
