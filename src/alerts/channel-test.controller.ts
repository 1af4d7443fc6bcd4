import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ChannelTestResult, ChannelTestService } from './channel-test.service';
import { Requires } from '../access/route-access.decorator';

@ApiTags('alert-channels')
@ApiBearerAuth()
@Controller('api/alert-channels')
export class ChannelTestController {
  constructor(private readonly tests: ChannelTestService) {}

  /** Always 200 once the channel exists: the receiver's failure is the answer, not an error of this API. */
  @Post(':id/test')
  @Requires('channels:admin')
  @HttpCode(200)
  test(@Param('id', IdPipe) id: number): Promise<ChannelTestResult> {
    return this.tests.test(id);
  }
}
