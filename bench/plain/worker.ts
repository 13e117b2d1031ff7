// The plain application's worker, with the SDK's default options, in its own process so that its
// CPU and memory are its own. Env: TEMPORAL_ADDRESS, BENCH_TASK_QUEUE.
import { NativeConnection, Worker } from '@temporalio/worker';
import * as activities from './activities';

async function main(): Promise<void> {
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS });
  try {
    const worker = await Worker.create({
      connection,
      namespace: 'default',
      taskQueue: process.env.BENCH_TASK_QUEUE ?? 'hello-world',
      workflowsPath: require.resolve('./workflows'),
      activities,
    });
    const running = worker.run();
    console.log('worker:started');
    await running;
  } finally {
    await connection.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
