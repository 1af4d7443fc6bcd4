import { AuditLogModule } from '../audit/audit-log.module';
import { ErasureModule } from '../privacy/erasure/erasure.module';
import { ErasureService } from '../privacy/erasure/erasure.service';
import { StorageModule } from '../storage/storage.module';
import { CLI_ACTOR, withCommandContext } from './command-context';

/** `users:erase`: the rows a person's data is in, the blob store and the audit log. */
export function erasePerson(flags: Record<string, string>): Promise<string> {
  return withCommandContext({ imports: [AuditLogModule, StorageModule, ErasureModule] }, async (app) => {
    const report = await app.get(ErasureService).erase(Number(flags.project), flags.identifier, CLI_ACTOR);
    return JSON.stringify(report);
  });
}
