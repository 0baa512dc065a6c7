// Entry of the Vite bundle: imports the package by its bare name, runs the loading case, and
// publishes window.__result = { page } and window.__done, or window.__error.
import { loadEngine } from 'multihead';
import { runCase } from '../pages/compute.js';
import { showError, showResult } from '../pages/show.js';
import '../pages/style.css';

const root = document.getElementById('results');
const params = new URLSearchParams(location.search);
const build = params.get('build') ?? undefined;
const threads = params.has('threads') ? Number(params.get('threads')) : undefined;

try {
  const page = await runCase(loadEngine, build, threads);
  showResult(root, 'Vite bundle', page);
  window.__result = { page };
  window.__done = true;
} catch (error) {
  window.__error = String(error?.message ?? error);
  showError(root, window.__error);
}
