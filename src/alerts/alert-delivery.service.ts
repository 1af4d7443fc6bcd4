import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NotificationChannel } from '../channels/channel.entity';
import { ChannelsRepository } from '../channels/channels.repository';
import { AppConfig } from '../config/app-config';
import { IssuesService } from '../issues/issues.service';
import type { AlertHistoryEntry } from '../rules/alert-history.entity';
import { AlertHistoryRepository } from '../rules/alert-history.repository';
import { Issue } from '../issues/issue.entity';
import { Assignees } from '../members/assignees';
import { ProjectsRepository } from '../projects/projects.repository';
import { ASSIGNEE_CHANNEL_TYPE } from './alert-dispatch.service';
import {
  AnyAlertNotification,
  buildNotification,
  buildReleaseHealthNotification,
  buildQuotaNotification,
  buildSpikeNotification,
} from './alert-notification';
import { AlertSenders } from './senders/alert-senders';
import { DeliveryError, deliveryErrorMessage } from './senders/delivery-error';

export type DeliveryOutcome = 'sent' | 'skipped' | 'already-done' | 'missing';

/** The assignee's e-mail goes through no stored channel: no channel's counts change. */
const ASSIGNEE_CHANNEL_ID = 0;

/**
 * Delivers one history row through its channel and records the outcome. Called by the queue
 * worker once per attempt; it throws when the attempt failed so that the queue retries.
 */
@Injectable()
export class AlertDeliveryService {
  private readonly logger = new Logger(AlertDeliveryService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly history: AlertHistoryRepository,
    private readonly channels: ChannelsRepository,
    private readonly issues: IssuesService,
    private readonly senders: AlertSenders,
    private readonly config: AppConfig,
    private readonly assignees: Assignees,
    private readonly projects: ProjectsRepository,
  ) {}

  /**
   * @param lastAttempt whether the queue will not retry after this attempt: a failure then marks the
   *   row `failed` and counts against the channel.
   */
  async deliver(historyId: number, lastAttempt: boolean): Promise<DeliveryOutcome> {
    const row = await this.history.findById(historyId);
    if (!row) return 'missing'; // its project was deleted
    // Already sent (or given up): a retried job after a crash between sending and recording is
    // the one case that sends twice, and receivers can drop that copy by X-Idempotency-Key.
    if (row.status !== 'pending') return 'already-done';

    if (row.release !== null) return this.deliverReleaseAlert(row, lastAttempt);
    if (row.spike !== null) return this.deliverSpikeAlert(row, lastAttempt);
    if (row.quota !== null) return this.deliverQuotaAlert(row, lastAttempt);
    const found = row.issueId === null ? null : await this.issues.findWithProject(row.issueId);
    let channel: NotificationChannel | null;
    if (row.channelType === ASSIGNEE_CHANNEL_TYPE) {
      if (!found) return this.skip(row, 'issue was deleted before delivery');
      // Whoever is assigned when it goes out, with personal e-mails on.
      channel = await this.assigneeChannel(found.issue, row.channelName);
      if (!channel) return this.skip(row, 'the issue has no assignee who takes e-mails');
    } else {
      channel = row.channelId === null ? null : await this.channels.findById(row.channelId);
      if (!channel) return this.skip(row, 'channel was deleted before delivery');
      if (!channel.isEnabled) return this.skip(row, 'channel was disabled before delivery');
      if (!found) return this.skip(row, 'issue was deleted before delivery');
    }
    const { issue, project } = found;

    const notification = buildNotification(
      row.alertType,
      project,
      issue,
      this.config.publicUrl,
      row.createdAt.toISOString(),
    );
    return this.send(row, channel, notification, lastAttempt);
  }

  /** A `release_health` row: everything it says was kept on the row when the breach was found. */
  private async deliverReleaseAlert(row: AlertHistoryEntry, lastAttempt: boolean): Promise<DeliveryOutcome> {
    const channel = row.channelId === null ? null : await this.channels.findById(row.channelId);
    if (!channel) return this.skip(row, 'channel was deleted before delivery');
    if (!channel.isEnabled) return this.skip(row, 'channel was disabled before delivery');
    const project = await this.projects.findById(row.projectId);
    if (!project || !row.releaseBreach) return this.skip(row, 'project was deleted before delivery');
    const notification = buildReleaseHealthNotification(
      project,
      row.release!,
      row.releaseBreach,
      this.config.publicUrl,
      row.createdAt.toISOString(),
    );
    return this.send(row, channel, notification, lastAttempt);
  }

  /** A `spike_protection` row: what it says was kept on the row when the spike was found. */
  private async deliverSpikeAlert(row: AlertHistoryEntry, lastAttempt: boolean): Promise<DeliveryOutcome> {
    const channel = row.channelId === null ? null : await this.channels.findById(row.channelId);
    if (!channel) return this.skip(row, 'channel was deleted before delivery');
    if (!channel.isEnabled) return this.skip(row, 'channel was disabled before delivery');
    const project = await this.projects.findById(row.projectId);
    if (!project || !row.spike) return this.skip(row, 'project was deleted before delivery');
    const notification = buildSpikeNotification(
      project,
      row.spike,
      this.config.publicUrl,
      row.createdAt.toISOString(),
    );
    return this.send(row, channel, notification, lastAttempt);
  }

  /** A `quota_exhausted` row: what it says was kept on the row when the refusal was found. */
  private async deliverQuotaAlert(row: AlertHistoryEntry, lastAttempt: boolean): Promise<DeliveryOutcome> {
    const channel = row.channelId === null ? null : await this.channels.findById(row.channelId);
    if (!channel) return this.skip(row, 'channel was deleted before delivery');
    if (!channel.isEnabled) return this.skip(row, 'channel was disabled before delivery');
    const project = await this.projects.findById(row.projectId);
    if (!project || !row.quota) return this.skip(row, 'project was deleted before delivery');
    const notification = buildQuotaNotification(project, row.quota, this.config.publicUrl, row.createdAt.toISOString());
    return this.send(row, channel, notification, lastAttempt);
  }

  private async send(
    row: AlertHistoryEntry,
    channel: NotificationChannel,
    notification: AnyAlertNotification,
    lastAttempt: boolean,
  ): Promise<DeliveryOutcome> {
    try {
      const answer = await this.senders.send(channel, notification, row.idempotencyKey);
      await this.recordSuccess(row, channel);
      this.logger.log(`alert ${row.id} sent via ${channel.channelType} channel ${channel.id}: ${answer}`);
      return 'sent';
    } catch (error) {
      const message = deliveryErrorMessage(error);
      const final = lastAttempt || (error instanceof DeliveryError && error.permanent);
      await this.recordFailure(row, channel, message, final);
      this.logger.warn(
        `alert ${row.id} via ${channel.channelType} channel ${channel.id} failed` +
          `${final ? ' for good' : ', will retry'}: ${message}`,
      );
      throw error instanceof DeliveryError ? error : new DeliveryError(message);
    }
  }

  /** An e-mail channel, held nowhere, to the issue's assignee: the member, or the team's members. */
  private async assigneeChannel(issue: Issue, name: string): Promise<NotificationChannel | null> {
    const assignee =
      issue.assigneeUserId !== null
        ? { userId: issue.assigneeUserId }
        : issue.assigneeTeamId !== null
          ? { teamId: issue.assigneeTeamId }
          : null;
    if (!assignee) return null;
    const to = (await this.assignees.recipients(assignee, issue.projectId))
      .filter((user) => user.isActive && user.emailNotifications)
      .map((user) => user.email);
    if (to.length === 0) return null;
    return Object.assign(new NotificationChannel(), {
      id: ASSIGNEE_CHANNEL_ID,
      name,
      channelType: 'email',
      config: { to },
      isEnabled: true,
    });
  }

  private async skip(row: AlertHistoryEntry, reason: string): Promise<DeliveryOutcome> {
    await this.history.markSkipped(row.id, reason);
    return 'skipped';
  }

  /** A success ends the channel's run of consecutive failures. */
  private async recordSuccess(row: AlertHistoryEntry, channel: NotificationChannel): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.history.markSent(manager, row.id);
      if (channel.id === ASSIGNEE_CHANNEL_ID) return;
      await this.channels.recordDeliverySuccess(manager, channel.id);
    });
  }

  /**
   * Every attempt's error lands on the row; only a notification that is given up (after the last
   * attempt, or at once when retrying cannot help) is `failed` and counts as one consecutive
   * failure of the channel.
   */
  private async recordFailure(
    row: AlertHistoryEntry,
    channel: NotificationChannel,
    message: string,
    final: boolean,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.history.recordFailedAttempt(manager, row.id, message, final);
      if (final && channel.id !== ASSIGNEE_CHANNEL_ID) {
        await this.channels.recordDeliveryFailure(manager, channel.id, message);
      }
    });
  }
}
