import type { Problem } from './errors.js';

/** How the configuration was last (re)loaded, kept by whoever reloads it (src/daemon-reload.ts). */
export interface ConfigReloadStatus {
  /** Whether the last attempt succeeded; the configuration read at start counts as one. */
  successful: boolean;
  /** When the configuration was last loaded successfully (at start or by a reload), in ms. */
  lastSuccessAt: number;
}

/** What a reload did: applied when `problems` is empty, else refused as a whole, the running configuration kept. */
export interface ReloadOutcome {
  problems: Problem[];
}
