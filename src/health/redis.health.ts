import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { Cluster } from 'ioredis';
import { withDeadline } from '../common/deadline';
import { REDIS, RedisClient } from '../redis/redis.module';

const PING_TIMEOUT_MS = 1_000;

@Injectable()
export class RedisHealthIndicator {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly indicator: HealthIndicatorService,
  ) {}

  async pingCheck(key: string): Promise<HealthIndicatorResult> {
    const check = this.indicator.check(key);
    try {
      await withDeadline(this.reachable(), PING_TIMEOUT_MS, 'timeout');
      return check.up();
    } catch (error) {
      return check.down({ message: (error as Error).message });
    }
  }

  /**
   * A cluster is usable only when every slot is served: one PING would reach just one node, so
   * every master answers, and the cluster reports itself ok (it says `fail` once a master without
   * a replica to take over has been gone for the cluster's node timeout).
   */
  private async reachable(): Promise<void> {
    if (!(this.redis instanceof Cluster)) {
      await this.redis.ping();
      return;
    }
    const masters = this.redis.nodes('master');
    if (masters.length === 0) throw new Error('no cluster node reachable');
    await Promise.all(masters.map((node) => node.ping()));
    const info = await masters[0].cluster('INFO');
    if (!/^cluster_state:ok\s*$/m.test(info)) throw new Error('cluster state is not ok');
  }
}
