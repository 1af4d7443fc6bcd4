import { AuditLog } from '../audit/audit-log.service';
import { AuditLogModule } from '../audit/audit-log.module';
import { isRole } from '../access/roles';
import { TokensDataModule } from '../tokens/tokens-data.module';
import { TokensService } from '../tokens/tokens.service';
import { UsersDataModule } from '../users/users-data.module';
import { UsersService } from '../users/users.service';
import { CLI_ACTOR, withCommandContext } from './command-context';

/** `token:create`: the tokens' rows and the audit log, nothing else. */
export function createToken(flags: Record<string, string>): Promise<string> {
  return withCommandContext(
    { imports: [TokensDataModule, AuditLogModule], providers: [TokensService] },
    async (app) => {
      const token = await app.get(TokensService).create(flags.description);
      await app
        .get(AuditLog)
        .record(
          CLI_ACTOR,
          'token.create',
          { type: 'token', id: token.id },
          { description: token.description },
        );
      process.stderr.write(`Created API token ${token.id} (${token.description}). It is not shown again:\n`);
      return token.token;
    },
  );
}

/**
 * `user:create`: the accounts' rows and the audit log; not the sessions or the sign-in throttle
 * (which would open Redis).
 */
export function createUser(flags: Record<string, string>): Promise<string> {
  return withCommandContext(
    { imports: [UsersDataModule, AuditLogModule], providers: [UsersService] },
    async (app) => {
      const role = isRole(flags.role) ? flags.role : 'owner';
      const user = await app.get(UsersService).createOrUpdate(flags.email, flags.password, role);
      return `user ${user.email} is ready (id ${user.id}, ${user.role})`;
    },
  );
}
