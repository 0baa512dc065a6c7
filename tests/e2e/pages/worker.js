// The module worker started by load.js: runs the loading case off the main thread and posts
// back { result, scope } (scope names the global, proving where it ran), or { error }.
import { loadEngine } from '/web/src/index.js';
import { runCase } from './compute.js';

self.onmessage = async ({ data }) => {
  try {
    self.postMessage({ result: await runCase(loadEngine, data.build, data.threads), scope: self.constructor.name });
  } catch (error) {
    self.postMessage({ error: String(error?.message ?? error) });
  }
};
