import { applyDecorators, Type } from '@nestjs/common';
import { ApiProperty, ApiResponse, ApiSchema, ApiSchemaOptions } from '@nestjs/swagger';

/**
 * How the OpenAPI document (`/api/docs`, `openapi.json`) describes answers. Each route declares its
 * success response (`@ApiOkResponse({ type })`, …) with a class of its feature's `dto/*.response.ts`,
 * and the errors it gives with `@ApiErrors`; the dashboard's types are generated from the document.
 */

/** The body of every error answer (ApiErrorFilter). */
@ApiSchema({ description: 'The body of every error answer.' })
export class ErrorResponse {
  @ApiProperty({ description: 'What went wrong, in words for people.', example: 'issue not found' })
  error: string;
}

/** What each error status means on this API, unless a route says more. */
const ERROR_MEANINGS: Record<number, string> = {
  400: 'The request is invalid: a path or query parameter, the body, or a cursor.',
  401: 'No valid token or session.',
  403: 'Not allowed: the role or token lacks the permission, a read-only token writes, or a cross-site request.',
  404: 'Not found, or in a project the caller does not see.',
  409: 'Clashes with the current state.',
  410: 'Used up or expired.',
  413: 'Too large.',
  429: 'Too many attempts; `Retry-After` says when to try again.',
  501: 'Not part of this API.',
  503: 'A dependency is unavailable (the database, or password hashing is busy); try again later.',
};

/** An error status, or an error status with what it means on this route. */
export type ErrorAnswer = number | [status: number, description: string];

/** The errors a route answers, each with the `{ error }` body. */
export function ApiErrors(...answers: ErrorAnswer[]) {
  return applyDecorators(
    ...answers.map((answer) => {
      const [status, description] = typeof answer === 'number' ? [answer, ERROR_MEANINGS[answer]] : answer;
      return ApiResponse({ status, description: description ?? 'Error.', type: ErrorResponse });
    }),
  );
}

/**
 * A schema that allows properties besides those declared (an event's payload). `@ApiSchema` copies
 * the options it is given into the schema; its type names only `name` and `description`.
 */
export function ApiOpenSchema(description: string): ClassDecorator {
  return ApiSchema({ description, additionalProperties: true } as ApiSchemaOptions);
}

const pages = new Map<Type, Type>();
const lists = new Map<Type, Type>();

/** `{ data: Item[], next_cursor }`: one page of a list (see Page in common/pagination.ts). */
export function PageOf<Item>(item: Type<Item>): Type<{ data: Item[]; next_cursor: string | null }> {
  let page = pages.get(item);
  if (!page) {
    @ApiSchema({ name: `${item.name}Page`, description: `A page of ${item.name}.` })
    class ItemPage {
      @ApiProperty({ type: () => [item] })
      data: Item[];

      @ApiProperty({
        type: String,
        nullable: true,
        description: 'The `cursor` that asks for the next page; null on the last page.',
      })
      next_cursor: string | null;
    }
    page = ItemPage;
    pages.set(item, page);
  }
  return page as Type<{ data: Item[]; next_cursor: string | null }>;
}

/** `{ data: Item[] }`: a whole list, in one answer. */
export function ListOf<Item>(item: Type<Item>): Type<{ data: Item[] }> {
  let list = lists.get(item);
  if (!list) {
    @ApiSchema({ name: `${item.name}List`, description: `Every ${item.name} (not paginated).` })
    class ItemList {
      @ApiProperty({ type: () => [item] })
      data: Item[];
    }
    list = ItemList;
    lists.set(item, list);
  }
  return list as Type<{ data: Item[] }>;
}
