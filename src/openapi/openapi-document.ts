import { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorResponse } from '../http/api-responses';

/**
 * The OpenAPI document of the REST API, from the routes' decorators: served at /api/docs(-json),
 * written to openapi.json by `npm run openapi`, and the source of the dashboard's types.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  return SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Error Tracker API')
      .setDescription(
        'Management API of the error tracker. Ingestion follows the Sentry envelope protocol. ' +
          'Every error answer is `{ "error": "<message>" }` (ErrorResponse) with its status.',
      )
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: '40 hexadecimal characters' })
      .build(),
    { extraModels: [ErrorResponse] },
  );
}

/** The document as openapi.json holds it: two-space JSON and a final newline, the same bytes every time. */
export function serializeOpenApiDocument(document: OpenAPIObject): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
