// Runs the loading case on the main thread, then in a module worker, and publishes both on
// window.__result = { page, worker, workerScope } with window.__done = true, or the failure on
// window.__error. Read by tests/e2e/loading.test.js.
import { loadEngine } from '/web/src/index.js';
import { runCase } from './compute.js';
import { showError, showResult } from './show.js';

const root = document.getElementById('results');
const params = new URLSearchParams(location.search);
const build = params.get('build') ?? undefined;
const threads = params.has('threads') ? Number(params.get('threads')) : undefined;

/** Runs the case in a fresh module worker; resolves to { result, scope }. */
function runInWorker() {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    const finish = (settle, value) => { worker.terminate(); settle(value); };
    worker.onmessage = ({ data }) => (data.error ? finish(reject, new Error(`in the worker: ${data.error}`)) : finish(resolve, data));
    // A module worker that fails to import reports an ErrorEvent with no useful message.
    worker.onerror = (event) => finish(reject, new Error(`the worker failed: ${event.message || 'it could not load its modules'}`));
    worker.postMessage({ build, threads });
  });
}

try {
  const page = await runCase(loadEngine, build, threads);
  showResult(root, 'main thread', page);
  const { result: worker, scope: workerScope } = await runInWorker();
  showResult(root, 'module worker', worker);
  window.__result = { page, worker, workerScope };
  window.__done = true;
} catch (error) {
  window.__error = String(error?.message ?? error);
  showError(root, window.__error);
}
