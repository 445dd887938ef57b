import { alertmanagerChannel } from './alertmanager.js';
import type { Channel } from './channel.js';
import { emailChannel } from './email.js';

/** Every notification channel, in the order a tick serves them: the one list that names them. */
export const CHANNELS: readonly Channel[] = [emailChannel, alertmanagerChannel];
