import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';
import { validateEnvironment } from '../config/environment';

/** Data source for the TypeORM CLI (`npm run migration:run|revert|generate`). */
export default new DataSource(dataSourceOptions(validateEnvironment(process.env).DATABASE_URL));
