import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';

/** Opts a route out of the global bearer-token/session guard. Use sparingly: deny is the default. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
