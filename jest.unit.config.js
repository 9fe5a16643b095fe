const base = require('./jest.config');

/**
 * `npm run test:unit`, the edit loop: tests of plain code and of the store in process, with
 * no synthesis, no local API or `npm start`, no tool run as a process and no browser. A new
 * test lands here by its folder; one that starts any of those is listed below.
 * @type {import('jest').Config}
 */
module.exports = {
  ...base,
  // Nothing here synthesizes: no template folder to set up.
  globalSetup: undefined,
  globalTeardown: undefined,
  testMatch: [
    '<rootDir>/test/lambda/**/*.test.ts',
    '<rootDir>/test/console/**/*.test.ts',
    '<rootDir>/test/tools/**/*.test.ts',
    '<rootDir>/test/docs/**/*.test.ts',
    '<rootDir>/test/lint/**/*.test.ts',
    '<rootDir>/test/readme.test.ts',
    '<rootDir>/test/bench/cost-model.test.ts',
    '<rootDir>/test/local/embedded-dynamodb.test.ts',
    '<rootDir>/test/local/table-upgrade.test.ts',
    '<rootDir>/test/local/local-tables.test.ts',
    '<rootDir>/test/local/function-timeout.test.ts',
    '<rootDir>/test/lib/config/environments.test.ts',
    '<rootDir>/test/lib/edge-redirect.test.ts',
    '<rootDir>/test/lib/console-path-function.test.ts',
    '<rootDir>/test/lib/constructs/redirect-function.test.ts',
    '<rootDir>/test/lib/constructs/edge-handover.test.ts',
    '<rootDir>/client/test/retry.test.ts',
    '<rootDir>/test/support/**/*.test.ts',
  ],
  testPathIgnorePatterns: [
    '/node_modules/',
    // The local API in process.
    '/test/lambda/middleware/request-log-attribution\\.test\\.ts$',
    '/test/tools/domains-(tool|import|sandbox-record)\\.test\\.ts$',
    '/test/tools/smoke-stage\\.test\\.ts$',
    // The tools as processes.
    '/test/tools/(tool|preflight)-process(es)?\\.test\\.ts$',
    // npm start and the smoke tool as processes (about 100 s of the edit loop on a busy machine).
    '/test/tools/smoke\\.test\\.ts$',
    // A synthesis of the whole app (the preflight's plan), with CDK's template validation.
    '/test/tools/preflight-plan\\.test\\.ts$',
  ],
};
