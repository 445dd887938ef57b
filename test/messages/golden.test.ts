import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderMessage, SUBJECT_MAX } from '../../src/messages/email.js';
import { renderDigest, renderFlappingNotice } from '../../src/messages/notices.js';
import { alertDescription, alertSummary } from '../../src/messages/summary.js';
import { ALERTS, DIGEST, FLAPPING, firstNotification, NOW, resolvedNotification } from './fixtures.js';

/**
 * Every kind of email, text and HTML, against golden files: a change to a message is a reviewed
 * diff. `UPDATE_GOLDEN=1 npx vitest run test/messages/golden.test.ts` rewrites them.
 */
const GOLDEN = resolve('test', 'golden', 'email');
const update = process.env.UPDATE_GOLDEN === '1';

function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (update || !existsSync(path)) {
    mkdirSync(GOLDEN, { recursive: true });
    writeFileSync(path, actual);
  }
  expect(actual, `${name} differs from its golden file (UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}

/** What a person must never read: field names, milliseconds, floats with their binary tail. */
function expectReadable(text: string): void {
  expect(text).not.toMatch(/\b[a-z]+[A-Z][A-Za-z]*(Ms|Hr|At|Id)\b/);
  expect(text).not.toMatch(/\d\.\d{3,}/);
  expect(text).not.toMatch(/\d{5,}/);
  expect(text).not.toContain('undefined');
  expect(text).not.toContain('NaN');
}

const MESSAGES: Record<string, ReturnType<typeof renderMessage>> = {
  ...Object.fromEntries(Object.entries(ALERTS).map(([name, alert]) => [name, renderMessage(firstNotification(alert))])),
  'idle-resolved': renderMessage(resolvedNotification(ALERTS['idle-notify'] as never)),
  'budget-resolved': renderMessage(resolvedNotification(ALERTS['budget-live'] as never)),
  flapping: renderFlappingNotice(FLAPPING),
  digest: renderDigest(DIGEST),
};

describe('golden emails', () => {
  for (const [name, message] of Object.entries(MESSAGES)) {
    it(`${name}: subject, text and HTML as reviewed`, () => {
      expect(message.subject.length).toBeLessThanOrEqual(SUBJECT_MAX);
      expectReadable(message.subject);
      expectReadable(message.text);
      golden(`${name}.txt`, `Subject: ${message.subject}\n\n${message.text}`);
      golden(`${name}.html`, message.html);
    });
  }

  it('give other outputs (Alertmanager) the same one-line summary and plain description', () => {
    const alert = ALERTS['budget-live'];
    if (!alert) throw new Error('fixture missing');
    expect(alertSummary(alert)).toBe(MESSAGES['budget-live']?.subject);
    const description = alertDescription(alert, NOW);
    expect(description).toContain('gpu-daily');
    expect(description).not.toContain('first notification');
    expectReadable(description);
  });
});
