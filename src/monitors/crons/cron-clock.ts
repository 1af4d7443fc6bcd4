import { Injectable } from '@nestjs/common';

/** "Now" for the cron clock, injectable so that tests drive time without waiting for it. */
@Injectable()
export class CronClock {
  now(): Date {
    return new Date();
  }
}
