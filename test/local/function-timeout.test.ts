import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { API_FUNCTION_TIMEOUT_SECONDS } from '../../lambda/shared/runtime-env';
import { FUNCTION_TIMEOUT_VARIABLE, functionTimeoutMsFrom, invokeProxy } from '../../local/gateway';

const EVENT = {} as APIGatewayProxyEvent;

describe('how long a local function may run', () => {
  it("is the stack's timeout of the API's functions unless FUNCTION_TIMEOUT_SECONDS is set", () => {
    expect(functionTimeoutMsFrom({})).toBe(API_FUNCTION_TIMEOUT_SECONDS * 1000);
    expect(functionTimeoutMsFrom({ [FUNCTION_TIMEOUT_VARIABLE]: '120' })).toBe(120_000);
  });

  it('is ten minutes in the tests, so that none depends on how busy the machine is', () => {
    expect(functionTimeoutMsFrom(process.env)).toBe(600_000);
  });

  it.each(['0', '-5', '1.5', 'ten', '', '3601'])(
    'refuses FUNCTION_TIMEOUT_SECONDS=%j, saying what to set',
    (text) => {
      expect(() => functionTimeoutMsFrom({ [FUNCTION_TIMEOUT_VARIABLE]: text })).toThrow(
        `${FUNCTION_TIMEOUT_VARIABLE}=${JSON.stringify(text)}: set it to a whole number of seconds from 1 to 3600.`,
      );
    },
  );

  it('is the time a function is told it has left', async () => {
    let remaining = -1;
    const answer = await invokeProxy(
      async (_event, context: Context) => {
        remaining = context.getRemainingTimeInMillis();
        return { statusCode: 200, body: '' };
      },
      EVENT,
      'fn',
      'request-1',
      120_000,
    );
    expect(answer.statusCode).toBe(200);
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThanOrEqual(120_000);
  });

  it('cuts off a function that runs past it, as Lambda does, and the gateway answers 502', async () => {
    const never = middy<APIGatewayProxyEvent, APIGatewayProxyResult>().handler(
      () => new Promise<APIGatewayProxyResult>(() => {}),
    );
    const answer = await invokeProxy(never, EVENT, 'fn', 'request-2', 50);
    expect(answer.statusCode).toBe(502);
    expect(JSON.parse(answer.body)).toEqual(expect.objectContaining({ code: 'bad_gateway', status: 502 }));
  });
});
