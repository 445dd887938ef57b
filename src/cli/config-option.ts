import { Option } from 'commander';

/** `--config PATH`, shared by every command that reads the configuration. */
export function configOption(): Option {
  return new Option('--config <path>', 'configuration file (YAML); defaults to $PODWARDEN_CONFIG');
}
