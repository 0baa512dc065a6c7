// Jest runs the package as native ES modules (no transform); `npm test` sets
// NODE_OPTIONS=--experimental-vm-modules, which Jest needs for that.
export default {
  testEnvironment: 'node',
  transform: {},
  testMatch: ['<rootDir>/tests/js/**/*.test.js', '<rootDir>/tests/e2e/**/*.test.js'],
  testTimeout: 60000,
};
