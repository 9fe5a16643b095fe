import { connect, type Socket } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { jsonResponse } from '../../../lambda/api/http';
import { PLANS } from '../../../lambda/core/plans';
import { type CounterStore, RateLimiter } from '../../../lambda/core/rate-limiter';
import { apiHandler } from '../../../lambda/middleware/api-handler';
import { concurrentInvocations } from '../../../lambda/shared/observability';
import { type CapturedOutput, captureOutput } from '../../support/capture-output';
import { lambdaContext, proxyEvent } from '../../support/events';
import { startTestApi, type TestApi } from '../../support/test-api';

// Before the logger is made (on first use): the tests read the INFO lines.
process.env.POWERTOOLS_LOG_LEVEL = 'INFO';

type LogLine = Record<string, unknown>;

function jsonLines(output: CapturedOutput): LogLine[] {
  return output
    .lines()
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** Resolves once a captured line passes `test`: the server runs in this process, so its lines land here. */
async function lineWhere(output: CapturedOutput, test: (line: LogLine) => boolean): Promise<LogLine> {
  for (;;) {
    const found = jsonLines(output).find(test);
    if (found) return found;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A promise with its resolve function, to hold a handler at a point the test chooses. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => undefined as void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function eventWithRequestId(requestId: string): APIGatewayProxyEvent {
  const event = proxyEvent();
  return { ...event, requestContext: { ...event.requestContext, requestId } };
}

describe('each log line names its own request', () => {
  describe('invocations running at once in one process (the local server)', () => {
    const NOW = Date.UTC(2026, 10, 22, 10, 0, 30);
    const admits: CounterStore = {
      countInSameMinute: async () => ({ counted: true, state: { minute: 0, minuteCount: 1, dayCount: 1 } }),
      countInNewMinute: async () => ({ counted: true, state: { minute: 0, minuteCount: 1, dayCount: 1 } }),
      read: async () => ({ minute: 0, minuteCount: 1, dayCount: 1 }),
      ban: async () => undefined,
    };
    const limiter = new RateLimiter(admits, () => NOW);

    it('keep their function name, request id and correlation id apart, however they interleave', async () => {
      expect(PLANS.free.limits.perMinute).toBeGreaterThan(1);
      const invoke = concurrentInvocations();
      const list = { reached: deferred(), release: deferred() };
      const get = { reached: deferred(), release: deferred() };
      const held = (gate: typeof list) => async (): Promise<APIGatewayProxyResult> => {
        gate.reached.resolve();
        await gate.release.promise;
        return jsonResponse(200, []);
      };
      const listPets = apiHandler('listPets', held(list), { limiter, clock: Date.now });
      const getPet = apiHandler('getPet', held(get), { limiter, clock: Date.now });
      const call = (handler: typeof listPets, name: string, id: string) =>
        invoke(() =>
          handler(eventWithRequestId(id), { ...lambdaContext, functionName: name, awsRequestId: id }),
        );

      const output = captureOutput();
      try {
        // listPets starts, then getPet starts while listPets waits; listPets ends first, then getPet.
        const listed = call(listPets, 'listPets', 'request-list');
        await list.reached.promise;
        const got = call(getPet, 'getPet', 'request-get');
        await get.reached.promise;
        list.release.resolve();
        await listed;
        get.release.resolve();
        await got;
      } finally {
        output.restore();
      }
      const requests = jsonLines(output).filter((line) => line.message === 'request');
      expect(requests).toEqual([
        expect.objectContaining({
          operation: 'listPets',
          function_name: 'listPets',
          function_request_id: 'request-list',
          correlationId: 'request-list',
        }),
        expect.objectContaining({
          operation: 'getPet',
          function_name: 'getPet',
          function_request_id: 'request-get',
          correlationId: 'request-get',
        }),
      ]);
    });
  });

  describe('over HTTP, with a request the client abandons mid-body', () => {
    let t: TestApi;
    let apiKey: string;
    beforeAll(async () => {
      t = await startTestApi();
      ({ apiKey } = await t.issueKey());
    });
    afterAll(() => t.close());

    /** Opens a POST /v1/pets that announces a body and sends only its first bytes. */
    async function unfinishedCreate(): Promise<Socket> {
      const socket = connect(t.api.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        [
          'POST /v1/pets HTTP/1.1',
          `Host: 127.0.0.1:${t.api.port}`,
          `Authorization: Bearer ${apiKey}`,
          'Content-Type: application/json',
          'Content-Length: 100',
          '',
          '{"name":"Half',
        ].join('\r\n'),
      );
      return socket;
    }

    it('log the abandoned request as its own (not as an error of another), and every other line as its own', async () => {
      const output = captureOutput();
      const ids: Record<string, string> = {};
      try {
        const listed = await t.request('/pets', { apiKey });
        ids.listPets = listed.headers.get('x-amzn-requestid') ?? '';
        await listed.arrayBuffer();

        // The unfinished create is open while getPet runs, then its client goes away.
        const unfinished = await unfinishedCreate();
        const got = await t.request('/pets/1', { apiKey });
        ids.getPet = got.headers.get('x-amzn-requestid') ?? '';
        await got.arrayBuffer();
        unfinished.destroy();
        const abandoned = await lineWhere(
          output,
          (line) => line.path === '/v1/pets' && line.method === 'POST',
        );
        expect(abandoned).toMatchObject({ level: 'INFO', correlationId: expect.any(String) });
        expect(Object.values(ids)).not.toContain(abandoned.correlationId);
        expect(abandoned).not.toHaveProperty('function_name');
        expect(abandoned).not.toHaveProperty('function_request_id');
      } finally {
        output.restore();
      }

      const lines = jsonLines(output);
      expect(lines.filter((line) => line.level === 'ERROR')).toEqual([]);
      for (const [operation, id] of Object.entries(ids)) {
        expect(lines.filter((line) => line.function_request_id === id)).toEqual([
          expect.objectContaining({
            message: 'request',
            operation,
            function_name: operation,
            correlationId: id,
          }),
        ]);
      }
      for (const line of lines) {
        if ('function_request_id' in line) expect(line.correlationId).toBe(line.function_request_id);
      }
    });
  });
});
