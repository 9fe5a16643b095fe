import { API_VERSION_PREFIX, catchAllPaths, ROUTES, type Route } from '../lambda/api/routes';

export type RouteMatch =
  | { kind: 'route'; route: Route; resource: string; pathParameters: Record<string, string> | null }
  /** Under the prefix, but no route has this path and method: the catch-all function answers. */
  | { kind: 'catch-all'; resource: string; pathParameters: Record<string, string> | null }
  /** Outside the prefix: no resource, so API Gateway answers itself. */
  | { kind: 'outside-prefix' };

interface CompiledPath {
  template: string;
  segments: string[];
  /** Ends in a greedy `{name+}` segment, which matches one or more segments. */
  greedy: boolean;
}

/** The resources the stack builds: every route's path and every catch-all path; greedy ones last, as API Gateway prefers the others. */
const compiled: CompiledPath[] = [...new Set([...ROUTES.map((route) => route.path), ...catchAllPaths()])]
  .map((template) => ({
    template,
    segments: `${API_VERSION_PREFIX}${template}`.split('/').slice(1),
    greedy: /\{\w+\+\}$/.test(template),
  }))
  .sort((a, b) => Number(a.greedy) - Number(b.greedy));

function matchSegments(path: CompiledPath, actual: string[]): Record<string, string> | undefined {
  const { segments: pattern, greedy } = path;
  if (greedy ? actual.length < pattern.length : pattern.length !== actual.length) return undefined;
  const parameters: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    const value = actual[index] ?? '';
    const parameter = /^\{(\w+)(\+?)\}$/.exec(part);
    if (parameter?.[2]) {
      parameters[parameter[1] ?? ''] = actual.slice(index).join('/');
    } else if (parameter) {
      if (value === '') return undefined;
      parameters[parameter[1] ?? ''] = value;
    } else if (part !== value) {
      return undefined;
    }
  }
  return parameters;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Matches a request the way API Gateway matches the resources the stack builds from
 * the same route table: a route's own method goes to its operation; any other path or
 * method under the prefix goes to the catch-all (ANY on the route paths, the prefix and
 * the greedy proxy); a path outside the prefix matches no resource.
 */
export function matchRoute(method: string, pathname: string): RouteMatch {
  const trimmed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  const actual = trimmed.split('/').slice(1).map(decodeSegment);
  for (const path of compiled) {
    const parameters = matchSegments(path, actual);
    if (!parameters) continue;
    const resource = `${API_VERSION_PREFIX}${path.template}`;
    const pathParameters = Object.keys(parameters).length > 0 ? parameters : null;
    const route = ROUTES.find((candidate) => candidate.path === path.template && candidate.method === method);
    return route
      ? { kind: 'route', route, resource, pathParameters }
      : { kind: 'catch-all', resource, pathParameters };
  }
  return { kind: 'outside-prefix' };
}
