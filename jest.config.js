// Jest runs the package as native ES modules (no transform); `npm test` sets
// NODE_OPTIONS=--experimental-vm-modules, which Jest needs for that.
export default {
  testEnvironment: 'node',
  transform: {},
  testMatch: ['<rootDir>/tests/js/**/*.test.js', '<rootDir>/tests/e2e/**/*.test.js'],
  testTimeout: 60000,
  // npm test runs tests/js a second time as on a one-core machine: threads off (tests/js/one-core.js).
  setupFiles: process.env.MULTIHEAD_ONE_CORE ? ['<rootDir>/tests/js/one-core.js'] : [],
};
