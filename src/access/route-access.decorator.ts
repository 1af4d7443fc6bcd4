import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiErrors } from '../http/api-responses';
import type { Permission } from './roles';

/**
 * Where a route finds the project it acts on, in its path: a project id, an issue id, or a project
 * named by slug or id (sentry-cli's routes). A member or viewer asking about a project outside their
 * teams gets the route's 404, as if it did not exist.
 */
export type ProjectScope = { projectId: string } | { issueId: string } | { projectRef: string };

export interface RouteAccess {
  permission: Permission;
  scope?: ProjectScope;
}

export const ROUTE_ACCESS = 'routeAccess';

/**
 * The permission a route needs (see roles.ts). Every route declares one or is @Public(): the guard
 * refuses a route that does neither, and a test lists them all. The OpenAPI document lists the
 * refusals that follow from it: 401, 403, and a project's 404.
 */
export const Requires = (permission: Permission, scope?: ProjectScope) =>
  applyDecorators(
    SetMetadata(ROUTE_ACCESS, { permission, scope } satisfies RouteAccess),
    ApiErrors(401, 403, ...(scope ? [404] : [])),
  );
