import { Injectable } from '@nestjs/common';
import { AlertTriggerProducer } from '../alerts/alert-trigger.producer';
import { StateChange } from './issues.service';

/** Turns a user's state change into lifecycle triggers: taking an issue out of `muted` is an `unmute`. */
@Injectable()
export class IssueStateChangeNotifier {
  constructor(private readonly triggers: AlertTriggerProducer) {}

  async stateChanged(change: StateChange): Promise<void> {
    if (change.previousState === 'muted' && change.issue.state !== 'muted') {
      await this.triggers.emit([
        {
          alertType: 'unmute',
          projectId: change.issue.project_id,
          issueId: change.issue.id,
          occurredAt: new Date().toISOString(),
        },
      ]);
    }
  }
}
