import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { IdPipe } from '../common/id.pipes';
import { CreateTokenDto } from './dto/create-token.dto';
import { TokensService, TokenView } from './tokens.service';

@ApiTags('tokens')
@ApiBearerAuth()
@Controller('api/tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Get()
  async list(): Promise<{ data: TokenView[] }> {
    return { data: await this.tokens.list() };
  }

  /** The only response that ever contains the full token. */
  @Post()
  create(@Body() body: CreateTokenDto): Promise<TokenView> {
    return this.tokens.create(body.description);
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@Param('id', IdPipe) id: number): Promise<void> {
    await this.tokens.remove(id);
  }
}
