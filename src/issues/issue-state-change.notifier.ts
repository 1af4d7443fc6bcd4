import { Injectable } from '@nestjs/common';
import { StateChange } from './issues.service';

/**
 * Hook for what follows a user's state change (the `unmute` alert trigger). Kept separate from the
 * service so that the alerting side can be wired in without the issues module knowing about it.
 */
@Injectable()
export class IssueStateChangeNotifier {
  async stateChanged(_change: StateChange): Promise<void> {
    // Alert triggers are wired in by the alerts module.
  }
}
