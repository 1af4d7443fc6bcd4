import { AlertTriggerOutboxEntry } from '../issues/transitions/alert-trigger-outbox.entity';
import { User } from '../users/user.entity';
import { Session } from '../users/session.entity';
import { ApiToken } from '../tokens/api-token.entity';
import { Project } from '../projects/project.entity';
import { Issue } from '../issues/issue.entity';
import { ErrorEvent } from '../events/event.entity';
import { NotificationChannel } from '../channels/channel.entity';
import { AlertRule } from '../rules/alert-rule.entity';
import { AlertHistoryEntry } from '../rules/alert-history.entity';

export const ENTITIES = [
  User,
  Session,
  ApiToken,
  Project,
  Issue,
  ErrorEvent,
  NotificationChannel,
  AlertRule,
  AlertHistoryEntry,
  AlertTriggerOutboxEntry,
];
