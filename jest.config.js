// Unit tests sit beside the code (src and dashboard/src, *.spec.ts); e2e tests boot the real app (test, *.e2e-spec.ts).
const transform = {
  '^.+\\.ts$': ['ts-jest', {}],
  // openid-client and its dependencies are ES modules only: jest's CommonJS runtime needs them compiled.
  '^.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs', target: 'ES2022' }, isolatedModules: true }],
};
const transformIgnorePatterns = ['/node_modules/(?!(openid-client|oauth4webapi|jose)/)'];

module.exports = {
  // A hang detector, not a speed check: sized for a machine busy with other work, where a browser
  // test's waits (test/helpers/browser.ts, BROWSER_WAIT_MS) and a command line run take many times
  // their idle duration.
  testTimeout: 120_000,
  projects: [
    {
      displayName: 'unit',
      rootDir: '.',
      testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/dashboard/src/**/*.spec.ts'],
      transform,
      transformIgnorePatterns,
      testEnvironment: 'node',
    },
    {
      displayName: 'e2e',
      rootDir: '.',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      transform,
      transformIgnorePatterns,
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
    },
  ],
};
