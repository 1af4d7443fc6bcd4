import { Injectable, Logger } from '@nestjs/common';
import { issueUrl } from './issue-view';
import { RepeatedLog } from '../common/repeated-log';
import { AppConfig } from '../config/app-config';
import { Mailer } from '../mail/mailer';
import { Assignee, Assignees } from '../members/assignees';

export interface AssignedIssue {
  id: number;
  project_id: number;
  short_id: string;
  type: string;
  message: string;
}

/**
 * Tells people an issue is theirs now: the member assigned, or each member of the team, who has
 * personal e-mails on and is not the one who assigned it. Sent after the change is stored, off the
 * request's path; a failure is logged, never the request's.
 */
@Injectable()
export class AssignmentMail {
  private readonly logger = new Logger('AssignmentMail');
  private readonly failures = new RepeatedLog(this.logger, 60_000);

  constructor(
    private readonly assignees: Assignees,
    private readonly mailer: Mailer,
    private readonly config: AppConfig,
  ) {}

  /** Resolves once sent (or given up): callers need not wait for it. */
  async send(assignee: Assignee, issues: AssignedIssue[], by: { userId: number | null; actor: string }) {
    if (!this.mailer.configured || issues.length === 0) return;
    try {
      const recipients = (await this.assignees.recipients(assignee, issues[0].project_id)).filter(
        (user) => user.isActive && user.emailNotifications && user.id !== by.userId,
      );
      for (const user of recipients) {
        await this.mailer.send({ to: user.email, ...this.message(assignee, issues, by.actor) });
      }
    } catch (error) {
      this.failures.warn('send', `assignment e-mail not sent: ${(error as Error).message}`);
    }
  }

  private message(assignee: Assignee, issues: AssignedIssue[], actor: string) {
    const to = 'teamId' in assignee ? `your team ${assignee.label}` : 'you';
    const lines = issues
      .slice(0, 20)
      .map(
        (issue) =>
          `${issue.short_id} ${issue.type}: ${issue.message}\n${issueUrl(this.config.publicUrl, issue.project_id, issue.id)}`,
      );
    const more = issues.length > 20 ? `\n…and ${issues.length - 20} more.\n` : '';
    return {
      subject:
        issues.length === 1
          ? `${issues[0].short_id} was assigned to ${to}: ${issues[0].type}`
          : `${issues.length} issues were assigned to ${to}`,
      text: `${actor} assigned ${issues.length === 1 ? 'this issue' : 'these issues'} to ${to}.\n\n${lines.join('\n\n')}\n${more}\nTurn these e-mails off on your account page.\n`,
    };
  }
}
