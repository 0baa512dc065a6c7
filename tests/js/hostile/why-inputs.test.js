// The why tools given a 10 MB string where they take one token or a prompt, in a child process
// with a 256 MB heap (why-inputs-child.js): each ends in an error that names the input, the
// process lives on, and the model still explains and patches. A token is read only as far as two
// tokens, a prompt one token past the model's length; read whole, the first string aborted the
// process ("Ineffective mark-compacts near heap limit").
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./why-inputs-child.js', import.meta.url));

let child, lines;
beforeAll(() => {
  child = spawnSync(process.execPath, ['--max-old-space-size=256', CHILD], { encoding: 'utf8', timeout: 120000 });
  lines = new Map(child.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)).map((line) => [line.name, line]));
});

test('the process meets every huge string and exits cleanly', () => {
  expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
});

test.each([
  ['contributions against', /^against must be one token of the model's vocabulary; "word word [^"]*"… \(10000000 characters\) is more than \d+ tokens$/],
  ['contributions token', /^token must be one token of the model's vocabulary; .* \(10000000 characters\) is more than \d+ tokens$/],
  ['patch against', /^against must be one token of the model's vocabulary; .* is more than \d+ tokens$/],
  ['patch corrupted', /^the corrupted prompt has more than the model's 128 tokens: patching runs each prompt whole$/],
  ['patch clean', /^the clean prompt has more than the model's 128 tokens: patching runs each prompt whole$/],
])('%s ends in an error naming it', (name, message) => {
  expect(lines.get(name)?.message).toMatch(message);
});

test('afterwards the model still explains and patches', () => {
  expect(lines.get('afterwards')).toEqual({ name: 'afterwards', parts: 2, runs: 8 });
});
