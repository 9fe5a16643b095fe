import { API_VERSION_PREFIX, methodsByPath, ROUTES, type Route } from '../lambda/api/routes';

export type RouteMatch =
  | { kind: 'route'; route: Route; resource: string; pathParameters: Record<string, string> | null }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

interface CompiledPath {
  template: string;
  segments: string[];
}

const compiled: CompiledPath[] = [...methodsByPath(ROUTES).keys()].map((template) => ({
  template,
  segments: `${API_VERSION_PREFIX}${template}`.split('/').slice(1),
}));

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const parameters: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    const value = actual[index] ?? '';
    const parameter = /^\{(\w+)\}$/.exec(part)?.[1];
    if (parameter) {
      if (value === '') return undefined;
      parameters[parameter] = value;
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
 * Matches a request the way API Gateway matches the resources the stack builds
 * from the same route table: an unknown path is not found, a known path with
 * another method is 405.
 */
export function matchRoute(method: string, pathname: string): RouteMatch {
  const trimmed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  const actual = trimmed.split('/').slice(1).map(decodeSegment);
  for (const path of compiled) {
    const parameters = matchSegments(path.segments, actual);
    if (!parameters) continue;
    const routes = ROUTES.filter((route) => route.path === path.template);
    const route = routes.find((candidate) => candidate.method === method);
    if (!route) return { kind: 'method-not-allowed', allow: routes.map((candidate) => candidate.method) };
    return {
      kind: 'route',
      route,
      resource: `${API_VERSION_PREFIX}${path.template}`,
      pathParameters: Object.keys(parameters).length > 0 ? parameters : null,
    };
  }
  return { kind: 'not-found' };
}
