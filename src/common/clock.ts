import { Injectable } from '@nestjs/common';

/**
 * The time that quotas and spike protection go by. One instance per application (provided by
 * LimitsDataModule), so that a test can move it for ingest and the scheduled jobs together.
 */
@Injectable()
export class Clock {
  now(): number {
    return Date.now();
  }
}
