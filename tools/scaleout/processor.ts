// The job processor BullMQ runs in a child process of `drivekit worker` (a sandboxed processor): it
// validates the payload, skips a job already done (marker.ts), else runs the command in this process.
import type { SandboxedJob } from 'bullmq';
import { describeError, InputError } from '../../core/errors.ts';
import type { ChildResult } from './aggregate.ts';
import { ROOTS_ENV } from './config.ts';
// Stops this process when its worker is gone (also loaded before BullMQ's code, through execArgv).
import './jobProcessGuard.ts';
import { inputHash, outputPaths, readDoneMarker, writeDoneMarker } from './marker.ts';
import { type AggregatePayload, jobCommand, type JobPayload, validatePayload } from './payload.ts';
import { runCommandInProcess } from './runCommand.ts';

function roots(): string[] {
  const r = JSON.parse(process.env[ROOTS_ENV] ?? '[]') as unknown;
  return Array.isArray(r) && r.length > 0 ? r.map(String) : [process.cwd()];
}

/** BullMQ fails an error named UnrecoverableError at once, without the remaining attempts. */
function unrecoverable(e: unknown): Error {
  const err = new Error(describeError(e));
  err.name = 'UnrecoverableError';
  return err;
}

async function runJob(job: SandboxedJob): Promise<ChildResult> {
  const valid = validatePayload(job.data, roots());
  const options = (job.data as JobPayload).options ?? {};
  const hash = inputHash(valid);
  const outputs = outputPaths(valid, options);
  const done = readDoneMarker(valid, hash, outputs);
  if (done !== null) return { input: valid.input, outDir: valid.outDir, skipped: true, result: done };
  const result = await runCommandInProcess(valid.command, valid.argv);
  writeDoneMarker(valid, hash, outputs, result);
  return { input: valid.input, outDir: valid.outDir, skipped: false, result };
}

async function runAggregate(job: SandboxedJob): Promise<unknown> {
  const p = job.data as AggregatePayload;
  const spec = jobCommand(p.command);
  const { aggregate } = await import('./aggregate.ts');
  const children = await job.getChildrenValues<ChildResult>();
  const failures = await job.getIgnoredChildrenFailures();
  // Options are re-checked by validating a stand-in child payload (same rules, same roots).
  validatePayload({ v: p.v, command: p.command, input: roots()[0], options: p.options }, roots());
  return aggregate(p.command, spec.aggregate, p.options, children, failures);
}

export default async function processJob(job: SandboxedJob): Promise<unknown> {
  try {
    const isAggregate = (job.data as Partial<AggregatePayload> | null)?.aggregate === true;
    const result = isAggregate ? await runAggregate(job) : await runJob(job);
    await job.updateProgress(100);
    return result;
  } catch (e) {
    if (e instanceof InputError) throw unrecoverable(e);
    throw e;
  }
}
