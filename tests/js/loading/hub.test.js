// web/src/loading/hub.js against the fake Hub (tests/hub/fake-hub.js) and a few deliberately broken
// servers: id parsing (hostile ids included), URL building, every error message, the range reads
// of a safetensors header, abort, and the messages for repositories without the files we need.
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_HUB_URL, hubApiUrl, hubFetch, hubFileUrl, hubRepoFiles,
  isHubId, missingFileMessage, parseHubId,
} from '../../../web/src/loading/hub.js';
import { MAX_SAFETENSORS_HEADER_BYTES, readSafetensorsHeader as readHeader, readSafetensorsHeaderFromStream } from '../../../web/src/loading/safetensors-header.js';
import { startFakeHub } from '../../hub/fake-hub.js';

/** A Hub file's header by range requests through hubFetch, as loading/sources.js reads one. */
const readSafetensorsHeader = (url, options) => readHeader(
  (range, signal) => hubFetch(url, { ...options, signal, headers: { Range: range } }),
  { label: `${options.id}'s model.safetensors`, signal: options.signal });

/** A safetensors file: the 8-byte little-endian header length, the JSON header, then the data. */
function safetensors(header, data) {
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, json, data]);
}

/** A file whose first 8 bytes declare a header of `length` bytes, followed by `rest`. */
function declaring(length, rest = Buffer.alloc(0)) {
  const first = Buffer.alloc(8);
  first.writeBigUInt64LE(BigInt(length));
  return Buffer.concat([first, rest]);
}

const DATA = Buffer.from(new Float32Array([1, 2, 3, 4, 5, 6]).buffer);
const WEIGHTS = safetensors({ w: { dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] } }, DATA);
const HEADER_BYTES = WEIGHTS.length - DATA.length;
// A header big enough (200 KB) that a throttled CDN takes a while to send it.
const BIG_WEIGHTS = safetensors({ w: { dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] }, __metadata__: { pad: 'x'.repeat(200000) } }, DATA);

let folder;
let hub;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'hub-test-'));
  writeFileSync(join(folder, 'config.json'), '{"model_type":"bert"}');
  writeFileSync(join(folder, 'tokenizer.json'), '{}');
  writeFileSync(join(folder, 'model.safetensors'), WEIGHTS);
  hub = await startFakeHub({
    repos: {
      'multihead-test/tiny': { folder },
      'tiny': { folder },
      'plain/server': { files: { 'model.safetensors': WEIGHTS }, ranges: false },
      'org/gated': { status: 401 },
      'org/private': { status: 403 },
      'org/down': { status: 503 },
      'bert-x': { files: { 'config.json': '{}', 'vocab.txt': 'a\n', 'tokenizer_config.json': '{}', 'pytorch_model.bin': 'x', 'tf_model.h5': 'x' } },
      'org/sharded': { files: { 'config.json': '{}', 'tokenizer.json': '{}', 'model-00001-of-00002.safetensors': 'x', 'model-00002-of-00002.safetensors': 'x', 'model.safetensors.index.json': '{}' } },
      'org/bare': { files: { 'config.json': '{}', 'README.md': '#' } },
      'org/huge-header': { files: { 'model.safetensors': declaring(MAX_SAFETENSORS_HEADER_BYTES + 1, Buffer.alloc(100)) } },
      'org/huge-header-plain': { files: { 'model.safetensors': declaring(2 ** 40, Buffer.alloc(100)) }, ranges: false },
      'org/short-header': { files: { 'model.safetensors': declaring(500, Buffer.alloc(100)) } },
      'org/short-file': { files: { 'model.safetensors': Buffer.alloc(5) } },
      'org/empty-file': { files: { 'model.safetensors': Buffer.alloc(0) } },
      'org/zero-header': { files: { 'model.safetensors': declaring(0, Buffer.alloc(10)) } },
    },
  });
});

afterAll(async () => {
  await hub.close();
  rmSync(folder, { recursive: true, force: true });
});

beforeEach(() => { hub.requests.length = 0; });

/** A one-off server on a free port whose every answer `handle(req, res)` writes. */
async function startServer(handle) {
  const server = createServer(handle);
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((done) => { server.closeAllConnections(); server.close(done); }),
  };
}

const fileUrl = (id, file, revision = 'main') => hubFileUrl({ hubUrl: hub.url, id, revision, file });
const options = (id, file, extra = {}) => ({ id, file, revision: 'main', hubUrl: hub.url, ...extra });
const cdnRequests = () => hub.requests.filter((r) => r.server === 'cdn');

describe('parseHubId', () => {
  test.each([
    ['bert-base-uncased', null, 'bert-base-uncased'],
    ['gpt2', null, 'gpt2'],
    ['FacebookAI/roberta-base', 'FacebookAI', 'roberta-base'],
    ['multihead-test/bert_12x12', 'multihead-test', 'bert_12x12'],
    ['a.b/c.d', 'a.b', 'c.d'],
    ['_x/y_', '_x', 'y_'],
    ['x'.repeat(96) + '/' + 'y'.repeat(96), 'x'.repeat(96), 'y'.repeat(96)],
  ])('%s is an id', (id, owner, name) => {
    expect(parseHubId(id)).toEqual({ id, owner, name, path: id });
  });

  test.each([
    [''], ['/'], ['a/'], ['/a'], ['a//b'], ['a/b/c'], ['..'], ['.'], ['../etc/passwd'], ['a/..'], ['a/../b'],
    ['.hidden'], ['name.'], ['-name'], ['name-'], ['a..b'], ['a b'], ['a?b'], ['a#b'], ['a%2Fb'], ['a%2e%2e'],
    ['a\\b'], ['a:b'], ['https://evil.example/x'], ['ünïcode'], ['a\u0000b'], ['a\nb'], ['x'.repeat(97)],
    ['a/' + 'y'.repeat(97)],
  ])('%j is refused with a TypeError naming it', (id) => {
    expect(() => parseHubId(id)).toThrow(TypeError);
    expect(() => parseHubId(id)).toThrow(`${JSON.stringify(id.length > 200 ? id.slice(0, 200) + '…' : id)} is not a Hub model id`);
  });

  test('the message says what an id looks like', () => {
    expect(() => parseHubId('a/b/c')).toThrow('use "owner/name" or "name", each part 1 to 96 letters, digits, "-", "_" or "."');
  });

  test.each([[undefined], [null], [42], [{ toString: () => 'gpt2' }]])('%p is not a string', (id) => {
    expect(() => parseHubId(id)).toThrow(/^a Hub model id must be a string, got /);
  });
});

describe('isHubId', () => {
  test.each([
    ['bert-base-uncased', true], ['owner/name', true], ['models/default', true], ['a b', true],
    ['https://huggingface.co/gpt2', false], ['http://localhost:8000/model/', false], ['file:///tmp/model', false],
    ['blob:https://x/y', false], ['data:,x', false], ['C:\\models\\bert', false], ['/models/bert', false],
    ['./models/bert', false], ['../bert', false], ['.\\bert', false], ['\\\\server\\share', false], ['.', false],
    ['..', false], ['', false], ['   ', false],
  ])('%j → %p', (text, expected) => {
    expect(isHubId(text)).toBe(expected);
  });

  test('is false for anything but a string', () => {
    expect([undefined, null, 1, new URL('https://x/')].map(isHubId)).toEqual([false, false, false, false]);
  });
});

describe('hubFileUrl', () => {
  test('defaults to the Hub and main', () => {
    expect(hubFileUrl({ id: 'bert-base-uncased', file: 'config.json' }))
      .toBe('https://huggingface.co/bert-base-uncased/resolve/main/config.json');
    expect(DEFAULT_HUB_URL).toBe('https://huggingface.co');
  });

  test.each([
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/o/n/resolve/main/model.safetensors'],
    ['http://127.0.0.1:8080/', 'http://127.0.0.1:8080/o/n/resolve/main/model.safetensors'],
    ['https://mirror.test/hub', 'https://mirror.test/hub/o/n/resolve/main/model.safetensors'],
    ['https://mirror.test/hub//', 'https://mirror.test/hub/o/n/resolve/main/model.safetensors'],
    ['HTTPS://Mirror.TEST', 'https://mirror.test/o/n/resolve/main/model.safetensors'],
  ])('hubUrl %s gives %s', (hubUrl, expected) => {
    expect(hubFileUrl({ hubUrl, id: 'o/n', file: 'model.safetensors' })).toBe(expected);
  });

  test('a revision is one encoded path segment', () => {
    expect(hubFileUrl({ id: 'gpt2', revision: 'refs/pr/1', file: 'config.json' }))
      .toBe('https://huggingface.co/gpt2/resolve/refs%2Fpr%2F1/config.json');
    expect(hubFileUrl({ id: 'gpt2', revision: 'v1.0 ?#', file: 'config.json' }))
      .toBe('https://huggingface.co/gpt2/resolve/v1.0%20%3F%23/config.json');
  });

  test('a file may be in a subfolder; its segments are encoded', () => {
    expect(hubFileUrl({ id: 'gpt2', file: 'onnx/model #1.onnx' })).toBe('https://huggingface.co/gpt2/resolve/main/onnx/model%20%231.onnx');
  });

  test.each([['.'], ['..'], [''], [7], ['x'.repeat(257)]])('revision %p is refused', (revision) => {
    expect(() => hubFileUrl({ id: 'gpt2', revision, file: 'config.json' })).toThrow(TypeError);
  });

  test.each([['../x'], ['a/../../x'], ['/etc/passwd'], ['a//b'], [''], ['.'], ['a\\b'], [undefined]])('file %p is refused', (file) => {
    expect(() => hubFileUrl({ id: 'gpt2', file })).toThrow(/^file must be a path inside the repository/);
  });

  test.each([['ftp://hub.test'], ['javascript:alert(1)'], ['file:///tmp'], ['not a url'], ['https://hub.test/?x=1'],
    ['https://hub.test/#x'], ['https://user:pw@hub.test']])('hubUrl %p is refused', (hubUrl) => {
    expect(() => hubFileUrl({ hubUrl, id: 'gpt2', file: 'config.json' })).toThrow(/^hubUrl must be a(n| plain) http\(s\) URL/);
  });

  test('a hostile id never reaches the URL', () => {
    expect(() => hubFileUrl({ id: '../../admin', file: 'config.json' })).toThrow('"../../admin" is not a Hub model id');
  });

  test('the API URL of a revision', () => {
    expect(hubApiUrl({ hubUrl: 'https://mirror.test/hub/', id: 'o/n', revision: 'refs/pr/2' }))
      .toBe('https://mirror.test/hub/api/models/o/n/revision/refs%2Fpr%2F2');
  });
});

describe('hubFetch', () => {
  test('follows the redirect to the CDN and gives the file', async () => {
    const response = await hubFetch(fileUrl('multihead-test/tiny', 'config.json'), options('multihead-test/tiny', 'config.json'));
    expect(await response.text()).toBe('{"model_type":"bert"}');
    expect(hub.requests.map((r) => r.server)).toEqual(['hub', 'cdn']);
  });

  test.each([
    ['a missing file names the id, the file and the revision', 'multihead-test/tiny', 'vocab.txt', 'main',
      "the model 'multihead-test/tiny' has no vocab.txt at revision 'main' (HTTP 404)"],
    ['an unknown id', 'nobody/nothing', 'config.json', 'main',
      "the Hub has no model 'nobody/nothing' (HTTP 404 for config.json at revision 'main'): check the id"],
    ['an unknown revision', 'multihead-test/tiny', 'config.json', 'v9',
      "the model 'multihead-test/tiny' has no revision 'v9' (HTTP 404 for config.json)"],
    ['a gated model (401)', 'org/gated', 'config.json', 'main',
      "the model 'org/gated' is gated or private (HTTP 401 for config.json at revision 'main'): multihead can only load public models. If you have access, download its config.json, tokenizer.json and model.safetensors and open them as a local folder, or load an ungated copy of the model by its id"],
    ['a private model (403)', 'org/private', 'model.safetensors', 'main',
      "the model 'org/private' is gated or private (HTTP 403 for model.safetensors at revision 'main'): multihead can only load public models. If you have access, download its config.json, tokenizer.json and model.safetensors and open them as a local folder, or load an ungated copy of the model by its id"],
    ['another status', 'org/down', 'config.json', 'main',
      "the Hub answered HTTP 503 Service Unavailable for org/down's config.json at revision 'main'"],
  ])('%s', async (_, id, file, revision, message) => {
    const promise = hubFetch(fileUrl(id, file, revision), options(id, file, { revision }));
    await expect(promise).rejects.toThrow(message);
    await expect(promise).rejects.toMatchObject({ message });
  });

  test('the error carries the status and the Hub\'s error code', async () => {
    const error = await hubFetch(fileUrl('org/gated', 'config.json'), options('org/gated', 'config.json')).catch((e) => e);
    expect(error).toMatchObject({ status: 401, hubErrorCode: 'GatedRepo' });
  });

  test('a 401 for a repository that does not exist (the real Hub\'s answer) says both', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(401, { 'X-Error-Code': 'RepoNotFound' });
      res.end('{}');
    });
    try {
      await expect(hubFetch(`${server.url}/x/resolve/main/config.json`, { id: 'x', file: 'config.json' })).rejects.toThrow(
        "the model 'x' does not exist or is private (HTTP 401 for config.json at revision 'main'): check the id; multihead can only load public models");
    } finally {
      await server.close();
    }
  });

  test('a Hub that cannot be reached is named, with the reason', async () => {
    const closed = await startServer(() => {});
    await closed.close();
    const url = hubFileUrl({ hubUrl: closed.url, id: 'bert-base-uncased', file: 'config.json' });
    const error = await hubFetch(url, { id: 'bert-base-uncased', file: 'config.json', hubUrl: closed.url }).catch((e) => e);
    expect(error.message).toMatch(new RegExp(`^cannot reach the Hub at ${closed.url} to fetch bert-base-uncased's config\\.json: fetch failed \\(.*ECONNREFUSED.*\\) ` +
      '\\(no network, a wrong hubUrl, or a server that does not send CORS headers\\)$'));
  });

  test('without hubUrl, the unreachable host is named by its origin', async () => {
    const closed = await startServer(() => {});
    await closed.close();
    await expect(hubFetch(`${closed.url}/gpt2/resolve/main/config.json`, { id: 'gpt2', file: 'config.json' }))
      .rejects.toThrow(`cannot reach the Hub at ${closed.url} to fetch gpt2's config.json`);
  });

  test('an aborted signal rejects with its reason, untouched, and sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await hubFetch(fileUrl('tiny', 'config.json'), options('tiny', 'config.json', { signal: controller.signal })).catch((e) => e);
    expect(error).toBe(controller.signal.reason);
    expect(error).toBeInstanceOf(DOMException);
    expect(error.name).toBe('AbortError');
    expect(hub.requests).toEqual([]);
  });

  test('a custom abort reason is what rejects', async () => {
    const controller = new AbortController();
    const reason = new Error('the user picked another model');
    controller.abort(reason);
    await expect(hubFetch(fileUrl('tiny', 'config.json'), options('tiny', 'config.json', { signal: controller.signal }))).rejects.toBe(reason);
  });
});

describe('files a repository lacks', () => {
  test('no model.safetensors, only PyTorch and TensorFlow weights', async () => {
    await expect(hubFetch(fileUrl('bert-x', 'model.safetensors'), options('bert-x', 'model.safetensors'))).rejects.toThrow(
      "the model 'bert-x' has no model.safetensors at revision 'main', only pytorch_model.bin and tf_model.h5: multihead reads " +
      'safetensors weights (the Hub can convert a repository with its safetensors conversion space, or load a revision that has them)');
    expect(hub.requests.map((r) => r.path)).toEqual(['/bert-x/resolve/main/model.safetensors', '/api/models/bert-x/revision/main']);
  });

  test('no tokenizer.json, only the slow tokenizer\'s files', async () => {
    await expect(hubFetch(fileUrl('bert-x', 'tokenizer.json'), options('bert-x', 'tokenizer.json'))).rejects.toThrow(
      "the model 'bert-x' has no tokenizer.json at revision 'main' (it has vocab.txt and tokenizer_config.json): " +
      'multihead needs tokenizer.json, the fast-tokenizer file');
  });

  test('sharded safetensors weights', async () => {
    await expect(hubFetch(fileUrl('org/sharded', 'model.safetensors'), options('org/sharded', 'model.safetensors'))).rejects.toThrow(
      "the model 'org/sharded' has no model.safetensors at revision 'main': its safetensors weights are split into 2 files " +
      '(model-00001-of-00002.safetensors and model-00002-of-00002.safetensors), and multihead reads one model.safetensors file');
  });

  test('no weights and no tokenizer at all', async () => {
    await expect(hubFetch(fileUrl('org/bare', 'model.safetensors'), options('org/bare', 'model.safetensors'))).rejects.toThrow(
      "the model 'org/bare' has no model.safetensors at revision 'main' and no other weights file: multihead needs model.safetensors");
    await expect(hubFetch(fileUrl('org/bare', 'tokenizer.json'), options('org/bare', 'tokenizer.json'))).rejects.toThrow(
      "the model 'org/bare' has no tokenizer.json at revision 'main' (nor any other tokenizer file): multihead needs tokenizer.json, the fast-tokenizer file");
  });

  test('a missing config.json is not explained and asks the API nothing', async () => {
    await expect(hubFetch(fileUrl('org/sharded', 'vocab.txt'), options('org/sharded', 'vocab.txt'))).rejects.toThrow(
      "the model 'org/sharded' has no vocab.txt at revision 'main' (HTTP 404)");
    expect(hub.requests).toHaveLength(1);
  });

  test('without hubUrl the plain 404 message is given', async () => {
    await expect(hubFetch(fileUrl('bert-x', 'model.safetensors'), { id: 'bert-x', file: 'model.safetensors' })).rejects.toThrow(
      "the model 'bert-x' has no model.safetensors at revision 'main' (HTTP 404)");
  });

  test('a long list is cut after six names', () => {
    const files = Array.from({ length: 9 }, (_, i) => `pytorch_model-0000${i + 1}-of-00009.bin`);
    expect(missingFileMessage({ id: 'big', file: 'model.safetensors', files })).toBe(
      "the model 'big' has no model.safetensors at revision 'main', only pytorch_model-00001-of-00009.bin, " +
      'pytorch_model-00002-of-00009.bin, pytorch_model-00003-of-00009.bin, pytorch_model-00004-of-00009.bin, ' +
      'pytorch_model-00005-of-00009.bin, pytorch_model-00006-of-00009.bin and 3 more: multihead reads safetensors weights ' +
      '(the Hub can convert a repository with its safetensors conversion space, or load a revision that has them)');
  });
});

describe('hubRepoFiles', () => {
  test('lists the files of a revision', async () => {
    const files = await hubRepoFiles({ hubUrl: hub.url, id: 'multihead-test/tiny', revision: 'main' });
    expect(files.sort()).toEqual(['config.json', 'model.safetensors', 'tokenizer.json']);
  });

  test.each([['nobody/x', 'main'], ['tiny', 'v9'], ['org/gated', 'main']])('%s at %s is null', async (id, revision) => {
    expect(await hubRepoFiles({ hubUrl: hub.url, id, revision })).toBeNull();
  });

  test('an unreachable API is null', async () => {
    const closed = await startServer(() => {});
    await closed.close();
    expect(await hubRepoFiles({ hubUrl: closed.url, id: 'x' })).toBeNull();
  });

  test.each([
    ['not JSON', 'not json'],
    ['no siblings', '{"id":"x"}'],
    ['siblings not an array', '{"siblings":{"rfilename":"a"}}'],
    ['a name that is not a string', '{"siblings":[{"rfilename":"a"},{"rfilename":7}]}'],
    ['an empty name', '{"siblings":[{"rfilename":""}]}'],
    ['null', 'null'],
  ])('an answer with %s is null', async (_, body) => {
    const server = await startServer((req, res) => { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end(body); });
    try {
      expect(await hubRepoFiles({ hubUrl: server.url, id: 'x' })).toBeNull();
    } finally {
      await server.close();
    }
  });

  test('an answer over 8 MiB is not read to its end', async () => {
    let sent = 0;
    const server = await startServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }); // chunked: no Content-Length to refuse it by
      const chunk = Buffer.alloc(1 << 20, 0x20);
      const pump = () => {
        while (sent < 64 << 20) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      res.write('{"siblings":[');
      pump();
    });
    try {
      expect(await hubRepoFiles({ hubUrl: server.url, id: 'x' })).toBeNull();
      expect(sent).toBeLessThan(32 << 20);
    } finally {
      await server.close();
    }
  });

  test('an abort still rejects', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(hubRepoFiles({ hubUrl: hub.url, id: 'tiny', signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('readSafetensorsHeader', () => {
  /** The header of `id`'s model.safetensors, read from the fake Hub. */
  const readHeader = (id) => readSafetensorsHeader(fileUrl(id, 'model.safetensors'), options(id, 'model.safetensors'));

  test('reads the length, then the header, by two ranges, and no weight byte', async () => {
    const bytes = await readHeader('tiny');
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(bytes).equals(WEIGHTS.subarray(0, HEADER_BYTES))).toBe(true);
    expect(cdnRequests().map((r) => [r.method, r.range])).toEqual([['GET', 'bytes=0-7'], ['GET', `bytes=8-${HEADER_BYTES - 1}`]]);
    expect(hub.requests.filter((r) => r.method === 'OPTIONS')).toEqual([]);
  });

  test('from a server without Range support: one request, read only as far as the header', async () => {
    const bytes = await readHeader('plain/server');
    expect(Buffer.from(bytes).equals(WEIGHTS.subarray(0, HEADER_BYTES))).toBe(true);
    expect(cdnRequests()).toHaveLength(1);
  });

  test('a header length above 16 MiB is refused after 8 bytes', async () => {
    await expect(readHeader('org/huge-header'))
      .rejects.toThrow(`org/huge-header's model.safetensors: the header length ${MAX_SAFETENSORS_HEADER_BYTES + 1} is above the limit of ` +
        '16777216 bytes (16 MiB); this is not a safetensors file multihead can read');
    expect(cdnRequests().map((r) => r.range)).toEqual(['bytes=0-7']);
  });

  test('a header length of 2^40 from a server without ranges is refused too', async () => {
    await expect(readHeader('org/huge-header-plain'))
      .rejects.toThrow(`the header length ${2 ** 40} is above the limit of 16777216 bytes`);
  });

  test('a header longer than the file is refused before it is requested', async () => {
    await expect(readHeader('org/short-header'))
      .rejects.toThrow("org/short-header's model.safetensors: the header length 500 is larger than the rest of the file (100 bytes)");
    expect(cdnRequests()).toHaveLength(1);
  });

  test('a file shorter than 8 bytes', async () => {
    await expect(readHeader('org/short-file'))
      .rejects.toThrow("org/short-file's model.safetensors: the file is 5 bytes, shorter than the 8 bytes its header needs");
  });

  test('an empty file (416 for bytes=0-7)', async () => {
    await expect(readHeader('org/empty-file'))
      .rejects.toThrow("org/empty-file's model.safetensors: the file is shorter than 8 bytes (HTTP 416 for bytes=0-7), too short for a safetensors file");
  });

  test('a header length of 0', async () => {
    await expect(readHeader('org/zero-header'))
      .rejects.toThrow("org/zero-header's model.safetensors: the header length is 0; a safetensors file starts with a JSON header");
  });

  test('the Hub\'s errors come through as hubFetch gives them', async () => {
    await expect(readHeader('bert-x'))
      .rejects.toThrow("the model 'bert-x' has no model.safetensors at revision 'main', only pytorch_model.bin and tf_model.h5");
    await expect(readHeader('org/gated'))
      .rejects.toThrow("the model 'org/gated' is gated or private (HTTP 401");
  });

  test.each([
    ['a 206 for another range', (res) => { res.writeHead(206, { 'Content-Range': 'bytes 8-15/100', 'Content-Length': 8 }); res.end(Buffer.alloc(8)); },
      "x's model.safetensors: the server answered the range bytes=0-7 with bytes 8-15"],
    ['a 206 with a wrong length', (res) => { res.writeHead(206, { 'Content-Length': 6 }); res.end(Buffer.alloc(6)); },
      "x's model.safetensors: the server answered the range bytes=0-7 with 6 bytes"],
    ['a 206 that ends early', (res) => { res.writeHead(206, {}); res.end(Buffer.alloc(5)); },
      "x's model.safetensors: the answer to bytes=0-7 has 5 bytes, expected 8"],
    ['a 204', (res) => { res.writeHead(204); res.end(); },
      "x's model.safetensors: the server answered the range bytes=0-7 with HTTP 204"],
    ['a 200 that ends inside the header', (res) => { res.writeHead(200, {}); res.end(declaring(50, Buffer.alloc(10))); },
      "x's model.safetensors: the file is 18 bytes, shorter than the 58 bytes its header needs"],
  ])('%s is an error naming the file', async (_, answer, message) => {
    const server = await startServer((req, res) => answer(res));
    try {
      await expect(readSafetensorsHeader(`${server.url}/x/resolve/main/model.safetensors`, { id: 'x', file: 'model.safetensors' })).rejects.toThrow(message);
    } finally {
      await server.close();
    }
  });

  test('a server that breaks off the header mid-body', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(206, { 'Content-Length': req.headers.range === 'bytes=0-7' ? 8 : 500 });
      if (req.headers.range === 'bytes=0-7') res.end(declaring(500));
      else res.write(Buffer.alloc(100), () => res.destroy());
    });
    try {
      await expect(readSafetensorsHeader(`${server.url}/x/resolve/main/model.safetensors`, { id: 'x', file: 'model.safetensors' }))
        .rejects.toThrow(/^x's model\.safetensors: the download broke off: /);
    } finally {
      await server.close();
    }
  });

  test('an abort while the header arrives rejects with an AbortError', async () => {
    const slow = await startFakeHub({ repos: { big: { files: { 'model.safetensors': BIG_WEIGHTS } } }, throttle: { bytesPerSecond: 100000, chunkSize: 2000 } });
    try {
      const controller = new AbortController();
      const url = hubFileUrl({ hubUrl: slow.url, id: 'big', file: 'model.safetensors' });
      const promise = readSafetensorsHeader(url, { id: 'big', file: 'model.safetensors', hubUrl: slow.url, signal: controller.signal });
      setTimeout(() => controller.abort(), 300);
      const started = performance.now();
      const error = await promise.catch((e) => e);
      expect(error).toBe(controller.signal.reason);
      expect(error.name).toBe('AbortError');
      expect(performance.now() - started).toBeLessThan(1500); // the whole header takes 2 s at this rate
    } finally {
      await slow.close();
    }
  });
});

describe('readSafetensorsHeaderFromStream', () => {
  test('reads 8 + N bytes of a stream split anywhere, and cancels the rest', async () => {
    let cancelled = false;
    let pulls = 0;
    const pieces = [WEIGHTS.subarray(0, 3), WEIGHTS.subarray(3, 11), WEIGHTS.subarray(11, HEADER_BYTES + 2), WEIGHTS.subarray(HEADER_BYTES + 2)];
    const stream = new ReadableStream({
      pull(controller) {
        if (pulls < pieces.length) controller.enqueue(new Uint8Array(pieces[pulls++]));
        else controller.close();
      },
      cancel() { cancelled = true; },
    }, { highWaterMark: 0 });
    const bytes = await readSafetensorsHeaderFromStream(stream, 'cached model.safetensors');
    expect(Buffer.from(bytes).equals(WEIGHTS.subarray(0, HEADER_BYTES))).toBe(true);
    expect(pulls).toBe(3);
    expect(cancelled).toBe(true);
  });

  test('a stream that ends too soon', async () => {
    const stream = new Blob([declaring(100, Buffer.alloc(4))]).stream();
    await expect(readSafetensorsHeaderFromStream(stream, 'cached model.safetensors'))
      .rejects.toThrow('cached model.safetensors: the file is 12 bytes, shorter than the 108 bytes its header needs');
  });
});

// loading/cache.js needs the browser's Cache API, which Node lacks; the lead's Chromium e2e tests
// run it for real. Here: that it degrades to "no cache" in Node, and its logic against a small
// in-memory CacheStorage that follows the Cache API's rules (put reads the whole body and stores
// nothing when the body errors; match gives a fresh Response each time).
class MemoryCache {
  // keepsPartial: a careless implementation that stores what it read before the body errored.
  constructor(quota = Infinity, { keepsPartial = false } = {}) { this.entries = new Map(); this.quota = quota; this.keepsPartial = keepsPartial; }
  static key(request) { const url = new URL(typeof request === 'string' ? request : request.url); url.hash = ''; return url.href; }
  async match(request) {
    const entry = this.entries.get(MemoryCache.key(request));
    return entry && new Response(entry.bytes.slice(), { status: entry.status, headers: entry.headers });
  }
  async put(request, response) {
    if (response.status === 206) throw new TypeError('Partial response (status code 206) is unsupported');
    const chunks = [];
    try {
      for await (const chunk of response.body) chunks.push(chunk);
    } catch (error) {
      if (this.keepsPartial) this.entries.set(MemoryCache.key(request), { bytes: Buffer.concat(chunks), status: response.status, headers: [...response.headers] });
      throw error; // the Cache API's put rejects when the body errors
    }
    const bytes = Buffer.concat(chunks);
    if (bytes.length > this.quota) throw new DOMException('Quota exceeded', 'QuotaExceededError');
    this.entries.set(MemoryCache.key(request), { bytes, status: response.status, headers: [...response.headers] });
  }
  async delete(request) { return this.entries.delete(MemoryCache.key(request)); }
  async keys() { return [...this.entries.keys()].map((url) => new Request(url)); }
}

describe('loading/cache.js', () => {
  let cacheModule;
  beforeAll(async () => { cacheModule = await import('../../../web/src/loading/cache.js'); });
  afterEach(() => { delete globalThis.caches; });

  const useMemoryCache = (quota, options) => {
    const cache = new MemoryCache(quota, options);
    const opened = [];
    globalThis.caches = { open: async (name) => { opened.push(name); return cache; } };
    return { cache, opened };
  };
  const fetcherFor = (hubUrl, id, file) => (url, { signal }) => hubFetch(url, { id, file, hubUrl, signal });
  const load = (id, file, extra = {}, hubUrl = hub.url) => cacheModule.cacheFetch(hubFileUrl({ hubUrl, id, file }), fetcherFor(hubUrl, id, file),
    { model: { hubUrl, id, revision: 'main', file }, ...extra });

  describe('without a Cache API (Node)', () => {
    test('there is no cache: nothing cached, nothing listed, nothing deleted', async () => {
      expect(globalThis.caches).toBeUndefined();
      expect(cacheModule.cacheAvailable()).toBe(false);
      expect(await cacheModule.cachedResponse(fileUrl('tiny', 'config.json'))).toBeNull();
      expect(await cacheModule.listCachedModels()).toEqual([]);
      expect(await cacheModule.deleteCachedModel({ id: 'tiny', hubUrl: hub.url })).toBe(0);
    });

    test('cacheFetch fetches every time and still reports progress', async () => {
      for (let i = 0; i < 2; i++) {
        const events = [];
        const response = await load('tiny', 'model.safetensors', { onProgress: (e) => events.push(e) });
        expect(Buffer.from(await response.arrayBuffer()).equals(WEIGHTS)).toBe(true);
        expect(events.at(-1)).toEqual({ loaded: WEIGHTS.length, total: WEIGHTS.length });
      }
      expect(cdnRequests()).toHaveLength(2);
    });

    test('a Cache API that refuses to open counts as none', async () => {
      globalThis.caches = { open: async () => { throw new DOMException('denied', 'SecurityError'); } };
      expect(await cacheModule.cachedResponse(fileUrl('tiny', 'config.json'))).toBeNull();
      expect(await cacheModule.listCachedModels()).toEqual([]);
      const response = await load('tiny', 'config.json');
      expect(await response.text()).toBe('{"model_type":"bert"}');
    });
  });

  describe('with a Cache API', () => {
    test('a second load of the same files makes no network request', async () => {
      const { opened } = useMemoryCache();
      const events = [];
      const first = await load('multihead-test/tiny', 'model.safetensors', { onProgress: (e) => events.push(e) });
      expect(Buffer.from(await first.arrayBuffer()).equals(WEIGHTS)).toBe(true);
      expect(events.at(-1)).toEqual({ loaded: WEIGHTS.length, total: WEIGHTS.length });
      expect(opened.every((name) => name === 'multihead-models')).toBe(true);
      hub.requests.length = 0;
      const second = await load('multihead-test/tiny', 'model.safetensors', { onProgress: () => { throw new Error('no progress from the cache'); } });
      expect(Buffer.from(await second.arrayBuffer()).equals(WEIGHTS)).toBe(true);
      expect(hub.requests).toEqual([]);
      expect(await cacheModule.cachedResponse(fileUrl('multihead-test/tiny', 'model.safetensors'))).not.toBeNull();
    });

    test('models are listed with their files and sizes, and deleted', async () => {
      useMemoryCache();
      for (const file of ['model.safetensors', 'config.json']) await (await load('multihead-test/tiny', file)).arrayBuffer();
      await (await load('tiny', 'config.json')).arrayBuffer();
      const config = Buffer.byteLength('{"model_type":"bert"}');
      expect(await cacheModule.listCachedModels()).toEqual([
        { id: 'multihead-test/tiny', revision: 'main', hubUrl: hub.url, bytes: WEIGHTS.length + config, files: [
          { file: 'config.json', bytes: config, url: fileUrl('multihead-test/tiny', 'config.json') },
          { file: 'model.safetensors', bytes: WEIGHTS.length, url: fileUrl('multihead-test/tiny', 'model.safetensors') },
        ] },
        { id: 'tiny', revision: 'main', hubUrl: hub.url, bytes: config, files: [{ file: 'config.json', bytes: config, url: fileUrl('tiny', 'config.json') }] },
      ]);
      expect(await cacheModule.deleteCachedModel({ id: 'multihead-test/tiny', hubUrl: `${hub.url}/` })).toBe(2);
      expect((await cacheModule.listCachedModels()).map((m) => m.id)).toEqual(['tiny']);
      expect(await cacheModule.deleteCachedModel({ id: 'tiny', revision: 'v1', hubUrl: hub.url })).toBe(0);
      hub.requests.length = 0;
      await (await load('multihead-test/tiny', 'config.json')).arrayBuffer();
      expect(cdnRequests()).toHaveLength(1);
    });

    test('a file stored without Content-Length is listed with its counted size', async () => {
      useMemoryCache();
      const server = await startServer((req, res) => { res.writeHead(200); res.write('abc'); res.end('defg'); });
      try {
        await (await load('x', 'config.json', {}, server.url)).arrayBuffer();
        expect((await cacheModule.listCachedModels()).map((m) => m.bytes)).toEqual([7]);
      } finally {
        await server.close();
      }
    });

    // A cached fetch answers at once; the download's failures arrive as the body is read.
    const body = (promise) => promise.then((response) => response.arrayBuffer());

    test('an aborted download rejects with the AbortError and leaves no entry', async () => {
      const { cache } = useMemoryCache();
      const slow = await startFakeHub({ repos: { big: { files: { 'model.safetensors': BIG_WEIGHTS } } }, throttle: { bytesPerSecond: 200000, chunkSize: 4000 } });
      try {
        const controller = new AbortController();
        const events = [];
        const promise = body(load('big', 'model.safetensors', {
          signal: controller.signal,
          onProgress: (e) => { events.push(e); if (e.loaded >= 20000) controller.abort(); },
        }, slow.url));
        const error = await promise.catch((e) => e);
        expect(error).toBe(controller.signal.reason);
        expect(error.name).toBe('AbortError');
        expect(events.at(-1).loaded).toBeLessThan(BIG_WEIGHTS.length);
        expect(events.at(-1).total).toBe(BIG_WEIGHTS.length);
        expect(cache.entries.size).toBe(0);
        expect(await cacheModule.listCachedModels()).toEqual([]);
      } finally {
        await slow.close();
      }
    });

    test.each([
      ['a download that breaks off rejects with its error and leaves no entry', {}],
      ['a cache that would keep a partial body is cleaned up', { keepsPartial: true }],
    ])('%s', async (_, options) => {
      const { cache } = useMemoryCache(Infinity, options);
      const server = await startServer((req, res) => {
        res.writeHead(200, { 'Content-Length': 1000 });
        res.write(Buffer.alloc(100), () => res.destroy());
      });
      try {
        await expect(body(load('x', 'model.safetensors', {}, server.url))).rejects.toThrow();
        expect(cache.entries.size).toBe(0);
      } finally {
        await server.close();
      }
    });

    test('an onProgress that throws rejects with its error and leaves no entry', async () => {
      const { cache } = useMemoryCache();
      const oops = new Error('progress bar is gone');
      await expect(body(load('tiny', 'model.safetensors', { onProgress: () => { throw oops; } }))).rejects.toBe(oops);
      expect(cache.entries.size).toBe(0);
    });

    test('a full cache: the reader still gets the whole file from its one download, and nothing is stored', async () => {
      const { cache } = useMemoryCache(10);
      const response = await load('tiny', 'model.safetensors');
      expect(Buffer.from(await response.arrayBuffer()).equals(WEIGHTS)).toBe(true);
      expect(cache.entries.size).toBe(0);
      expect(cdnRequests()).toHaveLength(1);
    });

    test('the cache and the reader advance together: a reader that stops holds the download', async () => {
      useMemoryCache();
      const slow = await startFakeHub({ repos: { big: { files: { 'model.safetensors': BIG_WEIGHTS } } } });
      try {
        const events = [];
        const response = await load('big', 'model.safetensors', { onProgress: (e) => events.push(e.loaded) }, slow.url);
        const reader = response.body.getReader();
        const first = await reader.read();
        await new Promise((done) => setTimeout(done, 200)); // the cache alone would read it all by now
        // What was read, one chunk queued for each side, and the one being read: never the file.
        expect(events.at(-1)).toBeLessThanOrEqual(first.value.byteLength + 3 * 65536);
        expect(events.at(-1)).toBeLessThan(BIG_WEIGHTS.length);
        await reader.cancel();
      } finally {
        await slow.close();
      }
    });

    test('a reader that cancels part-way leaves no entry', async () => {
      const { cache } = useMemoryCache();
      const response = await load('tiny', 'model.safetensors');
      await response.body.cancel(new Error('the load failed'));
      await new Promise((done) => setTimeout(done, 50));
      expect(cache.entries.size).toBe(0);
    });

    test('without `model` nothing is stored', async () => {
      const { cache } = useMemoryCache();
      const url = fileUrl('tiny', 'config.json');
      const response = await cacheModule.cacheFetch(url, fetcherFor(hub.url, 'tiny', 'config.json'));
      expect(await response.text()).toBe('{"model_type":"bert"}');
      expect(cache.entries.size).toBe(0);
    });

    test('an already aborted signal fetches nothing', async () => {
      useMemoryCache();
      const controller = new AbortController();
      controller.abort();
      await expect(load('tiny', 'config.json', { signal: controller.signal })).rejects.toBe(controller.signal.reason);
      expect(hub.requests).toEqual([]);
    });

    test('a cached header is read from the cached body', async () => {
      useMemoryCache();
      await (await load('tiny', 'model.safetensors')).arrayBuffer();
      const cached = await cacheModule.cachedResponse(fileUrl('tiny', 'model.safetensors'));
      const header = await readSafetensorsHeaderFromStream(cached.body, "tiny's model.safetensors");
      expect(Buffer.from(header).equals(WEIGHTS.subarray(0, HEADER_BYTES))).toBe(true);
    });
  });
});
