import cf from 'cloudfront';
/* eslint-disable @typescript-eslint/no-unused-vars -- CloudFront calls handler by name; catch keeps its binding (ES 5.1 core). */

// CloudFront Function (cloudfront-js-2.0) on viewer request of the multi-tenant distribution.
// A redirect domain's tenant carries the tenant parameter below with its project's primary
// domain: the viewer gets 301 to the same path and query there. Every other request passes
// on with the viewer's host in the header below (the origin is the project's address, so it
// sees that as Host, and checks the domain is still served: removal takes effect there at
// once). The `cloudfront` module (the only import the runtime has) reads tenant parameters:
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/saas-specific-logic-function-code.html
// lib/constructs/redirect-function.ts checks that this name is TENANT_PARAMETERS.primaryDomain.
const PRIMARY_DOMAIN_PARAMETER = 'primaryDomain';
// lib/constructs/redirect-function.ts checks that this name is the service's VIEWER_HOST_HEADER.
const VIEWER_HOST_HEADER = 'x-forwarded-host';

// A lower-case host name of two labels or more: anything else in the parameter is a
// misconfiguration, and the request is served as it came rather than sent somewhere odd.
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

// What may stay as it is in a URL's path or query (RFC 3986 pchar, "/" and "?", and "%" that
// starts an escape). CloudFront hands functions the path and query as the viewer encoded them,
// so existing escapes are kept as they are (re-encoding would turn %20 into %2520) and only
// characters a Location header must not carry raw are escaped.
const UNSAFE = /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]+/g;

function escapeUnsafe(text) {
  return text.replace(UNSAFE, function (run) {
    try {
      return encodeURIComponent(run);
    } catch (e) {
      // A lone surrogate cannot be UTF-8: it becomes U+FFFD rather than failing the request.
      return encodeURIComponent(run.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
    }
  });
}

function primaryDomain() {
  try {
    var value = cf.distributionTenant.parameters.get(PRIMARY_DOMAIN_PARAMETER);
    return typeof value === 'string' && HOST_NAME.test(value) ? value : '';
  } catch (e) {
    // DistributionTenantParameterKeyNotFound: this tenant is not a redirect domain.
    return '';
  }
}

// The query string as the viewer sent it: rawQueryString() (runtime 2.0) keeps the order of
// repeated keys; without it, the parsed object, each value of a repeated key in turn.
function queryOf(request) {
  if (typeof request.rawQueryString === 'function') {
    var raw = request.rawQueryString();
    return raw ? '?' + escapeUnsafe(raw) : '';
  }
  var parts = [];
  var query = request.querystring || {};
  for (var name in query) {
    var entry = query[name];
    var values = entry.multiValue ? entry.multiValue : [entry];
    for (var i = 0; i < values.length; i++) {
      parts.push(escapeUnsafe(name) + '=' + escapeUnsafe(values[i].value));
    }
  }
  return parts.length > 0 ? '?' + parts.join('&') : '';
}

function handler(event) {
  var request = event.request;
  var primary = primaryDomain();
  if (!primary) {
    // Always the edge's own statement: a value the viewer sent is replaced, or dropped.
    var host = request.headers.host;
    if (host && host.value) request.headers[VIEWER_HOST_HEADER] = { value: host.value };
    else delete request.headers[VIEWER_HOST_HEADER];
    return request;
  }
  return {
    statusCode: 301,
    statusDescription: 'Moved Permanently',
    headers: {
      location: { value: 'https://' + primary + escapeUnsafe(request.uri) + queryOf(request) },
    },
  };
}
