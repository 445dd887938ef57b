import type { Config } from '../config/schema.js';
import { createLogger, type Logger } from '../log.js';

/** The logger the `log` section asks for: JSON, pretty, or pretty only on a terminal. */
export function loggerFor(config: Pick<Config, 'log'>): Logger {
  const { level, format } = config.log;
  return createLogger({ level, pretty: format === 'auto' ? undefined : format === 'pretty' });
}
