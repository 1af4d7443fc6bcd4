/** BullMQ queues. Names are part of the Redis key layout: changing one orphans its jobs. */
export enum QueueName {
  Digest = 'digest',
  Alerts = 'alerts',
  /** Scheduled housekeeping (retention): one job per interval, whatever the number of workers. */
  Maintenance = 'maintenance',
  /** Uptime monitors: the tick that finds due checks, and one job per check. */
  Uptime = 'uptime',
  /** Cron monitors: the once-a-minute clock that marks missed and timed-out check-ins. */
  Monitors = 'monitors',
}
