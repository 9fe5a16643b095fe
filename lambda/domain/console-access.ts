import { StoreUnavailableError } from './errors';
import { consoleTokenMatches, parseConsoleToken, type ProjectRecord, type ProjectStore } from './project';

/**
 * Who calls the console's API: one project, proved by its console token (`Authorization:
 * Bearer pct_<project>_<secret>`; the console issue adds sessions). Unknown, malformed and
 * wrong tokens fail alike, so a caller learns nothing about which projects exist.
 */

/** `Bearer <token>`, the scheme matched case-insensitively (RFC 9110 §11.1). */
const BEARER = /^bearer +(\S+) *$/i;

export type ConsoleAccessFailure = 'missing_console_token' | 'invalid_console_token' | 'store_unavailable';

export type ConsoleAccess =
  | { readonly granted: true; readonly project: ProjectRecord }
  | { readonly granted: false; readonly failure: ConsoleAccessFailure };

/** Decides whose console a request is for, from its Authorization header values. */
export async function authenticateConsole(
  authorization: readonly string[],
  projects: ProjectStore,
): Promise<ConsoleAccess> {
  const refused = (failure: ConsoleAccessFailure): ConsoleAccess => ({ granted: false, failure });
  if (authorization.length === 0) return refused('missing_console_token');
  const [header] = authorization;
  const match = authorization.length === 1 && header !== undefined ? BEARER.exec(header.trim()) : null;
  const token = match?.[1] === undefined ? undefined : parseConsoleToken(match[1]);
  if (!token) return refused('invalid_console_token');
  let project: ProjectRecord | undefined;
  try {
    project = await projects.get(token.project);
  } catch (error) {
    if (error instanceof StoreUnavailableError) return refused('store_unavailable');
    throw error;
  }
  if (!project || !consoleTokenMatches(project, token.secret)) return refused('invalid_console_token');
  return { granted: true, project };
}
