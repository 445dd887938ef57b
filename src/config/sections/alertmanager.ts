import { z } from 'zod';
import { duration, httpUrl, type ParseContext } from '../fields.js';
import { secretShape, withSecret } from '../secret.js';

/** The rules whose alerts can be routed (the same list as `alerts`; kept here to avoid a cycle). */
const RULES = ['budget', 'idle', 'capacity', 'waste', 'health'] as const;

/** Where alerts can go: email through the outbox, or the Alertmanager(s) of `alerts.alertmanager`. */
export const ALERT_CHANNELS = ['email', 'alertmanager'] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];

/**
 * `alerts.route`: the channels of each rule's alerts. A rule not listed goes to every channel
 * that is configured (email when `email.host` is set, Alertmanager when `alerts.alertmanager`
 * is); `[]` notifies nobody (the alert state and metrics stay).
 */
export const routeSection = z
  .strictObject(
    Object.fromEntries(
      RULES.map((rule) => [
        rule,
        z
          .array(z.enum(ALERT_CHANNELS))
          .optional()
          .describe("Where this rule's alerts go: email, alertmanager or both; [] notifies nobody."),
      ]),
    ) as {
      [R in (typeof RULES)[number]]: z.ZodOptional<
        z.ZodArray<z.ZodEnum<{ email: 'email'; alertmanager: 'alertmanager' }>>
      >;
    },
  )
  .prefault({});

function basicAuth(ctx: ParseContext) {
  return withSecret(
    z.strictObject({
      username: z.string().min(1).describe('The user name of HTTP basic auth.'),
      ...secretShape('password', ctx),
    }),
    'password',
    {
      required: true,
    },
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
    runbookUrls: z
      .strictObject(
        Object.fromEntries(
          RULES.map((rule) => [
            rule,
            httpUrl().optional().describe("The runbook_url annotation of this rule's alerts."),
          ]),
        ) as {
          [R in (typeof RULES)[number]]: z.ZodOptional<ReturnType<typeof httpUrl>>;
        },
      )
      .prefault({}),
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
