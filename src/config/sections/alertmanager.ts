import { z } from 'zod';
import { duration, httpUrl, type ParseContext } from '../fields.js';
import { secretShape, withSecret } from '../secret.js';
import { perRule } from './rule-names.js';

/** The Alertmanager channel as routing sees it: configured with `alerts.alertmanager`. */
export const alertmanagerChannelConfig = {
  name: 'alertmanager',
  configured: (config: { alerts: { alertmanager?: unknown } }) => config.alerts.alertmanager !== undefined,
} as const;

function basicAuth(ctx: ParseContext) {
  return withSecret(
    z.strictObject({
      username: z.string().min(1).describe('The user name of HTTP basic auth.'),
      ...secretShape('password', ctx),
    }),
    'password',
    { required: true },
  );
}

/**
 * `alerts.alertmanager`: the Alertmanagers podwarden posts its alerts to (API v2). Several URLs
 * are one HA set: every alert goes to each of them, as Prometheus does.
 */
export function alertmanagerSection(ctx: ParseContext) {
  const fields = z.strictObject({
    urls: z.array(httpUrl()).min(1, { error: 'at least one Alertmanager URL is required' }),
    basicAuth: basicAuth(ctx).optional(),
    ...secretShape('bearerToken', ctx),
    /** One POST to one Alertmanager, from connecting to the end of its answer. */
    timeout: duration().prefault('10s'),
    /** Firing alerts are sent again this often; each says it ends 4 intervals later unless sent again. */
    resendInterval: duration().prefault('1m'),
    /** `runbook_url` annotations, per rule. */
    runbookUrls: perRule(() =>
      httpUrl().optional().describe("The runbook_url annotation of this rule's alerts."),
    ).prefault({}),
  });
  return withSecret(fields, 'bearerToken', { required: false })
    .superRefine((section, issues) => {
      section.urls.forEach((url, index) => {
        // The URL names its Alertmanager in metrics and logs, so it must not carry a password.
        if (/^https?:\/\/[^/]*@/.test(url)) {
          issues.addIssue({
            code: 'custom',
            path: ['urls', index],
            message: 'credentials in the URL: set basicAuth (or bearerToken) instead',
          });
        }
        if (section.urls.indexOf(url) !== index) {
          issues.addIssue({ code: 'custom', path: ['urls', index], message: `"${url}" is listed twice` });
        }
      });
      if (section.basicAuth !== undefined && section.bearerToken !== undefined) {
        issues.addIssue({ code: 'custom', path: ['basicAuth'], message: 'set basicAuth or bearerToken, not both' });
      }
    })
    .transform(({ timeout, resendInterval, ...section }) => ({
      ...section,
      timeoutMs: timeout,
      resendIntervalMs: resendInterval,
    }));
}

export type AlertmanagerConfig = z.output<ReturnType<typeof alertmanagerSection>>;
