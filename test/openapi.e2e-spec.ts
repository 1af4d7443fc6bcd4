import { RequestMethod, Type } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, TestApp } from './helpers/app';

interface Schema {
  $ref?: string;
  properties?: Record<string, unknown>;
  allOf?: Schema[];
}
interface Response {
  description?: string;
  content?: Record<string, { schema?: Schema }>;
}
interface Operation {
  operationId: string;
  parameters?: { name: string; in: string }[];
  responses: Record<string, Response>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const RUN = 'run `npm run openapi` and commit openapi.json and dashboard/src/api-schema.d.ts';

/** Up to `max` JSON paths where two documents differ. */
function differences(a: unknown, b: unknown, path = '', found: string[] = [], max = 10): string[] {
  if (found.length >= max) return found;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    if (JSON.stringify(a) !== JSON.stringify(b)) found.push(path || '/');
    return found;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    differences(
      (a as Record<string, unknown>)[key],
      (b as Record<string, unknown>)[key],
      `${path}/${key}`,
      found,
      max,
    );
  }
  return found;
}

function operations(document: Document): { method: string; path: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation })),
  );
}

/** Whether a schema is, or extends, the `{ error }` body of every error answer. */
function isErrorBody(document: Document, schema: Schema | undefined): boolean {
  if (!schema) return false;
  if (schema.$ref)
    return isErrorBody(document, document.components.schemas[schema.$ref.split('/').pop() ?? '']);
  return (
    Boolean(schema.properties && 'error' in schema.properties) ||
    (schema.allOf ?? []).some((part) => isErrorBody(document, part))
  );
}

describe('the OpenAPI document', () => {
  let app: TestApp;
  let served: Document;

  beforeAll(async () => {
    app = await startTestApp();
    served = (await app.http().get('/api/docs-json').expect(200)).body as Document;
  });
  afterAll(() => app.close());

  it('is the checked-in openapi.json', () => {
    const checkedIn = JSON.parse(readFileSync(join(__dirname, '..', 'openapi.json'), 'utf8')) as Document;
    const differing = differences(served, checkedIn);
    if (differing.length > 0) {
      throw new Error(
        `openapi.json differs from the document the app serves (at ${differing.join(', ')}): ${RUN}`,
      );
    }
  });

  it('declares the success response of every operation: a schema, or an empty body said so', () => {
    const undeclared = operations(served)
      .filter(({ operation }) => {
        const successes = Object.entries(operation.responses).filter(([status]) => /^[23]\d\d$/.test(status));
        return !successes.some(([, response]) =>
          response.content
            ? Object.values(response.content).every((media) => media.schema !== undefined)
            : Boolean(response.description),
        );
      })
      .map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(operations(served).length).toBeGreaterThan(80);
    // Declare it: @ApiOkResponse({ type }), @ApiCreatedResponse({ type }), @ApiNoContentResponse({ description }).
    expect(undeclared).toEqual([]);
  });

  it("documents the status each route answers with (its @HttpCode, or Nest's 201 for a POST, 200 otherwise)", () => {
    const byOperationId = new Map(operations(served).map((entry) => [entry.operation.operationId, entry]));
    const controllers = new Set<Type>();
    for (const module of app.app.get(ModulesContainer).values()) {
      for (const wrapper of module.controllers.values()) controllers.add(wrapper.metatype as Type);
    }
    const wrong: string[] = [];
    for (const controller of controllers) {
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined)
          continue;
        const entry = byOperationId.get(`${controller.name}_${name}`);
        if (!entry) continue; // excluded from the document (Sentry's fallback for unsupported routes)
        const documented = Object.keys(entry.operation.responses).filter((status) => /^2\d\d$/.test(status));
        if (documented.length === 0) continue; // a redirect (single sign-on)
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod;
        const status = String(
          (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ??
            (method === RequestMethod.POST ? 201 : 200),
        );
        if (!documented.includes(status))
          wrong.push(
            `${entry.method.toUpperCase()} ${entry.path}: ${status}, documented ${documented.join(', ')}`,
          );
      }
    }
    expect(wrong).toEqual([]);
  });

  it('gives every error answer the { error } body', () => {
    const wrong = operations(served).flatMap(({ method, path, operation }) =>
      Object.entries(operation.responses)
        .filter(([status]) => /^(308|[45]\d\d)$/.test(status))
        .filter(([, response]) => !isErrorBody(served, response.content?.['application/json']?.schema))
        .map(([status]) => `${method.toUpperCase()} ${path} ${status}`),
    );
    expect(wrong).toEqual([]);
  });

  it('declares every parameter of every path', () => {
    const missing = operations(served).flatMap(({ method, path, operation }) =>
      [...path.matchAll(/\{(\w+)\}/g)]
        .map(([, name]) => name)
        .filter(
          (name) =>
            !(operation.parameters ?? []).some(
              (parameter) => parameter.in === 'path' && parameter.name === name,
            ),
        )
        .map((name) => `${method.toUpperCase()} ${path}: {${name}}`),
    );
    expect(missing).toEqual([]);
  });
});
