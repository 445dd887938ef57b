/**
 * The enums of RunPod REST v2 as the simulator uses them, read from
 * reference/runpod-rest-v2-openapi.json (components/schemas). Written by hand on purpose: the
 * simulator is a second, independent reading of the document, checked by the contract tests.
 */

export const POD_STATUSES = ['PROVISIONING', 'STARTING', 'RUNNING', 'EXITED', 'ERROR', 'TERMINATED'] as const;
export type PodStatus = (typeof POD_STATUSES)[number];

export const POD_ACTIONS = ['start', 'stop', 'restart', 'terminate'] as const;
export type PodAction = (typeof POD_ACTIONS)[number];

export const AVAILABILITY_LEVELS = ['NONE', 'LOW', 'MEDIUM', 'HIGH'] as const;
export type AvailabilityLevel = (typeof AVAILABILITY_LEVELS)[number];

export const VOLUME_TYPES = ['STANDARD', 'HIGH_PERFORMANCE'] as const;

export const DATA_CENTER_REGIONS = [
  'NORTH_AMERICA',
  'SOUTH_AMERICA',
  'EUROPE',
  'ASIA',
  'MIDDLE_EAST',
  'AFRICA',
  'OCEANIA',
  'ANTARCTICA',
  'UNKNOWN',
] as const;

export const COMPLIANCE = [
  'GDPR',
  'ISO_IEC_27001',
  'ISO_14001',
  'PCI_DSS',
  'HITRUST',
  'SOC_1_TYPE_2',
  'SOC_2_TYPE_2',
  'SOC_3_TYPE_2',
  'ITAR',
  'FISMA_HIGH',
  'HIPAA',
  'RENEWABLE',
] as const;
