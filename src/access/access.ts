import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Grant } from './roles';

/** What the credentials of a request may do and see, worked out once by the guard. */
export interface Access extends Grant {
  /** The account acting; null for an operator token (made by the CLI, or before accounts had roles). */
  userId: number | null;
  tokenId: number | null;
  /** Who acted, in words, for the audit log: the account's e-mail, or the token. */
  actor: string;
  /** Every project, or the ids of those it may see (its teams' projects, within a token's limit). */
  projects: 'all' | ReadonlySet<number>;
}

export function seesProject(access: Access, projectId: number): boolean {
  return access.projects === 'all' || access.projects.has(projectId);
}

/** The ids of the projects it may see, or null for all of them (for a query's filter). */
export function visibleProjectIds(access: Access): number[] | null {
  return access.projects === 'all' ? null : [...access.projects];
}

/** The request's Access (set by the guard on every route that is not @Public()). */
export const CurrentAccess = createParamDecorator((_: unknown, context: ExecutionContext): Access => {
  const access = context.switchToHttp().getRequest<{ access?: Access }>().access;
  if (!access) throw new Error('CurrentAccess used on a route without authentication');
  return access;
});
