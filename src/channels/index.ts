import { alertmanagerChannel } from './alertmanager.js';
import type { Channel } from './channel.js';
import { emailChannel } from './email.js';

/**
 * Every notification channel, in the order a tick delivers for them: the one list that names
 * them. Alertmanager first: its POST is short, while an SMTP server that is down holds its pass
 * for a connection timeout.
 */
export const CHANNELS: readonly Channel[] = [alertmanagerChannel, emailChannel];
