import { request as httpRequest } from 'node:http';
import { SESSION_COOKIE_NAME } from '../../lambda/api/console-cookies';
import { SIGN_IN_START_PATH } from '../../lambda/api/console-routes';
import type { DevPerson } from '../../local/dev-people';
import type { ConsoleTestApi } from './local-console';
import { signInAtProvider } from './local-oidc';

/**
 * A browser for invitations over HTTP against local mode's console (issue 27): its own cookies,
 * a link opened, a sign-in at the local OpenID provider, and the callback that accepts.
 */

export interface Visit {
  readonly status: number;
  readonly location?: string;
  readonly cookies: readonly string[];
  readonly body: Record<string, unknown>;
}

/** A browser: requests at localhost (sent to loopback) with its own cookies. */
export function invitationBrowser(t: Pick<ConsoleTestApi, 'port' | 'consoleOrigin'>) {
  const jar = new Map<string, string>();
  const visit = (path: string, init: { method?: string; body?: unknown } = {}) =>
    new Promise<Visit>((resolve, reject) => {
      const payload = init.body === undefined ? undefined : JSON.stringify(init.body);
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port: t.port,
          path,
          method: init.method ?? 'GET',
          headers: {
            Host: `localhost:${t.port}`,
            Cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
            ...(payload === undefined ? {} : { 'Content-Type': 'application/json', Origin: t.consoleOrigin }),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const cookies = response.headers['set-cookie'] ?? [];
            for (const cookie of cookies) {
              const [pair = ''] = cookie.split(';');
              const split = pair.indexOf('=');
              const value = pair.slice(split + 1);
              if (value === '') jar.delete(pair.slice(0, split));
              else jar.set(pair.slice(0, split), value);
            }
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: response.statusCode ?? 0,
              ...(response.headers.location ? { location: response.headers.location } : {}),
              cookies,
              body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
            });
          });
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
  return {
    jar,
    visit,
    open: (token: string) => visit('/console/api/invitations/open', { method: 'POST', body: { token } }),
    /** Signs in at the provider as `person`: the callback's path, not yet visited. */
    signInAs: async (person: DevPerson) => {
      const started = await visit(`${SIGN_IN_START_PATH}?returnTo=/console/`);
      const provided = await signInAtProvider(started.location ?? '', person.email, person.password);
      const callback = new URL(provided.callbackUrl ?? '');
      return `${callback.pathname}${callback.search}`;
    },
  };
}

/** Opens the link in a new browser, signs in as `person` and returns to the console. */
export async function acceptAs(
  t: Pick<ConsoleTestApi, 'port' | 'consoleOrigin'>,
  token: string,
  person: DevPerson,
): Promise<Visit & { session?: string }> {
  const b = invitationBrowser(t);
  const opened = await b.open(token);
  if (opened.status !== 200) return opened;
  const returned = await b.visit(await b.signInAs(person));
  const session = b.jar.get(SESSION_COOKIE_NAME);
  return { ...returned, ...(session ? { session } : {}) };
}

/** Where the callback sends a browser whose invitation was refused with `code`. */
export const refusedWith = (code: string) => `/console/#invitation-refused=${code}`;
