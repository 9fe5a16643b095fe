/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/client/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '\\.[cm]?[jt]s$': '<rootDir>/test/support/esbuild-jest-transform.js' },
  // middy ships ES modules only; let the transform turn them into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!(@middy|@aws/lambda-invoke-store)/)'],
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  setupFiles: ['<rootDir>/test/support/setup-env.ts'],
  // A folder for the run where test files share synthesized templates (test/support/synth-cache.ts).
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // One worker per core: jest's default (one less) runs a 2-core machine's suite in one
  // process, idle while its servers, tools and browsers work.
  maxWorkers: '100%',
  testTimeout: 30000,
  // Coverage, collected by `npm test` (jest --coverage) and not by a run of a few files: V8's
  // own counters, with no instrumenting transform, so it costs little.
  coverageProvider: 'v8',
  collectCoverageFrom: [
    '{bin,lib,lambda,local,tools}/**/*.ts',
    'client/src/**/*.ts',
    // The console's page runs in the browser, where jest does not count; its build runs here.
    'console/*.ts',
  ],
  coverageReporters: ['text-summary', 'json-summary'],
};
