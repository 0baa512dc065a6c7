// Makes the package as users get it: `npm pack` into `dir`, then a fresh app in `dir` installs the
// tarball (its dependencies come from npm's cache, which `npm ci` filled). Used by the tarball
// test here and by the bundler apps in tests/e2e.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const run = promisify(execFile);

/** Packs and installs into `dir`; resolves to the tarball's file list. */
export async function packAndInstall(dir) {
  // --ignore-scripts: `npm test` has already built dist/, which is what prepack would do.
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: REPO });
  const [packed] = JSON.parse(stdout);
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, packed.filename)], { cwd: dir });
  return packed.files.map((f) => f.path);
}
