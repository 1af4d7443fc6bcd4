/**
 * SDKs parse DSNs with `^(\w+)://(\w+)(:\w+)?@([\w.-]+)(:\d+)?/(.+)$`: the public key must be word
 * characters only, so the client key's UUID goes in without dashes. A PUBLIC_URL path (the tracker
 * behind a reverse-proxy prefix) stays in front of the project id, as SDKs expect.
 */
export function buildDsn(publicUrl: string, clientKey: string, projectId: number): string {
  const url = new URL(publicUrl);
  const path = url.pathname.replace(/\/+$/, '');
  const port = url.port ? `:${url.port}` : '';
  return `${url.protocol}//${clientKey.replace(/-/g, '')}@${url.hostname}${port}${path}/${projectId}`;
}
