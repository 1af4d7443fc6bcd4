import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ForbiddenError, NotFoundError } from '../common/domain-errors';
import { parseId } from '../common/id.pipes';
import type { Access } from './access';
import { AccessRepository } from './access.repository';
import { decide, isRole, roleAtLeast } from './roles';
import { ProjectScope, ROUTE_ACCESS, RouteAccess } from './route-access.decorator';

/** Who authenticated, before their projects are worked out. */
export interface Identity {
  userId: number | null;
  tokenId: number | null;
  /** The account's role now; an operator token is an owner. */
  role: string;
  actor: string;
  readOnly: boolean;
  /** A token's limit to some projects. */
  tokenProjectIds: number[] | null;
}

/**
 * The authorization half of the global guard: what a request's credentials may see (Access), and
 * whether they may use the route they asked for (its @Requires).
 */
@Injectable()
export class RouteAccessService {
  constructor(
    private readonly reflector: Reflector,
    private readonly lookups: AccessRepository,
  ) {}

  async accessOf(identity: Identity): Promise<Access> {
    // A role this code does not know (a database edited by hand) grants the least.
    const role = isRole(identity.role) ? identity.role : 'viewer';
    const teamProjects =
      roleAtLeast(role, 'admin') || identity.userId === null
        ? 'all'
        : new Set(await this.lookups.projectIdsOfUser(identity.userId));
    const limit = identity.tokenProjectIds;
    const projects =
      limit === null
        ? teamProjects
        : new Set(limit.filter((id) => teamProjects === 'all' || teamProjects.has(id)));
    return {
      role,
      readOnly: identity.readOnly,
      narrowed: limit !== null,
      userId: identity.userId,
      tokenId: identity.tokenId,
      actor: identity.actor,
      projects,
    };
  }

  /** Throws the route's 404 for a project out of sight, or a 403 for a permission not held. */
  async check(context: ExecutionContext, access: Access): Promise<void> {
    const rule = this.reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, [
      context.getHandler(),
      context.getClass(),
    ]);
    // Deny by default: a route that says nothing about who may use it is used by no one.
    if (!rule) throw new ForbiddenError('this route declares no permission');
    const request = context.switchToHttp().getRequest<{ method: string; params: Record<string, string> }>();
    if (rule.scope && access.projects !== 'all') {
      const found = await this.projectOf(rule.scope, request.params);
      // Before the permission: what cannot be seen, and what does not exist, answer the same 404,
      // whatever the request may do.
      if (found && (found.projectId === null || !access.projects.has(found.projectId))) {
        throw new NotFoundError(found.notFound);
      }
    }
    const decision = decide(access, rule.permission, request.method);
    if (!decision.allowed) throw new ForbiddenError(decision.reason);
  }

  /**
   * The project a route's path names (null when there is no such thing), with the 404 its route
   * gives for something missing; undefined when the path is malformed (the route's pipe answers 400).
   */
  private async projectOf(
    scope: ProjectScope,
    params: Record<string, string>,
  ): Promise<{ projectId: number | null; notFound: string } | undefined> {
    if ('projectId' in scope) {
      const projectId = parseId(params[scope.projectId]);
      return projectId === undefined ? undefined : { projectId, notFound: 'project not found' };
    }
    if ('issueId' in scope) {
      const issueId = parseId(params[scope.issueId]);
      if (issueId === undefined) return undefined;
      return { projectId: await this.lookups.projectIdOfIssue(issueId), notFound: 'issue not found' };
    }
    const reference = params[scope.projectRef];
    if (reference === undefined) return undefined;
    const notFound = `project ${JSON.stringify(reference)} not found`;
    return { projectId: await this.lookups.projectIdOfReference(reference), notFound };
  }
}
