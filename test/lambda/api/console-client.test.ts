import { type ConsoleCall, consoleCall, consoleClient } from '../../../lambda/api/console-client';

describe('the console API client', () => {
  it('puts each path parameter in its place, encoded', () => {
    expect(consoleCall('verifyDomain', { path: { name: 'shop.example.com' } })).toEqual({
      operationId: 'verifyDomain',
      method: 'POST',
      path: '/domains/shop.example.com/verify',
    });
    expect(consoleCall('rotateKey', { path: { keyId: 'a/b?c' } }).path).toBe('/keys/a%2Fb%3Fc/rotate');
  });

  it('appends the query parameters given, and only those', () => {
    expect(
      consoleCall('removeDomain', { path: { name: 'shop.example.com' }, query: { confirm: 'traffic-stops' } })
        .path,
    ).toBe('/domains/shop.example.com?confirm=traffic-stops');
    expect(consoleCall('removeDomain', { path: { name: 'a.example' }, query: {} }).path).toBe(
      '/domains/a.example',
    );
  });

  it('sends the body of a route that takes one, and none otherwise', () => {
    expect(consoleCall('addDomain', { body: { name: 'a.example', redirect: true } })).toEqual({
      operationId: 'addDomain',
      method: 'POST',
      path: '/domains',
      body: { name: 'a.example', redirect: true },
    });
    expect(consoleCall('getUsage')).not.toHaveProperty('body');
  });

  it("calls every route with its own method and path, and resolves to the transport's answer", async () => {
    const sent: ConsoleCall[] = [];
    const client = consoleClient(async <Answer>(call: ConsoleCall): Promise<Answer> => {
      sent.push(call);
      return JSON.parse(JSON.stringify({ domains: [] }));
    });
    await expect(client.call('listDomains')).resolves.toEqual({ domains: [] });
    await client.call('deleteSession');
    await client.call('setPrimaryDomain', { path: { name: 'b.example' } });
    expect(sent.map(({ method, path }) => `${method} ${path}`)).toEqual([
      'GET /domains',
      'DELETE /session',
      'POST /domains/b.example/primary',
    ]);
  });
});

/**
 * What the compiler refuses (`npx tsc --noEmit`): each line below fails to compile, and the
 * expectation fails if one ever compiles. Never run.
 */
export function refusedAtCompileTime(client: ReturnType<typeof consoleClient>): void {
  // @ts-expect-error: a route that does not exist
  void client.call('listPets');
  // @ts-expect-error: verifyDomain needs the domain's name in its path
  void client.call('verifyDomain');
  // @ts-expect-error: addDomain's redirect is a boolean (its schema's type)
  void client.call('addDomain', { body: { name: 'a.example', redirect: 'yes' } });
  // @ts-expect-error: createKey's body has no field colour
  void client.call('createKey', { body: { name: 'ci', colour: 'red' } });
  void client.call('getUsage').then((usage) => {
    // @ts-expect-error: the overview has no field named keys
    void usage.keys;
  });
}
