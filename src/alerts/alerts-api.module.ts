import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module';
import { ChannelTestController } from './channel-test.controller';
import { ChannelTestService } from './channel-test.service';
import { AlertSendersModule } from './senders/alert-senders.module';

/** API role: `POST /api/alert-channels/:id/test`. */
@Module({
  imports: [ChannelsModule, AlertSendersModule],
  controllers: [ChannelTestController],
  providers: [ChannelTestService],
})
export class AlertsApiModule {}
