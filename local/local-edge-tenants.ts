import type {
  CertificateFacts,
  EdgeCertificate,
  EdgeRoute,
  EdgeTenants,
  OwnCertificate,
} from '../lambda/core/custom-domains/edge-tenants';
import type { EdgeRoute as LocalRoute, HttpsEdge } from './https-edge';
import type {
  CertificateStatus,
  LocalCertificateAuthority,
  PendingReason,
} from './local-certificate-authority';

/**
 * The domains service's edge in local mode: each domain's tenant is a route of the local HTTPS
 * edge, its managed certificate a request to the local certificate authority. A certificate is
 * tried when the service asks for its state (and by `attemptPending`, which `npm start` runs on
 * an interval), so a test decides every step and needs no timer.
 *
 * Local mode has no ACM: an imported domain's certificate of its own ({@link OwnCertificate}) is
 * issued at once, and its tenant gets the local authority's certificate like any other (the
 * local old targets reach this edge too, so its HTTP validation passes).
 */
export interface LocalEdgeTenants extends EdgeTenants {
  /** One validation try for every pending certificate (issued ones start serving at once). */
  attemptPending(): Promise<void>;
}

export interface LocalEdgeTenantsOptions {
  readonly edge: HttpsEdge;
  readonly authority: LocalCertificateAuthority;
}

const normalize = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

/** The ARN-like name of an imported domain's certificate of its own in local mode. */
export const LOCAL_OWN_CERTIFICATE_PREFIX = 'local-certificate:';

/** What a route of the edge does, without its certificate or token. */
/**
 * The facts of a pending or timed-out local certificate, as the cloud's edge reports them (HTTP
 * validation). The sandbox authority's own message passes through as data: it says what the
 * developer's setup lacks (e.g. the HTTP fetch it got), which the cloud's words cannot.
 */
function validationFacts(
  cause: 'validation-pending' | 'validation-timed-out',
  reason: PendingReason | undefined,
): CertificateFacts {
  return { cause, validatedBy: 'http', ...(reason ? { authorityMessage: reason.message } : {}) };
}

function routeOf(route: LocalRoute): EdgeRoute {
  return route.role === 'redirect'
    ? { project: route.project, role: 'redirect', primary: route.primary }
    : { project: route.project, role: 'serve' };
}

/** A route of the edge with what the tenant has already: its certificate, or its pending token. */
function withCertificate(route: EdgeRoute, current: LocalRoute): LocalRoute {
  return {
    ...route,
    ...(current.certificate ? { certificate: current.certificate } : {}),
    ...(current.validationToken ? { validationToken: current.validationToken } : {}),
  };
}

export function localEdgeTenants({ edge, authority }: LocalEdgeTenantsOptions): LocalEdgeTenants {
  /** A fresh certificate request, its token served by the edge over plain HTTP. */
  const request = (domain: string, route: EdgeRoute) => {
    const status = authority.request(domain);
    if (status.state !== 'pending-validation') throw new Error(`${domain}: the request is ${status.state}`);
    edge.setRoute(domain, { ...route, validationToken: status.validation });
  };

  /** Puts an issued certificate on the domain's route (idempotent), and says what the status means. */
  const settle = (domain: string, status: CertificateStatus): EdgeCertificate => {
    switch (status.state) {
      case 'issued': {
        const route = edge.routes().get(domain);
        if (route && route.certificate !== status.certificate) {
          edge.setRoute(domain, { ...routeOf(route), certificate: status.certificate });
        }
        return { state: 'issued' };
      }
      case 'pending-validation':
        return { state: 'pending', ...validationFacts('validation-pending', status.reason) };
      case 'validation-timed-out':
        return { state: 'timed-out', ...validationFacts('validation-timed-out', status.reason) };
    }
  };

  const attempt = async (domain: string): Promise<EdgeCertificate> => {
    const status = authority.status(domain);
    if (!status || !edge.routes().has(domain)) return { state: 'none' };
    return settle(domain, await authority.attempt(domain));
  };

  const own = (arn: string): OwnCertificate =>
    arn.startsWith(LOCAL_OWN_CERTIFICATE_PREFIX)
      ? { arn, state: 'issued' }
      : { arn, state: 'none', cause: 'gone', validatedBy: 'dns' };

  return {
    // With a certificate of its own (an imported domain), the same: see the comment above.
    attach: async (name, route) => {
      const domain = normalize(name);
      const current = edge.routes().get(domain);
      const status = authority.status(domain);
      // Attached already with its certificate (or its request): only the route changes.
      if (current && status && status.state !== 'validation-timed-out') {
        edge.setRoute(domain, withCertificate(route, current));
        return;
      }
      request(domain, route);
    },
    reroute: async (name, route) => {
      const domain = normalize(name);
      const current = edge.routes().get(domain);
      if (!current) throw new Error(`${domain} has no tenant at the edge.`);
      edge.setRoute(domain, withCertificate(route, current));
    },
    certificate: (name) => attempt(normalize(name)),
    renewCertificate: async (name) => {
      const domain = normalize(name);
      const current = edge.routes().get(domain);
      if (!current) throw new Error(`${domain} has no tenant at the edge.`);
      request(domain, routeOf(current));
    },
    requestOwnCertificate: async (name) => own(`${LOCAL_OWN_CERTIFICATE_PREFIX}${normalize(name)}`),
    ownCertificate: async (arn) => own(arn),
    checkDns: async () => undefined,
    detach: async (name) => {
      const domain = normalize(name);
      edge.removeRoute(domain);
      authority.forget(domain);
    },
    tenants: async () => [...edge.routes().keys()],
    attemptPending: async () => {
      for (const [domain] of edge.routes()) {
        if (authority.status(domain)?.state === 'pending-validation') await attempt(domain);
      }
    },
  };
}
