import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { RequestMethod, Type } from '@nestjs/common';
import { IS_PUBLIC } from '../common/public.decorator';
import { isPermission } from './roles';
import { ROUTE_ACCESS, RouteAccess } from './route-access.decorator';

export interface RouteDeclaration {
  route: string;
  /** A permission, `public`, or null when the route declares nothing (which the guard refuses). */
  declared: string | null;
}

/**
 * Every route of these controllers with what it declares (see @Requires and @Public): what the
 * route test checks, so that a route without a declaration fails the build rather than a user.
 */
export function routeDeclarations(controllers: Type[]): RouteDeclaration[] {
  const found: RouteDeclaration[] = [];
  for (const controller of controllers) {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '');
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      if (path === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      const route = `${method} /${[base, path].filter((part) => part && part !== '/').join('/')}`;
      const isPublic = Reflect.getMetadata(IS_PUBLIC, handler) ?? Reflect.getMetadata(IS_PUBLIC, controller);
      const access = (Reflect.getMetadata(ROUTE_ACCESS, handler) ??
        Reflect.getMetadata(ROUTE_ACCESS, controller)) as RouteAccess | undefined;
      const declared = isPublic
        ? 'public'
        : access && isPermission(access.permission)
          ? access.permission
          : null;
      found.push({ route, declared });
    }
  }
  return found;
}
