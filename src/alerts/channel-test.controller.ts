import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { ChannelTestService } from './channel-test.service';
import { ChannelTestResult } from './dto/channel-test.response';
import { ApiErrors } from '../http/api-responses';
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
  @ApiOkResponse({ type: ChannelTestResult })
  @ApiErrors(400, 404)
  test(@Param('id', IdPipe) id: number): Promise<ChannelTestResult> {
    return this.tests.test(id);
  }
}
