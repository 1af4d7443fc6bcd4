import { Injectable } from '@nestjs/common';

/**
 * "Now" for everything uptime decides by time: when checks are due, what the windows of the uptime
 * figures and the status page's days are. One instance per application; tests replace `now` to
 * move time on without waiting.
 */
@Injectable()
export class UptimeClock {
  now: () => Date = () => new Date();
}
