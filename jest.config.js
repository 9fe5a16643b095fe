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
  testTimeout: 30000,
};
