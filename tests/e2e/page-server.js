// The page as `npm start` serves it: `vite preview` over build/demo (global-setup.js built it),
// cross-origin isolated by web/demo/vite.config.js, here on a free port. A child process, as
// rolldown's native binding does not load inside Jest's sandbox (see vite-build.js).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** package.json's start script: `vite preview` and its arguments. */
export const START_SCRIPT = JSON.parse(readFileSync(`${REPO}package.json`, 'utf8')).scripts.start;

/** Vite's terminal colours: with CI set in the environment it colours even a pipe, port included. */
const COLOUR = /\x1b\[[0-9;]*m/g;

/**
 * Starts the start script's server on a port of its own. Resolves to { url, close() }. `env` adds
 * to the environment the server sees.
 */
export function servePage(env = {}) {
  const [command, ...args] = START_SCRIPT.split(' ');
  if (command !== 'vite') throw new Error(`package.json's start script is not vite preview: ${START_SCRIPT}`);
  const child = spawn(process.execPath, [`${REPO}node_modules/vite/bin/vite.js`, ...args, '--port', '0', '--strictPort'],
    { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    let output = '';
    // Named, rather than left to Jest's hook timeout: which says nothing of what Vite printed.
    const late = setTimeout(() => {
      child.kill();
      reject(new Error(`vite preview printed no address in 30 s: ${output}`));
    }, 30000);
    const read = (chunk) => {
      output += String(chunk).replace(COLOUR, '');
      const found = output.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (!found) return;
      clearTimeout(late);
      child.stdout.off('data', read);
      child.stderr.off('data', read);
      child.stdout.resume();
      child.stderr.resume();
      resolve({ url: found[0], close: () => { child.kill(); return exited; } });
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    exited.then((code) => {
      clearTimeout(late);
      reject(new Error(`vite preview exited with ${code}: ${output}`));
    });
  });
}
