import net from 'node:net';
import { Worker } from 'node:worker_threads';

/**
 * A listener whose accept queue is full and never drained: the kernel stops completing TCP
 * handshakes, so a client's connect hangs until its own timeout. The listener runs in a worker
 * thread whose event loop is parked, which is what keeps it from accepting.
 */
export async function startFullBacklogListener(): Promise<{ port: number; close(): Promise<void> }> {
  const release = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(
    `const net = require('node:net');
     const { parentPort, workerData } = require('node:worker_threads');
     const server = net.createServer();
     server.listen({ host: '127.0.0.1', port: 0, backlog: 1 }, () => {
       parentPort.postMessage(server.address().port);
       Atomics.wait(workerData, 0, 0);
     });`,
    { eval: true, workerData: release },
  );
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  // Fill the accept queue (backlog + 1 on Linux), plus spares in case the kernel allows more.
  const fillers = Array.from({ length: 4 }, () => net.connect(port, '127.0.0.1').on('error', () => {}));
  await Promise.all(fillers.slice(0, 2).map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
  return {
    port,
    close: async () => {
      for (const socket of fillers) socket.destroy();
      Atomics.store(release, 0, 1);
      Atomics.notify(release, 0);
      await worker.terminate();
    },
  };
}
