import { QueueName } from '../common/queues';
import { queueKey, queuePrefix } from './queue-layout';

describe('queue key layout', () => {
  it('keeps the single-Redis layout of earlier versions, so waiting jobs survive an upgrade', () => {
    const single = { REDIS_PREFIX: 'et', REDIS_CLUSTER: false };
    expect(queuePrefix(single, QueueName.Digest)).toBe('et');
    expect(queueKey(single, QueueName.Digest, 'wait')).toBe('et:digest:wait');
  });

  it("tags each queue in a cluster, under the installation's prefix", () => {
    const cluster = { REDIS_PREFIX: 'et', REDIS_CLUSTER: true };
    expect(Object.values(QueueName).map((queue) => queueKey(cluster, queue, 'wait'))).toEqual([
      'et:{digest}:digest:wait',
      'et:{alerts}:alerts:wait',
      'et:{maintenance}:maintenance:wait',
      'et:{uptime}:uptime:wait',
      'et:{monitors}:monitors:wait',
    ]);
  });
});
