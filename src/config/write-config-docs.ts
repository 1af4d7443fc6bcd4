import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_FILES, renderConfigurationMarkdown, renderEnvExample } from './config-docs';

/** `npm run docs:config`: writes docs/configuration.md and .env.example from the declaration. */
const root = join(__dirname, '..', '..');
writeFileSync(join(root, GENERATED_FILES.markdown), renderConfigurationMarkdown());
writeFileSync(join(root, GENERATED_FILES.envExample), renderEnvExample());
console.log(`wrote ${GENERATED_FILES.markdown} and ${GENERATED_FILES.envExample}`);
