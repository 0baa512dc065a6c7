// The README's example, run exactly as written, in its own Node process: `multihead` resolves to
// this package through its own "exports", as it would for a user.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Runs the README's n-th ```js block under "## Example" in a fresh Node process; returns its output. */
function runExample(index) {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const example = [...readme.split('## Example')[1].split('## API')[0].matchAll(/```js\n([\s\S]*?)```/g)][index][1];
  mkdirSync(`${root}build`, { recursive: true });
  writeFileSync(`${root}build/readme-example-${index}.mjs`, example);
  return execFileSync(process.execPath, [`${root}build/readme-example-${index}.mjs`], { encoding: 'utf8' });
}

test("the README's attention example runs as written and prints what its comments say", () => {
  const out = runExample(0);
  const lines = out.trim().split('\n');
  expect(lines[0]).toBe('simd');
  expect(out).toMatch(/Float32Array\(9\) \[\s*1,\s*0,\s*0,/);
  expect(lines.at(-1)).toBe('24');
});

test("the README's model example runs as written and prints what its comments say", () => {
  const lines = runExample(1).trim().split('\n');
  expect(lines).toEqual(['[CLS] The cat sat on the mat because it was tired . [SEP]', '169']);
});

test("the README's causal-model example runs as written and prints what its comments say", () => {
  const lines = runExample(2).trim().split('\n');
  expect(lines).toEqual(['William', 'william']);
});
