/** Data source for the TypeORM CLI (`npm run migration:run|revert|generate`). */
export { default } from './src/schema/data-source';
