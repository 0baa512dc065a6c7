// tools/serve.js, the static server behind the browser tests and `npm start`: content types the
// browser insists on, index pages, and no way out of the served directory.
import { request } from 'node:http';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../tools/serve.js';

const SECRET = 'contents that must not be served';
let dir, server;

beforeAll(async () => {
  // dir/site is served; dir/secret.txt sits next to it and must stay unreachable.
  dir = await mkdtemp(join(tmpdir(), 'multihead-serve-'));
  await mkdir(join(dir, 'site/app'), { recursive: true });
  await Promise.all([
    writeFile(join(dir, 'secret.txt'), SECRET),
    writeFile(join(dir, 'site/app/index.html'), '<p>app</p>'),
    writeFile(join(dir, 'site/engine.wasm'), new Uint8Array([0, 0x61, 0x73, 0x6d])),
    writeFile(join(dir, 'site/glue.mjs'), 'export default 1;'),
    writeFile(join(dir, 'site/model.safetensors'), 'x'),
  ]);
  server = await startServer({ root: join(dir, 'site') });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Sends `path` exactly as written (fetch would normalise "..") and collects the answer. */
function get(path, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = request(new URL(server.url), { path, method }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk) => { body += chunk; }).on('end', () => {
        resolve({ status: res.statusCode, type: res.headers['content-type'], location: res.headers.location, body });
      });
    });
    req.on('error', reject).end();
  });
}

test('the server listens on 127.0.0.1 on a free port when none is given', () => {
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
});

test.each([
  ['/engine.wasm', 'application/wasm'],
  ['/glue.mjs', 'text/javascript; charset=utf-8'],
  ['/model.safetensors', 'application/octet-stream'],
])('the server serves %s as %s', async (path, type) => {
  const res = await get(path);
  expect([res.status, res.type]).toEqual([200, type]);
});

test("the server answers a directory with its index.html, after adding the trailing slash", async () => {
  expect(await get('/app')).toMatchObject({ status: 301, location: '/app/' });
  expect(await get('/app/')).toMatchObject({ status: 200, type: 'text/html; charset=utf-8', body: '<p>app</p>' });
});

test.each(['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/app/..%2f..%2fsecret.txt'])(
  'the server never serves files outside its root, even for %s', async (path) => {
    const res = await get(path);
    expect([403, 404]).toContain(res.status);
    expect(res.body).not.toContain(SECRET);
  });

test('the server answers 404 for a missing file, 400 for a malformed URL and 405 for a POST', async () => {
  expect((await get('/missing.js')).status).toBe(404);
  expect((await get('/%E0%A4%A')).status).toBe(400);
  expect((await get('/glue.mjs', 'POST')).status).toBe(405);
});
