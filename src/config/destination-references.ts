import type { z } from 'zod';
import type { AlertRouteConfig } from './sections/routes.js';
import { isOwnerWord } from './sections/routes.js';

type DestinationChannel = 'slack' | 'webhook';

interface Referencing {
  alerts: { routes: AlertRouteConfig[] };
  owners: { contacts: Record<string, Partial<Record<DestinationChannel, string[]>>> };
  slack?: { destinations: Array<{ name: string }> };
  webhook?: { destinations: Array<{ name: string }> };
}

const TITLES: Readonly<Record<DestinationChannel, string>> = { slack: 'Slack', webhook: 'webhook' };

/**
 * A route or a contact that names a Slack or webhook destination must name a configured one: a
 * typo would otherwise send the owner's notices to the channel's default destination, silently.
 */
export function checkDestinationReferences(config: Referencing, ctx: z.RefinementCtx): void {
  for (const channel of ['slack', 'webhook'] as const) {
    const known = new Set((config[channel]?.destinations ?? []).map((destination) => destination.name));
    const check = (names: readonly string[] | undefined, path: Array<string | number>) => {
      for (const [index, name] of (names ?? []).entries()) {
        if (known.has(name) || isOwnerWord(name)) continue;
        const configured = known.size > 0 ? `configured: ${[...known].join(', ')}` : `no ${channel} section`;
        ctx.addIssue({
          code: 'custom',
          path: [...path, index],
          message: `unknown ${TITLES[channel]} destination "${name}" (${configured})`,
        });
      }
    };
    for (const [index, route] of config.alerts.routes.entries()) {
      check(route.to[channel], ['alerts', 'routes', index, 'to', channel]);
    }
    for (const [name, contact] of Object.entries(config.owners.contacts)) {
      check(contact[channel], ['owners', 'contacts', name, channel]);
    }
  }
}
