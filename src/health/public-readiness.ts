import type { PublicReadinessView, ReadinessView } from './dto/readiness.response';

/**
 * What anyone may see of readiness: the overall status and each dependency's and check's status.
 * The rest (the reasons, which quote the dependencies' errors and so may name internal addresses;
 * the queues; the worker processes, named by host and process id) is for admins.
 */
export function publicReadiness(view: ReadinessView): PublicReadinessView {
  return {
    status: view.status,
    database: view.database,
    redis: view.redis,
    checks: {
      database_writes: { status: view.checks.database_writes.status },
      redis_writes: { status: view.checks.redis_writes.status },
      digest: { status: view.checks.digest.status },
    },
  };
}
