import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NotificationChannel } from '../channels/channel.entity';
import { ChannelTestController } from './channel-test.controller';
import { ChannelTestService } from './channel-test.service';
import { AlertSendersModule } from './senders/alert-senders.module';

/** API role: `POST /api/alert-channels/:id/test`. */
@Module({
  imports: [TypeOrmModule.forFeature([NotificationChannel]), AlertSendersModule],
  controllers: [ChannelTestController],
  providers: [ChannelTestService],
})
export class AlertsApiModule {}
