import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NotificationChannel } from './channel.entity';
import { ChannelsRepository } from './channels.repository';

/** The channels' rows without the HTTP routes, for workers (alert delivery). */
@Module({
  imports: [TypeOrmModule.forFeature([NotificationChannel])],
  providers: [ChannelsRepository],
  exports: [ChannelsRepository],
})
export class ChannelsDataModule {}
