import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Every database statement lives in the `*.repository.ts` of its aggregate (docs/architecture.md):
 * services, processors and controllers call repositories. Besides repositories, only the database's
 * own infrastructure (creating, migrating and probing it: src/database, src/schema) and tests run
 * statements.
 */
const STATEMENTS = [
  {
    selector: "CallExpression[callee.property.name=/^(query|createQueryBuilder|getRepository)$/]",
    message: 'A database statement belongs in the *.repository.ts of its aggregate.',
  },
  {
    selector:
      "CallExpression[callee.object.name='manager'][callee.property.name=/^(find|findOne|findOneBy|findBy|save|insert|update|upsert|delete|remove|count|increment|decrement|exists)$/]",
    message: 'A database statement belongs in the *.repository.ts of its aggregate.',
  },
  {
    selector: "Decorator[expression.callee.name='InjectRepository']",
    message: 'TypeORM repositories are used by the *.repository.ts of their aggregate only.',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'dashboard/**', 'node_modules/**', 'coverage/**', '*.js', '*.cjs', '*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: [
      '**/*.repository.ts',
      '**/*.spec.ts',
      'src/database/**',
      'src/schema/**',
    ],
    rules: { 'no-restricted-syntax': ['error', ...STATEMENTS] },
  },
);
