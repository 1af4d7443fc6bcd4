import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AlertTriggerProducer } from './alert-trigger.producer';

const SWEEP_INTERVAL_MS = 15_000;

/** Worker role: now and then, publishes alert triggers that stayed in the outbox (see AlertTriggerProducer). */
@Injectable()
export class AlertOutboxSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(AlertOutboxSweeper.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(private readonly producer: AlertTriggerProducer) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.running ??= this.producer
        .sweep()
        .catch((error: unknown) => this.logger.warn(`alert outbox sweep failed: ${(error as Error).message}`))
        .finally(() => (this.running = undefined));
    }, SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
