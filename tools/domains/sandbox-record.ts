import { SANDBOX_RECORDS_PATH } from '../../local/console-gateway';
import { SANDBOX_RECORD_TYPES } from '../../local/sandbox-dns';
import { Refusal, UsageError } from '../failures';
import type { DomainsCommandIo } from './io';
import { type DomainsCommandSpec, type DomainsValues, PERSONAL_TOKEN_VARIABLE, TOKEN_HINT } from './options';
import { consoleTokenOf, localBase } from './service';

export const SANDBOX_RECORD_DECLARATION: DomainsCommandSpec = {
  name: 'sandbox-record',
  operands: ['name', 'type', 'value?'],
  options: ['remove', 'ttl'],
  summary: [
    `Local mode: add a record to the sandbox DNS zone of npm start (types ${SANDBOX_RECORD_TYPES.join(', ')}),`,
    "e.g. sandbox-record shop.example.test CNAME domains.localhost; with --remove, remove the name's",
    'records of that type (only the one with that value when given). Its port is PORT, as npm start reads it.',
    `As the project of ${PERSONAL_TOKEN_VARIABLE} (or the console token's), in zones no other project holds records in.`,
  ].join('\n'),
};

/** `sandbox-record`: adds or removes a record in the sandbox DNS of the running local mode. */
export async function sandboxRecord(
  io: DomainsCommandIo,
  [name = '', rawType = '', value]: readonly string[],
  values: DomainsValues,
): Promise<number> {
  const type = rawType.toUpperCase();
  if (!(SANDBOX_RECORD_TYPES as readonly string[]).includes(type)) {
    throw new UsageError(
      `Record type ${JSON.stringify(rawType)}: use one of ${SANDBOX_RECORD_TYPES.join(', ')}.`,
    );
  }
  if (!values.remove && value === undefined) {
    throw new UsageError(`Give the record's value, e.g. sandbox-record ${name} ${type} domains.localhost.`);
  }
  const ttl = values.ttl === undefined ? undefined : Number(values.ttl);
  if (ttl !== undefined && !(Number.isInteger(ttl) && ttl >= 0)) {
    throw new UsageError(`--ttl ${values.ttl}: give a whole number of seconds.`);
  }
  const token = consoleTokenOf(io);
  const base = localBase(io);
  const url = new URL(SANDBOX_RECORDS_PATH, base);
  const authorization = { Authorization: `Bearer ${token}` };
  let response: Response;
  try {
    if (values.remove) {
      url.search = new URLSearchParams({ name, type, ...(value === undefined ? {} : { value }) }).toString();
      response = await fetch(url, { method: 'DELETE', headers: authorization });
    } else {
      response = await fetch(url, {
        method: 'POST',
        headers: { ...authorization, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name, type, value, ...(ttl === undefined ? {} : { ttl }) }),
      });
    }
  } catch {
    throw new Refusal(
      `No local mode answers at ${base}: start it with npm start (and set PORT to its port).`,
    );
  }
  const body = (await response.json().catch(() => ({}))) as {
    message?: string;
    removed?: number;
    name?: string;
    type?: string;
    value?: string;
    ttl?: number;
  };
  if (!response.ok) {
    const hint = response.status === 401 ? TOKEN_HINT : '';
    throw new Refusal(`${body.message ?? `The sandbox DNS at ${base} answered ${response.status}.`}${hint}`);
  }
  io.out(
    values.remove
      ? `Sandbox DNS: removed ${body.removed ?? 0} ${type} record${body.removed === 1 ? '' : 's'} of ${name}.`
      : `Sandbox DNS: ${body.name} ${body.type} ${body.value} (TTL ${body.ttl}).`,
  );
  return 0;
}
