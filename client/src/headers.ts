/** Reading the response headers the client acts on: rate limits and `Link`. */

/** One window of the caller's plan, from `RateLimit-Policy` (quota, length) and `RateLimit` (what is left). */
export interface RateLimitWindow {
  /** The policy's name (`minute`, `day`). */
  readonly name: string;
  /** Requests allowed per window (`q`). */
  readonly quota?: number;
  /** The window's length in seconds (`w`). */
  readonly windowSeconds?: number;
  /** Requests left (`r`). */
  readonly remaining?: number;
  /** Seconds until it resets (`t`). */
  readonly resetSeconds?: number;
}

/** The rate-limit state of the last answer. */
export interface RateLimitState {
  /** `X-RateLimit-Limit`: the limit of the window closest to exhaustion. */
  readonly limit: number;
  /** `X-RateLimit-Remaining`: requests left in it. */
  readonly remaining: number;
  /** `X-RateLimit-Reset`: Unix time (seconds) at which it resets. */
  readonly reset: number;
  /** Every window, from `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers); empty without them. */
  readonly windows: readonly RateLimitWindow[];
}

/** Splits at `separator` outside quoted strings and angle brackets. */
function split(text: string, separator: ',' | ';'): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  let bracketed = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (quoted && c === '\\') {
      current += c + text.charAt(++i);
      continue;
    }
    if (c === '"' && !bracketed) quoted = !quoted;
    else if (c === '<' && !quoted) bracketed = true;
    else if (c === '>' && !quoted) bracketed = false;
    else if (c === separator && !quoted && !bracketed) {
      parts.push(current.trim());
      current = '';
      continue;
    }
    current += c;
  }
  parts.push(current.trim());
  return parts.filter((part) => part !== '');
}

const unquote = (text: string) =>
  text.startsWith('"') && text.endsWith('"') && text.length >= 2
    ? text.slice(1, -1).replace(/\\(.)/g, '$1')
    : text;

/** A list of items with parameters, as both `RateLimit` headers and `Link` are: `item;key=value, …`. */
function parameterList(value: string | null): { item: string; params: Map<string, string> }[] {
  return split(value ?? '', ',').map((member) => {
    const [item = '', ...params] = split(member, ';');
    return {
      item,
      params: new Map(
        params.map((param) => {
          const at = param.indexOf('=');
          return at < 0
            ? [param.toLowerCase(), '']
            : [param.slice(0, at).trim().toLowerCase(), unquote(param.slice(at + 1).trim())];
        }),
      ),
    };
  });
}

const integer = (text: string | null | undefined) =>
  text !== null && text !== undefined && /^\d+$/.test(text.trim()) ? Number(text) : undefined;

/** The rate-limit state of an answer, or undefined when it carries no `X-RateLimit-*` headers. */
export function readRateLimit(headers: Headers): RateLimitState | undefined {
  const limit = integer(headers.get('X-RateLimit-Limit'));
  const remaining = integer(headers.get('X-RateLimit-Remaining'));
  const reset = integer(headers.get('X-RateLimit-Reset'));
  if (limit === undefined || remaining === undefined || reset === undefined) return undefined;
  const windows = new Map<string, { -readonly [K in keyof RateLimitWindow]: RateLimitWindow[K] }>();
  const merge = (header: string, fields: Record<string, Exclude<keyof RateLimitWindow, 'name'>>) => {
    for (const { item, params } of parameterList(headers.get(header))) {
      const name = unquote(item);
      const window = windows.get(name) ?? { name };
      for (const [key, field] of Object.entries(fields)) {
        const number = integer(params.get(key));
        if (number !== undefined) window[field] = number;
      }
      windows.set(name, window);
    }
  };
  merge('RateLimit-Policy', { q: 'quota', w: 'windowSeconds' });
  merge('RateLimit', { r: 'remaining', t: 'resetSeconds' });
  return { limit, remaining, reset, windows: [...windows.values()] };
}

/** The target of `Link: <…>; rel="next"`, resolved against `base`; undefined on the last page. */
export function nextLink(headers: Headers, base: string): string | undefined {
  for (const { item, params } of parameterList(headers.get('Link'))) {
    const relations = (params.get('rel') ?? '').toLowerCase().split(/\s+/);
    if (item.startsWith('<') && item.endsWith('>') && relations.includes('next')) {
      return new URL(item.slice(1, -1), base).href;
    }
  }
  return undefined;
}
