import { Controller, Get, Post } from '@nestjs/common';
import { Public } from '../common/public.decorator';
import { Requires } from './route-access.decorator';
import { routeDeclarations } from './route-declarations';

@Controller('api/things')
class ThingsController {
  @Get()
  @Requires('project:read')
  list(): void {}

  @Post()
  create(): void {}

  @Public()
  @Get('open')
  open(): void {}

  helper(): void {}
}

@Requires('account')
@Controller('api/mine')
class MineController {
  @Get(':id')
  get(): void {}
}

describe('routeDeclarations', () => {
  it('lists each route with its permission, public, or nothing', () => {
    expect(routeDeclarations([ThingsController, MineController])).toEqual([
      { route: 'GET /api/things', declared: 'project:read' },
      { route: 'POST /api/things', declared: null },
      { route: 'GET /api/things/open', declared: 'public' },
      { route: 'GET /api/mine/:id', declared: 'account' },
    ]);
  });
});
