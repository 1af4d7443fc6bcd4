import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { Environment, validateEnvironment } from '../src/config/environment';
import { configurationVariables } from './helpers/config-variables';

const root = join(__dirname, '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

describe('delivery files', () => {
  it('.env.example documents every configuration variable, and its values pass validation', () => {
    const variables = new Set(configurationVariables());
    expect(variables.size).toBeGreaterThan(15);
    const example = read('.env.example');
    const documented = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]));
    expect([...variables].filter((name) => !documented.has(name))).toEqual([]);
    expect([...documented].filter((name) => !variables.has(name))).toEqual([]);

    const active = parseEnv(example) as Record<string, string>;
    const config = validateEnvironment(active);
    expect(config.PORT).toBe(8080);
    expect(config.DATABASE_URL).toBe(new Environment().DATABASE_URL);
    // Defaults shown in the file are the real defaults.
    const defaults = new Environment() as unknown as Record<string, unknown>;
    for (const [name, value] of Object.entries(active)) {
      expect({ name, value: String(defaults[name]) }).toEqual({ name, value });
    }
  });

  it('docker-compose gates the server on healthy PostgreSQL 16 and persistent Redis 7', () => {
    const compose = read('docker-compose.yml');
    expect(compose).toMatch(/image: postgres:16/);
    expect(compose).toMatch(/pg_isready/);
    expect(compose).toMatch(/image: redis:7/);
    expect(compose).toMatch(/--appendonly", "yes"/);
    expect(compose).toMatch(/redis-cli", "ping"/);
    expect(compose.match(/condition: service_healthy/g)?.length).toBeGreaterThanOrEqual(2);
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'PUBLIC_URL', 'CREATE_SUPERUSER'])
      expect(compose).toContain(`${name}:`);
    expect(compose).toContain('8080');
  });

  it('the Dockerfile builds in one stage and runs compiled code as non-root in another', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile.match(/^FROM node:20-slim/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/npm ci/);
    expect(dockerfile).toMatch(/npm run build/);
    expect(dockerfile).toMatch(/npm prune --omit=dev/);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^EXPOSE 8080$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/health/m);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/main.js"\]$/m);
  });
});
