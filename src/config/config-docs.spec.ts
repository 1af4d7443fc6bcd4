import { getMetadataStorage } from 'class-validator';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  configurationVariables,
  GENERATED_FILES,
  renderConfigurationMarkdown,
  renderEnvExample,
} from './config-docs';
import { describedVariables } from './describe';
import { Environment } from './environment';

const root = join(__dirname, '..', '..');

describe('configuration declaration', () => {
  it('documents exactly the variables it validates, each once', () => {
    const validated = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(Environment, '', true, false)
        .map((metadata) => metadata.propertyName),
    );
    const documented = configurationVariables();
    expect(new Set(documented).size).toBe(documented.length);
    expect(documented.slice().sort()).toEqual([...validated].sort());
  });

  it('shows the real defaults: a default of its own text only for a variable without one', () => {
    const defaults = new Environment() as unknown as Record<string, unknown>;
    for (const variable of describedVariables(Environment)) {
      const hasDefault = defaults[variable.name] !== undefined;
      expect({ name: variable.name, defaultText: hasDefault ? variable.defaultText : undefined }).toEqual({
        name: variable.name,
        defaultText: undefined,
      });
      expect({ name: variable.name, example: hasDefault ? variable.example : 'none needed' }).toEqual({
        name: variable.name,
        example: hasDefault ? undefined : expect.any(String),
      });
    }
  });

  it('marks credentials as secrets: tokens, client secrets, the superuser and connection strings', () => {
    const credential = (name: string) =>
      /SECRET|TOKEN|SUPERUSER/.test(name) || (name.endsWith('_URL') && name !== 'PUBLIC_URL');
    for (const variable of describedVariables(Environment))
      if (credential(variable.name))
        expect({ name: variable.name, secret: variable.secret }).toEqual({
          name: variable.name,
          secret: true,
        });
  });

  it.each([
    [GENERATED_FILES.markdown, renderConfigurationMarkdown],
    [GENERATED_FILES.envExample, renderEnvExample],
  ])('%s is what the declaration generates', (file, render) => {
    const current = readFileSync(join(root, file), 'utf8');
    const generated = render();
    if (current !== generated) {
      throw new Error(
        `${file} differs from the configuration declared in src/config/environment-variables.ts: run \`npm run docs:config\` and commit the result`,
      );
    }
  });
});
