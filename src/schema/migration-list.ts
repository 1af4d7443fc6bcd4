import { InitialSchema1795230000000 } from './migrations/1795230000000-InitialSchema';
import { AlertTriggerOutbox1795233600000 } from './migrations/1795233600000-AlertTriggerOutbox';
import { ForeignKeyIndexes1795300000001 } from './migrations/1795300000001-ForeignKeyIndexes';
import { IssuePositionXid1795300000002 } from './migrations/1795300000002-IssuePositionXid';
import { PartitionedEventsAndRollups1795400000000 } from './migrations/1795400000000-PartitionedEventsAndRollups';
import { HotTagCounts1795500000000 } from './migrations/1795500000000-HotTagCounts';
import { PendingRollups1795500000001 } from './migrations/1795500000001-PendingRollups';
import { IssueSearch1795600000000 } from './migrations/1795600000000-IssueSearch';
import { ReleasesAndTriage1795600000001 } from './migrations/1795600000001-ReleasesAndTriage';
import { ClientKeyRotation1795700000000 } from './migrations/1795700000000-ClientKeyRotation';
import { SourceMapArtifacts1795800000000 } from './migrations/1795800000000-SourceMapArtifacts';
import { MembersAndTeams1795900000000 } from './migrations/1795900000000-MembersAndTeams';
import { AssignmentAndComments1796000000000 } from './migrations/1796000000000-AssignmentAndComments';
import { HealthProbe1796100000000 } from './migrations/1796100000000-HealthProbe';
import { Outcomes1796200000000 } from './migrations/1796200000000-Outcomes';
import { ReleaseHealth1796300000000 } from './migrations/1796300000000-ReleaseHealth';
import { ReleaseIssueIndexes1796400000000 } from './migrations/1796400000000-ReleaseIssueIndexes';
import { UserFeedback1796500000000 } from './migrations/1796500000000-UserFeedback';
import { Attachments1796600000000 } from './migrations/1796600000000-Attachments';
import { ReleaseHealthAlerts1796700000000 } from './migrations/1796700000000-ReleaseHealthAlerts';
import { MonitorIssues1796800000000 } from './migrations/1796800000000-MonitorIssues';
import { CronMonitors1796850000000 } from './migrations/1796850000000-CronMonitors';
import { UptimeMonitors1796900000000 } from './migrations/1796900000000-UptimeMonitors';
import { PrivacySettings1797000000000 } from './migrations/1797000000000-PrivacySettings';
import { InboundFilters1797100000000 } from './migrations/1797100000000-InboundFilters';
import { QuotasAndSpikeProtection1797300000000 } from './migrations/1797300000000-QuotasAndSpikeProtection';
import { QuotaExhaustedAlerts1797470000000 } from './migrations/1797470000000-QuotaExhaustedAlerts';
import { SessionReleaseBudget1797420000000 } from './migrations/1797420000000-SessionReleaseBudget';
import { DailySessionQuota1797440000000 } from './migrations/1797440000000-DailySessionQuota';
import { AttachmentsByProjectTime1797450000000 } from './migrations/1797450000000-AttachmentsByProjectTime';
import { ReleaseEnvironmentsAndAcceptedHours1797460000000 } from './migrations/1797460000000-ReleaseEnvironmentsAndAcceptedHours';

/** Migrations are listed explicitly so that ts (tests, CLI) and compiled js resolve the same set. */
export const MIGRATIONS = [
  InitialSchema1795230000000,
  AlertTriggerOutbox1795233600000,
  ForeignKeyIndexes1795300000001,
  IssuePositionXid1795300000002,
  PartitionedEventsAndRollups1795400000000,
  HotTagCounts1795500000000,
  PendingRollups1795500000001,
  IssueSearch1795600000000,
  ReleasesAndTriage1795600000001,
  ClientKeyRotation1795700000000,
  SourceMapArtifacts1795800000000,
  MembersAndTeams1795900000000,
  AssignmentAndComments1796000000000,
  HealthProbe1796100000000,
  Outcomes1796200000000,
  ReleaseHealth1796300000000,
  ReleaseIssueIndexes1796400000000,
  UserFeedback1796500000000,
  Attachments1796600000000,
  ReleaseHealthAlerts1796700000000,
  MonitorIssues1796800000000,
  CronMonitors1796850000000,
  UptimeMonitors1796900000000,
  PrivacySettings1797000000000,
  InboundFilters1797100000000,
  QuotasAndSpikeProtection1797300000000,
  SessionReleaseBudget1797420000000,
  DailySessionQuota1797440000000,
  AttachmentsByProjectTime1797450000000,
  ReleaseEnvironmentsAndAcceptedHours1797460000000,
  QuotaExhaustedAlerts1797470000000,
];
