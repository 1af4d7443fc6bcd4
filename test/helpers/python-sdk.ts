import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's Python, which python3-sentry-sdk installs into, rather than whichever comes first. */
export const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/**
 * Whether the installed Python SDK can run `probe` (Python code, e.g. an import), decided when the
 * test file loads, before any test runs. Without it, the tests that need it are skipped visibly:
 * `itWith` is `it.skip`, the reason is printed once, and it ends the test's name.
 */
export function pythonSdkFeature(
  probe: string,
  missing: string,
): { itWith: jest.It; title: (name: string) => string } {
  let available = true;
  try {
    execFileSync(PYTHON, ['-c', probe], { stdio: 'ignore', timeout: 60_000 });
  } catch {
    available = false;
  }
  if (available) return { itWith: it, title: (name) => name };
  console.warn(`skipped: ${missing}`);
  return { itWith: it.skip, title: (name) => `${name} (skipped: ${missing})` };
}
