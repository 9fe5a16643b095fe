/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/client/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '\\.[cm]?[jt]s$': '<rootDir>/test/support/esbuild-jest-transform.js' },
  // middy ships ES modules only; let the transform turn them into CommonJS for jest.
  // So do the OpenID packages (issue 26): the client, the local provider and what they import.
  transformIgnorePatterns: [
    '/node_modules/(?!(@middy|@aws/lambda-invoke-store|openid-client|oauth4webapi|oidc-provider|jose|koa|@koa|quick-lru|eta)/)',
  ],
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  setupFiles: ['<rootDir>/test/support/setup-env.ts'],
  // A folder for the run where test files share synthesized templates (test/support/synth-cache.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // One worker per core: jest's default (one less) runs a 2-core machine's suite in one
  // process, idle while its servers, tools and browsers work.
  maxWorkers: '100%',
  testTimeout: 30000,
  // Coverage, collected by `npm run test:coverage` and CI (jest --coverage), not by `npm test`
  // or a run of a few files: V8's own counters, with no instrumenting transform; still about
  // 2 s of CPU per test file, which would double the edit loop's time.
  coverageProvider: 'v8',
  collectCoverageFrom: [
    '{bin,lib,lambda,local,tools}/**/*.ts',
    'client/src/**/*.ts',
    // The console's page runs in the browser, where jest does not count; its build runs here.
    'console/*.ts',
  ],
  coverageReporters: ['text-summary', 'json-summary'],
  /**
   * Floors, in percent: the whole suite's figures (`npm run test:coverage`) when they were set,
   * rounded down (doc/testing.md). A change that leaves code untested fails the coverage run.
   */
  coverageThreshold: {
    './console/': { lines: 100, branches: 90 },
    './client/src/': { lines: 96, branches: 95 },
    './lambda/api/': { lines: 99, branches: 92 },
    './lambda/composition/': { lines: 99, branches: 94 },
    './lambda/core/': { lines: 98, branches: 93 },
    './lambda/handlers/': { lines: 100, branches: 87 },
    './lambda/middleware/': { lines: 98, branches: 91 },
    './lambda/operations/': { lines: 98, branches: 93 },
    './lambda/shared/': { lines: 97, branches: 92 },
    './lambda/store/': { lines: 98, branches: 90 },
    './lib/': { lines: 99, branches: 96 },
    './local/': { lines: 95, branches: 83 },
    './tools/': { lines: 90, branches: 81 },
  },
};
