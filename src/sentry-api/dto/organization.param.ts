import { ApiParam } from '@nestjs/swagger';

/** `{org}` of Sentry's routes, which the handlers do not read: there is one organization. */
export const ApiOrganization = () =>
  ApiParam({
    name: 'org',
    description: 'Any organization slug: this server has one organization (`default` in the docs).',
    type: String,
  });
