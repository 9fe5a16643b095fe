/**
 * Drives the local OpenID provider's sign-in as a browser would, over real HTTP with fetch: its
 * redirects followed by hand, its cookies kept in a small jar, its sign-in form posted.
 */

export interface ProviderVisit {
  /** The last answer: the provider's page (a refusal) or its redirect to the client. */
  readonly status: number;
  /** The `Location` of the redirect to the client's callback, when the provider sent one. */
  readonly callbackUrl?: string;
  readonly html?: string;
  /** Requests made to the provider. */
  readonly requests: number;
}

export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(headers: Headers): void {
    for (const cookie of headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const split = pair.indexOf('=');
      if (split > 0) this.cookies.set(pair.slice(0, split).trim(), pair.slice(split + 1).trim());
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * Follows the provider's redirects from `authorizationUrl` to its sign-in page, posts `email`
 * and `password`, and follows on until the provider sends the browser away from itself (to the
 * client's callback), or answers a page.
 */
export async function signInAtProvider(
  authorizationUrl: string,
  email: string,
  password: string,
  jar = new CookieJar(),
): Promise<ProviderVisit> {
  const providerOrigin = new URL(authorizationUrl).origin;
  let requests = 0;
  let url = authorizationUrl;
  let init: RequestInit = {};
  for (let hop = 0; hop < 10; hop += 1) {
    requests += 1;
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { Cookie: jar.header(), ...(init.headers as Record<string, string>) },
    });
    jar.take(response.headers);
    const location = response.headers.get('location');
    if (location) {
      await response.arrayBuffer();
      const next = new URL(location, url);
      if (next.origin !== providerOrigin)
        return { status: response.status, callbackUrl: next.href, requests };
      url = next.href;
      init = {};
      continue;
    }
    const html = await response.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    if (response.status !== 200 || !action || init.method === 'POST') {
      return { status: response.status, html, requests };
    }
    url = new URL(
      action.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code))),
      url,
    ).href;
    init = {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password }).toString(),
    };
  }
  throw new Error(`the provider redirected more than 10 times from ${authorizationUrl}`);
}
