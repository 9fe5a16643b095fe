import fc from 'fast-check';
import {
  CLOUDFRONT_MODULE_IMPORT,
  redirectFunctionCode,
  TENANT_PARAMETERS,
} from '../../lib/constructs/redirect-function';
import { VIEWER_HOST_HEADER } from '../../lambda/core/edge-request';
import {
  cloudFrontHandler,
  type FunctionEvent,
  type FunctionHandler,
  type FunctionRequest,
  type FunctionResponse,
  type ValueEntry,
} from '../support/cloudfront-function';

/**
 * The redirect function's own source, run in a fresh V8 context the way CloudFront runs it
 * (test/support/cloudfront-function.ts), the request also having runtime 2.0's
 * `rawQueryString()`. The one line a script cannot run, the `cloudfront` import, is bound to a stand-in for that module as the SaaS Manager helper
 * methods page documents it: `distributionTenant.parameters.get(name)` returns the tenant's
 * value and throws DistributionTenantParameterKeyNotFound for a parameter the tenant lacks;
 * on a standard distribution the module itself throws.
 */

type Tenant = { readonly parameters: Readonly<Record<string, string>> } | 'standard distribution';

function cloudfrontModule(tenant: Tenant) {
  return {
    get distributionTenant() {
      if (tenant === 'standard distribution')
        throw new TypeError('distributionTenant module is not available');
      return {
        id: 'dt_1a2b3c4d5e6f7',
        parameters: {
          get(name: string): string {
            const value = tenant.parameters[name];
            if (value === undefined) throw new Error(`DistributionTenantParameterKeyNotFound: ${name}`);
            return value;
          },
        },
      };
    },
  };
}

function loadHandler(tenant: Tenant): FunctionHandler {
  const source = redirectFunctionCode();
  const script = `var cf = cloudfrontModule;${source.slice(CLOUDFRONT_MODULE_IMPORT.length)}`;
  return cloudFrontHandler(script, { cloudfrontModule: cloudfrontModule(tenant) }, 'redirect.mjs');
}

/**
 * The `querystring` object CloudFront makes of a raw query: one entry per name, values as
 * the viewer encoded them, `multiValue` listing every value of a repeated name.
 */
function querystringOf(raw: string | undefined): Record<string, ValueEntry> {
  const query: Record<string, ValueEntry> = Object.create(null);
  for (const pair of raw ? raw.split('&') : []) {
    const at = pair.indexOf('=');
    const [name, value] = at === -1 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    const entry = query[name];
    if (!entry) query[name] = { value };
    else entry.multiValue = [...(entry.multiValue ?? [{ value: entry.value }]), { value }];
  }
  return query;
}

/** A viewer request for `https://<host><uri>[?<raw>]` as CloudFront hands it to a function. */
function viewerRequest(
  host: string,
  uri: string,
  raw?: string,
  options: { method?: string; withRawQueryString?: boolean } = {},
): FunctionEvent {
  const request: FunctionRequest = {
    method: options.method ?? 'GET',
    uri,
    querystring: querystringOf(raw),
    headers: {
      host: { value: host },
      accept: { value: 'application/json', multiValue: [{ value: 'application/json' }, { value: '*/*' }] },
      authorization: { value: 'Bearer ask_live_0123456789' },
      'user-agent': { value: 'curl/8.5.0' },
    },
    cookies: { session: { value: 'abc123' } },
  };
  if (options.withRawQueryString ?? true) request.rawQueryString = () => raw;
  return {
    version: '1.0',
    context: {
      endpoint: 'd111111abcdef8.cloudfront.net',
      distributionId: 'EDFDVBD6EXAMPLE',
      eventType: 'viewer-request',
      requestId: '4TyzHTaYWb1GX1qTfsHhEqV6HUDd_BzoBZnwfnvQc_1oF26ClkoUSEQ==',
    },
    viewer: { ip: '198.51.100.11' },
    request,
  };
}

// Parameters by the names the distribution defines (the function's own is checked at synth).
const REDIRECT: Tenant = {
  parameters: {
    [TENANT_PARAMETERS.project]: 'acme',
    [TENANT_PARAMETERS.primaryDomain]: 'shop.acme-pets.example',
  },
};
const PRIMARY: Tenant = { parameters: { [TENANT_PARAMETERS.project]: 'acme' } };

function location(result: FunctionRequest | FunctionResponse): string {
  if (!('statusCode' in result)) throw new Error('The function passed the request on instead of answering');
  return result.headers.location?.value ?? '';
}

describe('redirect function (CloudFront Functions, viewer request)', () => {
  test("a redirect domain answers 301 to the primary domain's https URL, same path and query", () => {
    const result = loadHandler(REDIRECT)(
      viewerRequest('www.acme-pets.example', '/v1/pets', 'status=available&limit=5'),
    );
    expect(result).toEqual({
      statusCode: 301,
      statusDescription: 'Moved Permanently',
      headers: { location: { value: 'https://shop.acme-pets.example/v1/pets?status=available&limit=5' } },
    });
  });

  test("a domain that is not a redirect passes the request on with the viewer's host in x-forwarded-host", () => {
    const event = viewerRequest('shop.acme-pets.example', '/v1/pets/42', 'fields=name');
    const before = structuredClone({ ...event.request, rawQueryString: undefined });
    const result = loadHandler(PRIMARY)(event);
    expect(result).toBe(event.request);
    expect({ ...result, rawQueryString: undefined }).toEqual({
      ...before,
      headers: { ...before.headers, [VIEWER_HOST_HEADER]: { value: 'shop.acme-pets.example' } },
    });
  });

  test('an x-forwarded-host the viewer sent is replaced by the Host it connected with, or dropped without one', () => {
    const event = viewerRequest('shop.acme-pets.example', '/v1/pets');
    event.request.headers[VIEWER_HOST_HEADER] = {
      value: 'victim.example',
      multiValue: [{ value: 'victim.example' }, { value: 'other.example' }],
    };
    const passed = loadHandler(PRIMARY)(event) as FunctionRequest;
    expect(passed.headers[VIEWER_HOST_HEADER]).toEqual({ value: 'shop.acme-pets.example' });

    const hostless = viewerRequest('shop.acme-pets.example', '/v1/pets');
    delete hostless.request.headers.host;
    hostless.request.headers[VIEWER_HOST_HEADER] = { value: 'victim.example' };
    const result = loadHandler(PRIMARY)(hostless) as FunctionRequest;
    expect(result.headers).not.toHaveProperty(VIEWER_HOST_HEADER);
  });

  test('the function names the header the service reads (a rename on one side fails synth)', () => {
    expect(() =>
      redirectFunctionCode(redirectFunctionCode().replace(`'${VIEWER_HOST_HEADER}'`, "'x-viewer-host'")),
    ).toThrow(/VIEWER_HOST_HEADER/);
  });

  test('repeated keys keep their values and order, and encoded characters stay encoded once', () => {
    const raw = 'tag=a%20b&sort=name&tag=c%2Bd&tag=&name=%E5%AE%B6&flag&q=x%3Dy%26z';
    const target = new URL(
      location(loadHandler(REDIRECT)(viewerRequest('acme-pets.example', '/v1/pets', raw))),
    );
    expect(target.search).toBe(`?${raw}`);
    expect(target.searchParams.getAll('tag')).toEqual(['a b', 'c+d', '']);
    expect(target.searchParams.get('name')).toBe('家');
    expect(target.searchParams.get('q')).toBe('x=y&z');
    expect(target.searchParams.has('flag')).toBe(true);
  });

  test('without rawQueryString (a console test event) the parsed query gives the same values', () => {
    const raw = 'tag=a%20b&sort=name&tag=c%2Bd&name=%E5%AE%B6';
    const event = viewerRequest('acme-pets.example', '/v1/pets', raw, { withRawQueryString: false });
    expect(event.request.querystring.tag).toEqual({
      value: 'a%20b',
      multiValue: [{ value: 'a%20b' }, { value: 'c%2Bd' }],
    });
    const target = new URL(location(loadHandler(REDIRECT)(event)));
    expect(target.search).toBe('?tag=a%20b&tag=c%2Bd&sort=name&name=%E5%AE%B6');
    expect(target.searchParams.getAll('tag')).toEqual(['a b', 'c+d']);
  });

  test('an encoded path stays as it is; characters a Location must not carry raw are escaped', () => {
    const handler = loadHandler(REDIRECT);
    expect(location(handler(viewerRequest('acme-pets.example', '/v1/pets/%C3%A9t%C3%A9', 'q=50%25')))).toBe(
      'https://shop.acme-pets.example/v1/pets/%C3%A9t%C3%A9?q=50%25',
    );
    expect(location(handler(viewerRequest('acme-pets.example', '/v1/a b/é"<', 'q=50%&r=ü')))).toBe(
      'https://shop.acme-pets.example/v1/a%20b/%C3%A9%22%3C?q=50%25&r=%C3%BC',
    );
  });

  test('a lone surrogate, which has no UTF-8 form, becomes U+FFFD instead of failing the request', () => {
    expect(location(loadHandler(REDIRECT)(viewerRequest('acme-pets.example', '/v1/\uD800x')))).toBe(
      'https://shop.acme-pets.example/v1/%EF%BF%BDx',
    );
  });

  test('no query, or an empty one after "?", gives a Location without "?"', () => {
    const handler = loadHandler(REDIRECT);
    expect(location(handler(viewerRequest('acme-pets.example', '/v1/pets')))).toBe(
      'https://shop.acme-pets.example/v1/pets',
    );
    expect(location(handler(viewerRequest('acme-pets.example', '/', '')))).toBe(
      'https://shop.acme-pets.example/',
    );
  });

  test('every method is redirected (the API has no method a redirect domain serves)', () => {
    const result = loadHandler(REDIRECT)(
      viewerRequest('acme-pets.example', '/v1/pets', undefined, { method: 'POST' }),
    );
    expect(result).toMatchObject({ statusCode: 301 });
  });

  test('a primary domain that is not a host name is ignored: the request passes on, never sent elsewhere', () => {
    for (const primaryDomain of [
      'evil.example/phish',
      'Shop.Example',
      'localhost',
      'a..b',
      'x.example:8443',
      '',
    ]) {
      const event = viewerRequest('acme-pets.example', '/v1/pets');
      const tenant = {
        parameters: { [TENANT_PARAMETERS.project]: 'acme', [TENANT_PARAMETERS.primaryDomain]: primaryDomain },
      };
      expect(loadHandler(tenant)(event)).toBe(event.request);
    }
  });

  test('on a standard distribution (no tenant module) the request passes on', () => {
    const event = viewerRequest('acme-pets.example', '/v1/pets');
    expect(loadHandler('standard distribution')(event)).toBe(event.request);
  });

  test('any query a browser encodes arrives at the primary domain with the same names and values', () => {
    const handler = loadHandler(REDIRECT);
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.string({ unit: 'grapheme', maxLength: 8 }),
            fc.string({ unit: 'grapheme', maxLength: 8 }),
          ),
          {
            maxLength: 6,
          },
        ),
        fc.boolean(),
        (pairs, withRawQueryString) => {
          const raw = new URLSearchParams(pairs).toString();
          const event = viewerRequest('acme-pets.example', '/v1/pets', raw, { withRawQueryString });
          const value = location(handler(event));
          // Printable ASCII only: nothing a header cannot carry.
          expect(value).toMatch(/^[\x21-\x7e]+$/);
          const target = new URL(value);
          const sent = [...new URLSearchParams(raw)];
          const received = [...target.searchParams];
          // Without rawQueryString, the values of each name arrive in their order, names in any order.
          const byName = (entries: [string, string][]) =>
            Object.fromEntries(
              entries.map(([name]) => [name, entries.filter(([n]) => n === name).map(([, value]) => value)]),
            );
          expect(withRawQueryString ? received : byName(received)).toEqual(
            withRawQueryString ? sent : byName(sent),
          );
          expect(target.host).toBe('shop.acme-pets.example');
        },
      ),
      { seed: 14, numRuns: 300 },
    );
  });
});
