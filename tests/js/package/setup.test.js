// What the README's two commands install: npm start only what the page needs, npm test the rest.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const scripts = JSON.parse(readFileSync(`${root}package.json`, 'utf8')).scripts;
const packages = (purpose) => execFileSync('bash', ['tools/setup.sh', purpose, '--list'], { cwd: root, encoding: 'utf8' }).trim().split(' ');

test('npm start installs the WASM toolchain but not Chromium or GoogleTest', () => {
  expect(scripts.prestart).toMatch(/^bash tools\/setup\.sh page /);
  expect(packages('page')).toEqual(expect.arrayContaining(['emscripten', 'libeigen3-dev', 'nlohmann-json3-dev', 'cmake']));
  expect(packages('page')).not.toContain('chromium');
  expect(packages('page')).not.toContain('libgtest-dev');
});

test('npm test installs Chromium and GoogleTest as well', () => {
  expect(scripts.pretest).toMatch(/^bash tools\/setup\.sh test /);
  expect(packages('test')).toEqual(expect.arrayContaining([...packages('page'), 'chromium', 'libgtest-dev', 'g++']));
});
