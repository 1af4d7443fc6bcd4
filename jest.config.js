// Unit tests sit beside the code (src and dashboard/src, *.spec.ts); e2e tests boot the real app (test, *.e2e-spec.ts).
const transform = { '^.+\\.ts$': ['ts-jest', {}] };

module.exports = {
  testTimeout: 60_000,
  projects: [
    {
      displayName: 'unit',
      rootDir: '.',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/dashboard/src/**/*.spec.ts'],
      transform,
      testEnvironment: 'node',
    },
    {
      displayName: 'e2e',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      transform,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
    },
  ],
};
