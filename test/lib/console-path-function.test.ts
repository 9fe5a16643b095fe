import fc from 'fast-check';
import {
  CONSOLE_PAGE_PREFIX,
  CONSOLE_PATH_FUNCTION_SOURCE,
} from '../../lib/constructs/console-path-function';
import {
  cloudFrontHandler,
  type FunctionEvent,
  type FunctionRequest,
  type ValueEntry,
} from '../support/cloudfront-function';

/**
 * The console's path function, its own source run in a fresh V8 context the way CloudFront
 * runs it (test/support/cloudfront-function.ts, as for the redirect function): `handler(event)`
 * is called with a viewer-request event shaped as CloudFront's documented event object (version 1.0,
 * context, viewer, request with lower-case header names and `{ value }` entries).
 */

const handler = cloudFrontHandler(CONSOLE_PATH_FUNCTION_SOURCE);

function viewerRequest(uri: string, querystring: Record<string, ValueEntry> = {}) {
  const request: FunctionRequest = {
    method: 'GET',
    uri,
    querystring,
    headers: { host: { value: 'console.example.com' } },
    cookies: {},
  };
  const event: FunctionEvent = {
    version: '1.0',
    context: { distributionId: 'E1', eventType: 'viewer-request', requestId: 'r-1' },
    viewer: { ip: '203.0.113.9' },
    request,
  };
  return { request, result: handler(event) };
}

const PAGE = `/${CONSOLE_PAGE_PREFIX}/`;

describe('the console path function', () => {
  test.each(['/', `/${CONSOLE_PAGE_PREFIX}`])('answers %s with 301 to the page', (uri) => {
    expect(viewerRequest(uri).result).toEqual({
      statusCode: 301,
      statusDescription: 'Moved Permanently',
      headers: { location: { value: PAGE } },
    });
  });

  test("serves a folder's index.html: the page at /console/, and /console/index.html still works", () => {
    expect(viewerRequest(PAGE).result).toMatchObject({ uri: `${PAGE}index.html` });
    expect(viewerRequest(`${PAGE}index.html`).result).toMatchObject({ uri: `${PAGE}index.html` });
  });

  test('passes any other request on unchanged, query string and headers included', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\/[a-zA-Z0-9._~-]+(\/[a-zA-Z0-9._~-]+)*$/),
        fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.string({ maxLength: 8 })),
        (uri, query) => {
          fc.pre(uri !== `/${CONSOLE_PAGE_PREFIX}`);
          const querystring = Object.fromEntries(Object.entries(query).map(([k, v]) => [k, { value: v }]));
          const { request, result } = viewerRequest(uri, querystring);
          expect(result).toBe(request);
          expect(result).toMatchObject({
            uri,
            querystring,
            headers: { host: { value: 'console.example.com' } },
          });
        },
      ),
    );
  });
});
