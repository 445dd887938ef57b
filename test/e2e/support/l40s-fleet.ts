/**
 * Scenario pieces the idle-stop replays share: one L40S type at $0.86/h in the catalog, and two
 * Pods busy on it from the start. With those two counted, stopping one idle Pod stays within the
 * blast-radius cap, so a test can be about the warning, the lock or the link instead of the cap.
 */

/** The `gpu` of a scenario Pod on one L40S. */
export const L40S = { id: 'NVIDIA L40S', count: 1 };

/** The scenario catalog: the L40S only, at $0.86/h secure, $0.79/h community, plentiful. */
export function l40sCatalog() {
  return {
    gpus: [{ id: L40S.id, name: 'L40S', memory: 48, price: { secure: 0.86, community: 0.79 }, availability: 'HIGH' }],
  };
}

/** train-a and train-b: L40S Pods running for two hours at 90% GPU, never idle. */
export function busyPods() {
  return ['train-a', 'train-b'].map((id) => ({
    id,
    name: id,
    gpu: L40S,
    cost: 0.86,
    status: 'RUNNING',
    startedAt: '-2h',
    utilization: [{ at: '0s', gpu: 90, memory: 60 }],
  }));
}
