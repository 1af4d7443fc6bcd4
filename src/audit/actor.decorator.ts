import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Access } from '../access/access';
import { actorOf, AuditActor } from './audit-log.service';

/** Who makes the request, for the audit log: the request's Access and client address. */
export const Actor = createParamDecorator((_: unknown, context: ExecutionContext): AuditActor => {
  const request = context.switchToHttp().getRequest<{ access?: Access; ip?: string }>();
  if (!request.access) throw new Error('Actor used on a route without authentication');
  return actorOf(request.access, request.ip);
});
