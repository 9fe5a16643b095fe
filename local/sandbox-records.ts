import type { APIGatewayProxyResult } from 'aws-lambda';
import { CONSOLE_API_PREFIX } from '../lambda/api/console-routes';
import { ApiError } from '../lambda/api/errors';
import { jsonResponse } from '../lambda/api/http';
import type { Schema } from '../lambda/api/validate';
import { registrableDomain } from '../lambda/core/custom-domains/custom-domain';
import type { ApiLambdaHandler } from '../lambda/middleware/api-handler';
import {
  type ConsoleEvent,
  consoleHandler,
  type ConsoleStackDependencies,
  type ConsoleStackRoute,
} from '../lambda/middleware/console-handler';
import {
  InvalidSandboxRecord,
  normalizeDnsName,
  type SandboxDns,
  type SandboxRecord,
  type SandboxRecordType,
} from './sandbox-dns';

/**
 * The sandbox DNS's records over HTTP, local mode only (never deployed): where a tenant creates
 * its records (`npm run domains -- sandbox-record`). The sandbox answers for every name, so
 * writing to it is rewriting DNS: it takes the console's credentials and checks, through the
 * console's own stack (a console token as bearer, or the session cookie with the console's
 * `Origin` and the CSRF token for a change; a JSON body; counted as the project's console calls),
 * and each project sees and changes only its own zones.
 */

/** The sandbox DNS's records over HTTP: local mode only, never deployed. */
export const SANDBOX_RECORDS_PATH = `${CONSOLE_API_PREFIX}/sandbox/records`;

/** `POST`: one record; `type` in any case, `ttl` in seconds (default 3600). */
const RECORD_BODY: Schema = {
  type: 'object',
  required: ['name', 'type', 'value'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 300 },
    type: { type: 'string', minLength: 1, maxLength: 10 },
    value: { type: 'string', maxLength: 4000 },
    ttl: { type: 'integer', minimum: 0, maximum: 2 ** 31 - 1 },
  },
  additionalProperties: false,
};

const ROUTES = {
  GET: { operationId: 'sandboxRecords', method: 'GET', queryParameters: ['name'] },
  POST: { operationId: 'sandboxRecords', method: 'POST', queryParameters: [], requestBody: RECORD_BODY },
  DELETE: { operationId: 'sandboxRecords', method: 'DELETE', queryParameters: ['name', 'type', 'value'] },
} as const satisfies Record<string, ConsoleStackRoute>;

export interface SandboxRecordsInput {
  readonly dns: SandboxDns;
  /** Local mode's platform domain (`localhost`): its names are local mode's own. */
  readonly platformDomain: string;
  /** The console's stack dependencies: the same projects, sessions, origins and limiter. */
  readonly stack: ConsoleStackDependencies;
}

/** What the endpoint shows of a record: never its owner, which is always the caller. */
const view = ({ name, type, value, ttl }: SandboxRecord) => ({ name, type, value, ttl });

/**
 * Whose zone a name is in. A zone (the name's registrable domain, by the Public Suffix List, as
 * the domains service reads it) belongs to the project that holds records in it, as a zone
 * belongs to one account at a DNS provider; the platform's domain is local mode's own. So one
 * project can never change what another's names answer, CAA on a parent included.
 */
function refuseForeignZone(
  dns: SandboxDns,
  platformDomain: string,
  project: string,
  rawName: string,
): string {
  const name = normalizeDnsName(rawName);
  if (name === platformDomain || name.endsWith(`.${platformDomain}`)) {
    throw new ApiError(
      'sandbox_zone_taken',
      `${name} is under ${platformDomain}, local mode's own domain: its records are local mode's (the target's address), not a project's.`,
    );
  }
  const zone = registrableDomain(name);
  const foreign = dns
    .records()
    .some((record) => record.owner !== project && registrableDomain(record.name) === zone);
  if (foreign) {
    throw new ApiError(
      'sandbox_zone_taken',
      `The zone ${zone} holds records that are not project ${project}'s (another project's, or local mode's own): only their owner changes them.`,
    );
  }
  return name;
}

/** The records endpoint as a console function: GET lists, POST adds, DELETE removes the caller's records. */
export function sandboxRecordsApi({ dns, platformDomain, stack }: SandboxRecordsInput): ApiLambdaHandler {
  /** A record the sandbox refuses is the request's fault: its body's, or its query's. */
  const recordCall = (
    from: 'invalid_body' | 'invalid_parameter',
    call: () => APIGatewayProxyResult,
  ): APIGatewayProxyResult => {
    try {
      return call();
    } catch (error) {
      if (error instanceof InvalidSandboxRecord) throw new ApiError(from, error.message);
      throw error;
    }
  };
  const handlers: Record<string, ApiLambdaHandler> = {
    GET: consoleHandler(
      ROUTES.GET,
      async (event) =>
        recordCall('invalid_parameter', () => {
          const project = event.project.name;
          const name = event.query.name === undefined ? undefined : normalizeDnsName(event.query.name);
          const records = dns.records(name).filter((record) => record.owner === project);
          return jsonResponse(200, { records: records.map(view) });
        }),
      stack,
    ),
    POST: consoleHandler(
      ROUTES.POST,
      async (event: ConsoleEvent<{ name: string; type: string; value: string; ttl?: number }>) =>
        recordCall('invalid_body', () => {
          const { name, type, value, ttl } = event.jsonBody;
          const project = event.project.name;
          refuseForeignZone(dns, platformDomain, project, name);
          const record = dns.setRecord({
            name,
            type: type.toUpperCase() as SandboxRecordType,
            value,
            owner: project,
            ...(ttl === undefined ? {} : { ttl }),
          });
          return jsonResponse(201, view(record));
        }),
      stack,
    ),
    DELETE: consoleHandler(
      ROUTES.DELETE,
      async (event) =>
        recordCall('invalid_parameter', () => {
          const { name, type, value } = event.query;
          if (!name || !type) {
            throw new ApiError('invalid_parameter', 'Give name and type (and value to remove one record).');
          }
          const project = event.project.name;
          const owned = refuseForeignZone(dns, platformDomain, project, name);
          const removed = dns.removeRecord({
            name: owned,
            type: type.toUpperCase() as SandboxRecordType,
            ...(value === undefined ? {} : { value }),
          });
          return jsonResponse(200, { removed });
        }),
      stack,
    ),
  };
  const otherMethods = consoleHandler(
    undefined,
    async (event) => {
      throw new ApiError(
        'method_not_allowed',
        `${SANDBOX_RECORDS_PATH} takes GET, POST and DELETE, not ${event.httpMethod}.`,
        {
          Allow: 'GET, POST, DELETE',
        },
      );
    },
    stack,
  );
  return (event, context) => (handlers[event.httpMethod] ?? otherMethods)(event, context);
}
