// The fake Hub itself: that it answers like the real one (redirects, CORS, ranges, error codes,
// the API listing), so that what tests/js/loading/hub.test.js and the e2e tests prove against it holds.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeHub } from '../../hub/fake-hub.js';

const WEIGHTS = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
let folder;
let hub;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'fake-hub-'));
  writeFileSync(join(folder, 'config.json'), '{"model_type":"bert"}');
  writeFileSync(join(folder, 'model.safetensors'), WEIGHTS);
  hub = await startFakeHub({
    repos: {
      'multihead-test/tiny': { folder },
      'solo': { files: { 'config.json': '{}', 'pytorch_model.bin': Buffer.alloc(10) }, revisions: ['v1.0'] },
      'org/gated': { status: 401 },
      'org/private': { status: 403 },
      'plain/server': { files: { 'model.safetensors': WEIGHTS }, ranges: false },
    },
  });
});

afterAll(async () => {
  await hub.close();
  rmSync(folder, { recursive: true, force: true });
});

beforeEach(() => { hub.requests.length = 0; });

const resolveUrl = (id, file, revision = 'main') => `${hub.url}/${id}/resolve/${revision}/${file}`;

describe('the Hub server', () => {
  test('a file is a 302 to another server, with CORS headers on the redirect', async () => {
    const response = await fetch(resolveUrl('multihead-test/tiny', 'model.safetensors'), { redirect: 'manual' });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location'));
    expect(location.origin).toBe(hub.cdnUrl);
    expect(location.origin).not.toBe(new URL(hub.url).origin);
    expect(location.pathname).toMatch(/^\/repos\/[0-9a-f]{24}\/model\.safetensors$/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('x-repo-commit')).toMatch(/^[0-9a-f]{40}$/);
    expect(response.headers.get('x-linked-size')).toBe('1000');
  });

  test('HEAD is redirected the same way', async () => {
    const response = await fetch(resolveUrl('multihead-test/tiny', 'config.json'), { method: 'HEAD', redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toMatch(/\/config\.json$/);
  });

  test.each([
    ['an unknown id', 'nobody/nothing', 'config.json', 'main', 404, 'RepoNotFound'],
    ['an unknown file', 'multihead-test/tiny', 'tokenizer.json', 'main', 404, 'EntryNotFound'],
    ['an unknown revision', 'multihead-test/tiny', 'config.json', 'v2', 404, 'RevisionNotFound'],
    ['a gated repository', 'org/gated', 'config.json', 'main', 401, 'GatedRepo'],
    ['a gated repository, any file', 'org/gated', 'anything.bin', 'main', 401, 'GatedRepo'],
    ['a private repository', 'org/private', 'config.json', 'main', 403, 'GatedRepo'],
  ])('%s gets the Hub\'s status and X-Error-Code, readable cross-origin', async (_, id, file, revision, status, code) => {
    const response = await fetch(resolveUrl(id, file, revision), { redirect: 'manual' });
    expect(response.status).toBe(status);
    expect(response.headers.get('x-error-code')).toBe(code);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toMatch(/X-Error-Code/);
    expect(JSON.parse(await response.text()).error).toEqual(expect.any(String));
  });

  test('a bare id, an extra revision name and the commit sha all resolve', async () => {
    const listing = await (await fetch(`${hub.url}/api/models/solo/revision/main`)).json();
    for (const revision of ['main', 'v1.0', listing.sha]) {
      const response = await fetch(resolveUrl('solo', 'config.json', revision));
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('{}');
    }
  });

  test('the API lists a revision\'s files as siblings[].rfilename', async () => {
    const response = await fetch(`${hub.url}/api/models/multihead-test/tiny/revision/main`);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const listing = await response.json();
    expect(listing.id).toBe('multihead-test/tiny');
    expect(listing.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(listing.siblings.map((s) => s.rfilename).sort()).toEqual(['config.json', 'model.safetensors']);
  });

  test('the API answers unknown ids, revisions and gated repositories with the Hub\'s codes', async () => {
    const codes = [];
    for (const path of ['nobody/x/revision/main', 'solo/revision/v9', 'org/gated/revision/main']) {
      const response = await fetch(`${hub.url}/api/models/${path}`);
      codes.push([response.status, response.headers.get('x-error-code')]);
    }
    expect(codes).toEqual([[404, 'RepoNotFound'], [404, 'RevisionNotFound'], [401, 'GatedRepo']]);
  });

  test('a preflight is answered, and logged so tests can assert there was none', async () => {
    const response = await fetch(resolveUrl('multihead-test/tiny', 'config.json'), { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-headers')).toBe('Range');
    expect(hub.requests).toEqual([expect.objectContaining({ server: 'hub', method: 'OPTIONS' })]);
  });
});

describe('the CDN server', () => {
  test('a followed redirect gives the bytes, with CORS and range headers exposed', async () => {
    const response = await fetch(resolveUrl('multihead-test/tiny', 'model.safetensors'));
    expect(response.status).toBe(200);
    expect(response.url.startsWith(hub.cdnUrl)).toBe(true);
    expect(Buffer.from(await response.arrayBuffer()).equals(WEIGHTS)).toBe(true);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = response.headers.get('access-control-expose-headers').split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['Content-Length', 'Content-Range', 'ETag']));
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('content-length')).toBe('1000');
    expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{40}"$/);
  });

  test.each([
    ['bytes=0-7', 0, 7],
    ['bytes=8-99', 8, 99],
    ['bytes=990-', 990, 999],
    ['bytes=995-5000', 995, 999],
    ['bytes=-3', 997, 999],
  ])('Range %s is answered 206 with bytes %d to %d', async (range, start, end) => {
    const response = await fetch(resolveUrl('multihead-test/tiny', 'model.safetensors'), { headers: { Range: range } });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/1000`);
    expect(response.headers.get('content-length')).toBe(String(end - start + 1));
    expect(Buffer.from(await response.arrayBuffer()).equals(WEIGHTS.subarray(start, end + 1))).toBe(true);
  });

  test('an unsatisfiable range is 416 with the file size', async () => {
    const response = await fetch(resolveUrl('multihead-test/tiny', 'model.safetensors'), { headers: { Range: 'bytes=1000-1007' } });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-range')).toBe('bytes */1000');
  });

  test('two ranges in one header are ignored: the whole file, 200', async () => {
    const response = await fetch(resolveUrl('multihead-test/tiny', 'model.safetensors'), { headers: { Range: 'bytes=0-1,5-6' } });
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBe(1000);
  });

  test('a repository served without Range support answers 200 with the whole file', async () => {
    const response = await fetch(resolveUrl('plain/server', 'model.safetensors'), { headers: { Range: 'bytes=0-7' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('accept-ranges')).toBe('none');
    expect((await response.arrayBuffer()).byteLength).toBe(1000);
  });

  test('an unknown CDN path is 404', async () => {
    const response = await fetch(`${hub.cdnUrl}/repos/${'0'.repeat(24)}/config.json`);
    expect(response.status).toBe(404);
  });

  test('every request is logged with its server, method, path, range and host', async () => {
    await (await fetch(resolveUrl('multihead-test/tiny', 'model.safetensors'), { headers: { Range: 'bytes=0-7' } })).arrayBuffer();
    const hubHost = new URL(hub.url).host;
    const cdnHost = new URL(hub.cdnUrl).host;
    expect(hub.requests).toEqual([
      { server: 'hub', method: 'GET', path: '/multihead-test/tiny/resolve/main/model.safetensors', range: 'bytes=0-7', host: hubHost },
      { server: 'cdn', method: 'GET', path: expect.stringMatching(/^\/repos\/[0-9a-f]{24}\/model\.safetensors$/), range: 'bytes=0-7', host: cdnHost },
    ]);
  });

  test('cors: false leaves the CORS headers out', async () => {
    const bare = await startFakeHub({ repos: { a: { files: { 'config.json': '{}' } } }, cors: false });
    try {
      const response = await fetch(`${bare.url}/a/resolve/main/config.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await bare.close();
    }
  });
});

describe('a throttled CDN', () => {
  test('sends the body in chunkSize pieces no faster than bytesPerSecond', async () => {
    const slow = await startFakeHub({
      repos: { a: { files: { 'model.safetensors': Buffer.alloc(4000, 7) } } },
      throttle: { bytesPerSecond: 20000, chunkSize: 1000 },
    });
    try {
      const started = performance.now();
      const response = await fetch(`${slow.url}/a/resolve/main/model.safetensors`);
      const sizes = [];
      for await (const chunk of response.body) sizes.push(chunk.length);
      const seconds = (performance.now() - started) / 1000;
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(4000);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(1000);
      // 4000 bytes at 20000 bytes/s: at least the three waits before the last chunk, 0.15 s.
      expect(seconds).toBeGreaterThanOrEqual(0.14);
    } finally {
      await slow.close();
    }
  });

  test('a client that goes away mid-body leaves the server serving the next request', async () => {
    const slow = await startFakeHub({
      repos: { a: { files: { 'model.safetensors': Buffer.alloc(100000, 7) } } },
      throttle: { bytesPerSecond: 50000, chunkSize: 1000 },
    });
    try {
      const controller = new AbortController();
      const response = await fetch(`${slow.url}/a/resolve/main/model.safetensors`, { signal: controller.signal });
      const reader = response.body.getReader();
      await reader.read();
      controller.abort();
      await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
      const next = await fetch(`${slow.url}/a/resolve/main/model.safetensors`, { headers: { Range: 'bytes=0-9' } });
      expect(next.status).toBe(206);
      expect((await next.arrayBuffer()).byteLength).toBe(10);
    } finally {
      await slow.close();
    }
  });
});

test('closing the servers frees their ports', async () => {
  const temporary = await startFakeHub({ repos: {} });
  await temporary.close();
  await expect(fetch(`${temporary.url}/api/models/a/revision/main`)).rejects.toThrow();
});
