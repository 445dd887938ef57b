import { budgetCapControl } from './budget-cap.js';
import type { EnforceControl } from './candidate.js';
import { deadlineControl } from './deadline.js';
import { scheduleControl } from './schedule.js';

/**
 * Every source of enforcement stop candidates, in the order their candidates are taken: one line
 * per control. A Pod may have one episode per kind at a time; its controls of different kinds
 * each run their own.
 */
export const ENFORCE_CONTROLS: readonly EnforceControl[] = [deadlineControl, scheduleControl, budgetCapControl];
