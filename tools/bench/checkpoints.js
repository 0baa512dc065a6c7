// The bench's real-size checkpoints: build/checkpoints/<size>/, written by
// tools/make_checkpoints.py --size when missing (random weights, never committed).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PYTHON = '/usr/bin/python3'; // Debian's, with python3-torch (tools/setup.sh bench)

/** build/checkpoints/<size>/, made when missing. */
export function checkpoint(size) {
  const folder = `${ROOT}build/checkpoints/${size}`;
  if (!existsSync(`${folder}/model.safetensors`)) {
    process.stderr.write(`bench: writing ${folder}…\n`);
    execFileSync(PYTHON, [`${ROOT}tools/make_checkpoints.py`, '--size', size], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return folder;
}
