// Issue 43, point 1: chat templates that exhausted memory or ran for minutes, each rendered by
// generate({ messages }) in a child process with a heap of 1 GiB (templates-child.js), as a user
// would meet them in Node: each ends with an Error naming the chat template and the bound it
// crossed, the process lives on, and the model still writes afterwards. On jinja alone the first of
// them aborted the process ("Reached heap limit").
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HOSTILE_TEMPLATES } from './templates.js';

const CHILD = fileURLToPath(new URL('./templates-child.js', import.meta.url));

let child, lines;
beforeAll(() => {
  child = spawnSync(process.execPath, ['--max-old-space-size=1024', CHILD], { encoding: 'utf8', timeout: 120000 });
  lines = new Map(child.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)).map((line) => [line.name, line]));
});

test('the process renders every hostile template and exits cleanly', () => {
  expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
});

test.each(HOSTILE_TEMPLATES)('%s ends with an Error naming the chat template and its bound', (name, _, message) => {
  expect(lines.get(name)?.message).toMatch(message);
  expect(lines.get(name).message).toMatch(/^the model's chat template /);
});

test('afterwards the model still writes after a chat and runs text', () => {
  expect(lines.get('afterwards')).toEqual({ name: 'afterwards', written: 2, tokens: 13 });
});
