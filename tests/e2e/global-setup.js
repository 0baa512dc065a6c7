// Jest's global set-up: builds the page (web/demo) once, as `npm start` builds it, into build/demo,
// before any test runs. Every e2e test of the page serves that folder (page-server.js, as npm start does), and
// examples/iframe.html points at it. Building once instead of once per test file keeps the e2e
// tests testing the current sources at a tenth of the cost.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export default async function buildPage() {
  const repo = fileURLToPath(new URL('../..', import.meta.url));
  // A child process: rolldown's native binding does not work inside Jest's sandbox (see vite-build.js).
  await promisify(execFile)(process.execPath, [`${repo}tests/e2e/vite-build.js`, `${repo}web/demo/vite.config.js`, `${repo}build/demo`]);
}
