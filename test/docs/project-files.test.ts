import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../../src/package-root.js';

const read = (file: string) => readFileSync(packagePath(file), 'utf8');

describe('the files every project is expected to carry', () => {
  it('has the full text of the license package.json names', () => {
    expect(JSON.parse(read('package.json')).license).toBe('Apache-2.0');
    const license = read('LICENSE');
    expect(license).toMatch(/^\s+Apache License\n\s+Version 2\.0, January 2004\n/);
    // All nine sections of the terms and the appendix, not a notice pointing elsewhere.
    for (let section = 1; section <= 9; section++) expect(license).toMatch(new RegExp(`^\\s+${section}\\. [A-Z]`, 'm'));
    expect(license).toContain('END OF TERMS AND CONDITIONS');
    expect(license).toContain('APPENDIX: How to apply the Apache License to your work.');
  });

  it('has a changelog and a security policy that says how to report and what is protected', () => {
    expect(read('CHANGELOG.md')).toMatch(/^## 0\.1\.0/m);
    const security = read('SECURITY.md');
    for (const heading of ['## Reporting a vulnerability', '## Supported versions', '## What podwarden protects'])
      expect(security).toContain(heading);
    for (const secret of ['API key', 'bearer token', 'link secret']) expect(security).toContain(secret);
    expect(existsSync(packagePath('docs/runbooks.md'))).toBe(true);
  });
});
