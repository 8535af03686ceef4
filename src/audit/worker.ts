/**
 * One worker thread of `herdless audit`: loads the project's ESLint once (a failure here stops the worker before it
 * says 'ready', and the main thread lints its share), then lints each batch of files it is handed and sends back
 * their results in the same order. Kept this small because coverage cannot see into worker threads: the linting is
 * src/audit/audit.ts's own, tested in the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type LintJob, linterFor } from './audit';

const port = parentPort as NonNullable<typeof parentPort>;
const lint = linterFor((workerData as { cwd: string }).cwd);
if ('missing' in lint) throw new Error(`cannot load ${lint.missing.join(' and ')}`);
port.on('message', (jobs: LintJob[]) => port.postMessage(jobs.map(lint)));
port.postMessage('ready');
