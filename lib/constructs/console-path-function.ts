/** The key prefix of the page in the bucket, and its path on the site: `/console/`. */
export const CONSOLE_PAGE_PREFIX = 'console';

/**
 * The viewer-request function of the page behaviour (cloudfront-js-2.0): `/` and `/console`
 * answer 301 to `/console/`, and a path ending in `/` is that folder's `index.html`, so
 * `/console/` serves the page and `/console/index.html` still works.
 */
export const CONSOLE_PATH_FUNCTION_SOURCE = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === '/' || uri === '/${CONSOLE_PAGE_PREFIX}') {
    return { statusCode: 301, statusDescription: 'Moved Permanently', headers: { location: { value: '/${CONSOLE_PAGE_PREFIX}/' } } };
  }
  if (uri.endsWith('/')) request.uri = uri + 'index.html';
  return request;
}
`;
