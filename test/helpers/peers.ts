import { spawnSync } from 'node:child_process';

/**
 * Whether a real peer program (a Debian package's binary) is installed. Locally a missing peer
 * skips the tests that need it; in CI (CI=true) it is an error, because CI must never skip them.
 */
export function hasPeer(binary: string, debianPackage: string, versionFlag = '--version'): boolean {
  const found = spawnSync(binary, [versionFlag], { stdio: 'ignore' }).status === 0;
  if (!found && process.env.CI === 'true') {
    throw new Error(`${binary} is not installed (apt-get install -y ${debianPackage}); CI must not skip this test`);
  }
  return found;
}
