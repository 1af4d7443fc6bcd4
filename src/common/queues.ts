/** BullMQ queues. Names are part of the Redis key layout: changing one orphans its jobs. */
export enum QueueName {
  Digest = 'digest',
  Alerts = 'alerts',
}
