// The README's example, run exactly as written, in its own Node process: `multihead` resolves to
// this package through its own "exports", as it would for a user.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

test("the README's example runs as written and prints what its comments say", () => {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const example = readme.split('## Example')[1].match(/```js\n([\s\S]*?)```/)[1];
  mkdirSync(`${root}build`, { recursive: true });
  writeFileSync(`${root}build/readme-example.mjs`, example);
  const out = execFileSync(process.execPath, [`${root}build/readme-example.mjs`], { encoding: 'utf8' });
  const lines = out.trim().split('\n');
  expect(lines[0]).toBe('simd');
  expect(out).toMatch(/Float32Array\(9\) \[\s*1,\s*0,\s*0,/);
  expect(lines.at(-1)).toBe('24');
});
