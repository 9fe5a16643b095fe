import type ProviderModule from 'oidc-provider';

/**
 * `oidc-provider`, imported once. It is ES modules only (jest transforms it: jest.config.js), and
 * on Node 20 its import prints "Unsupported runtime. Use Node.js v22.x LTS": local mode runs on
 * this machine's Node 20 while Lambda runs Node 22, and the provider runs only locally, so that
 * one line is kept out of `npm start`'s and the tests' output; every other warning passes.
 */
let loading: Promise<typeof ProviderModule> | undefined;

const UNSUPPORTED_RUNTIME = 'oidc-provider WARNING: Unsupported runtime';

export function loadOidcProvider(): Promise<typeof ProviderModule> {
  loading ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes(UNSUPPORTED_RUNTIME)) return;
      warn(...args);
    };
    try {
      return (await import('oidc-provider')).default;
    } finally {
      console.warn = warn;
    }
  })();
  return loading;
}
