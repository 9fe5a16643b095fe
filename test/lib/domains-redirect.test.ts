import type { APIGatewayProxyEvent } from 'aws-lambda';
import { handler, REDIRECT_TARGET_ENV, redirectLocation } from '../../lambda/handlers/redirect';

function event(path: string, query: Record<string, string[]> | null, host = 'www.acme-pets.example') {
  return {
    httpMethod: 'GET',
    path,
    headers: { Host: host },
    multiValueQueryStringParameters: query,
  } as unknown as APIGatewayProxyEvent;
}

describe('redirect domains', () => {
  beforeAll(() => {
    process.env[REDIRECT_TARGET_ENV] = 'shop.acme-pets.example';
  });

  test('a request to a redirect domain answers 301 to the same path and query on the primary', async () => {
    const response = await handler(event('/v1/pets', { status: ['available'], limit: ['5'] }));
    expect(response.statusCode).toBe(301);
    expect(response.headers?.Location).toBe(
      'https://shop.acme-pets.example/v1/pets?status=available&limit=5',
    );
  });

  test('the root and a path without a query keep their path and add no "?"', async () => {
    expect((await handler(event('/', null))).headers?.Location).toBe('https://shop.acme-pets.example/');
    expect((await handler(event('/v1/pets/42', {}))).headers?.Location).toBe(
      'https://shop.acme-pets.example/v1/pets/42',
    );
  });

  test('repeated and special query values are kept, encoded', () => {
    expect(redirectLocation('p.example', '/v1/pets', { tag: ['a b', 'c&d'] })).toBe(
      'https://p.example/v1/pets?tag=a%20b&tag=c%26d',
    );
  });

  test('the Host header cannot change where it redirects (no open redirect)', async () => {
    const response = await handler(event('/v1/pets', null, 'evil.example'));
    expect(response.headers?.Location).toBe('https://shop.acme-pets.example/v1/pets');
  });
});
