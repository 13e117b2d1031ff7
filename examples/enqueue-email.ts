// A client script: enqueue a send-email job, then wait for it and print its record.
//   npx tsx examples/enqueue-email.ts ada@example.com
// In your own project, import from 'durable-jobs' instead of '../src/client', and your own catalog.
import { InvalidPayloadError, JobClient } from '../src/client';
import { catalog } from '../src/jobs/catalog';

async function main(): Promise<void> {
  const to = process.argv[2] ?? 'ada@example.com';
  const jobs = await JobClient.connect({ catalog }); // typed by the catalog: payload inferred
  try {
    const { id, existed, handle } = await jobs.enqueue(
      'send-email',
      { to, subject: 'Welcome', template: { name: 'welcome', vars: { name: to.split('@')[0]! } }, userId: 'example-user' },
      { id: `welcome:${to}` },
    );
    console.log(existed ? `job ${id} already existed` : `enqueued ${id}`);
    await handle.result();
    console.log(JSON.stringify(await jobs.get(id), null, 2));
  } catch (err) {
    if (err instanceof InvalidPayloadError) {
      console.error(err.issues.map((i) => `${i.path}: ${i.message}`).join('\n'));
      process.exitCode = 2;
      return;
    }
    throw err;
  } finally {
    await jobs.close();
  }
}

void main();
