import { Module } from '@nestjs/common';
import { ChannelsController } from './channels.controller';
import { ChannelsDataModule } from './channels-data.module';
import { ChannelsService } from './channels.service';

@Module({
  imports: [ChannelsDataModule],
  controllers: [ChannelsController],
  providers: [ChannelsService],
  exports: [ChannelsService],
})
export class ChannelsModule {}
