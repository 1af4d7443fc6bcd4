import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Module, Type } from '@nestjs/common';
import type { ConnectionOptions } from 'bullmq';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AlertsApiModule } from './alerts/alerts-api.module';
import { AlertsWorkerModule } from './alerts/alerts-worker.module';
import { AuditLogModule } from './audit/audit-log.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { ChannelsModule } from './channels/channels.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import type { ResolvedConfig } from './config/environment';
import { dataSourceOptions } from './schema/data-source-options';
import { DigestWorkerModule } from './digest/digest-worker.module';
import { EventsModule } from './events/events.module';
import { HealthDetailsModule } from './health/health-details.module';
import { HealthModule } from './health/health.module';
import { IngestModule } from './ingest/ingest.module';
import { IssuesModule } from './issues/issues.module';
import { OutcomesModule } from './outcomes/outcomes.module';
import { FeedbackModule } from './feedback/feedback.module';
import { PrivacyModule } from './privacy/privacy.module';
import { LimitsModule } from './limits/limits.module';
import { AttachmentsModule } from './attachments/attachments.module';
import { StorageModule } from './storage/storage.module';
import { MembersModule } from './members/members.module';
import { ProjectsModule } from './projects/projects.module';
import { BULL_CONNECTION, RedisModule } from './redis/redis.module';
import { RetentionModule } from './retention/retention.module';
import { ReleasesModule } from './releases/releases.module';
import { ArtifactsModule } from './artifacts/artifacts.module';
import { SentryApiModule } from './sentry-api/sentry-api.module';
import { RollupsModule } from './rollups/rollups.module';
import { RulesModule } from './rules/rules.module';
import { TokensModule } from './tokens/tokens.module';
import { DashboardModule } from './web/dashboard.module';
import { CronsModule } from './monitors/crons/crons.module';
import { CronsWorkerModule } from './monitors/crons/crons-worker.module';
import { MonitorIncidentsModule } from './monitors/incidents/monitor-incidents.module';
import { StatusPageModule } from './monitors/status-page/status-page.module';
import { UptimeModule } from './monitors/uptime/uptime.module';
import { UptimeWorkerModule } from './monitors/uptime/uptime-worker.module';

/** Modules that serve the HTTP API (role `api`). */
const API_MODULES: Type[] = [
  AuthModule,
  MembersModule,
  AuditModule,
  TokensModule,
  ProjectsModule,
  IssuesModule,
  EventsModule,
  RollupsModule,
  OutcomesModule,
  FeedbackModule,
  PrivacyModule,
  LimitsModule,
  AttachmentsModule,
  CronsModule,
  ReleasesModule,
  ChannelsModule,
  RulesModule,
  UptimeModule,
  StatusPageModule,
  AlertsApiModule,
  ArtifactsModule,
  SentryApiModule,
  IngestModule,
  HealthDetailsModule,
];

/** Modules that consume queues (role `worker`). */
const WORKER_MODULES: Type[] = [
  DigestWorkerModule,
  AlertsWorkerModule,
  RetentionModule,
  CronsWorkerModule,
  UptimeWorkerModule,
];

@Module({})
export class AppModule {
  static forRoot(config: ResolvedConfig): DynamicModule {
    const runsApi = config.APP_ROLE !== 'worker';
    const runsWorkers = config.APP_ROLE !== 'api';
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (appConfig: AppConfig) => ({
            ...dataSourceOptions(appConfig.DATABASE_URL),
            retryAttempts: 2,
            retryDelay: 1_000,
          }),
        }),
        // Before BullModule: of two global modules Nest shuts the later one down first, so the
        // workers stop before RedisModule closes the connection they share.
        RedisModule,
        BullModule.forRootAsync({
          inject: [BULL_CONNECTION],
          // No prefix here: every queue is registered through registerQueue, which sets its own.
          useFactory: (bull: { connection: ConnectionOptions }) => ({ connection: bull.connection }),
        }),
        HealthModule,
        AuditLogModule,
        StorageModule,
        // The issues monitors open: the cron and uptime workers and APIs of either role use it.
        MonitorIncidentsModule,
        ...(runsApi ? API_MODULES : []),
        // Dashboard files and the page fallback for client-side routes (never /api, /auth, /health, /metrics).
        ...(runsApi ? [DashboardModule] : []),
        ...(runsWorkers ? WORKER_MODULES : []),
      ],
    };
  }
}
