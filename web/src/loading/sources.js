// Reads the three files of a model folder (config.json, its tokenizer, model.safetensors) from
// whatever the caller has: a Hub id (through hub.js and the cache), parsed objects, text, bytes,
// Blobs and Files, or URLs (http(s): in browsers and workers, file: and paths in Node). One loader
// for the built-in model, the Hub, a URL and a user's files. The two JSON files are read here;
// model.safetensors becomes a byte source (byte-sources.js) that the model streams in later.
// Files are untrusted: each JSON file is read as a stream and refused as soon as it passes its size
// limit, and refused when it nests deeper than any real model file does, before a parser or the
// tokenizer library could recurse that deep and overflow the stack.

import { nodeFileSource, readBlob, urlSource, valueSource } from './byte-sources.js';
import { readBody, readWhole, streamChunks, tooLarge } from './streams.js';
import { bytesOf, checkBytes, describe } from '../check.js';
import { BUILTINS, BUILTIN_NAMES } from './builtins.js';
import { DEFAULT_HUB_URL, hubFetch, hubFileUrl, hubRepoFiles, parseHubId } from './hub.js';
import { sourceName } from './source-name.js';
import { cacheFetch, cachedResponse } from './cache.js';
import { readSafetensorsHeader, readSafetensorsHeaderFromStream } from './safetensors-header.js';

// Real config.json and tokenizer.json files nest 4 to 6 levels deep (a tokenizer's normalizer
// Sequence of objects holding arrays); the C++ JSON readers apply the same limit.
export const MAX_JSON_DEPTH = 64;

// The most bytes read of each JSON file, about twice the largest real one of a supported model
// (the Hub API's answer has its own, in hub.js). A file given as text is held to the same number
// of characters; one given as an object is the caller's own, already in memory.
export const MAX_JSON_BYTES = Object.freeze({
  'config.json': 4 * 2 ** 20, // a few kilobytes; an image classifier's labels, hundreds
  'generation_config.json': 4 * 2 ** 20,
  'tokenizer.json': 64 * 2 ** 20, // Gemma 3's is 33 MB, the largest
  'tokenizer_config.json': 8 * 2 ** 20, // Gemma 3's is 1.2 MB, the largest
  // The tokenizer files of a repository without tokenizer.json (readTokenizer below): Marian's and an older T5's.
  'vocab.json': 16 * 2 ** 20, // opus-mt's are about 1.3 MB
  'source.spm': 16 * 2 ** 20, // SentencePiece models, about 0.8 MB
  'target.spm': 16 * 2 ** 20,
  'spiece.model': 16 * 2 ** 20,
});
const REAL_SIZES = {
  'config.json': '; real ones are a few kilobytes', 'generation_config.json': '; real ones are a few hundred bytes',
  'tokenizer.json': '; the largest real one, Gemma 3\'s, is 33 MB', 'tokenizer_config.json': '; the largest real one, Gemma 3\'s, is 1.2 MB',
  'vocab.json': '; real ones are about 1.3 MB', 'source.spm': '; real ones are about 0.8 MB', 'target.spm': '; real ones are about 0.8 MB',
  'spiece.model': '; real ones are about 0.8 MB',
};

// A model's tokenizer, in the first of these forms it has: tokenizer.json; Marian's SentencePiece
// models and vocab.json (Helsinki-NLP's repositories have no tokenizer.json); an older T5 copy's
// spiece.model alone. loadTokenizer (tokenizer/tokenizer.js) reads each.
const TOKENIZER_FORMS = [['tokenizer.json'], ['source.spm', 'target.spm', 'vocab.json'], ['spiece.model']];
// A source object's keys for those files.
const SOURCE_KEYS = { 'tokenizer.json': 'tokenizer', 'source.spm': 'sourceSpm', 'target.spm': 'targetSpm', 'vocab.json': 'vocab', 'spiece.model': 'spiece' };

/**
 * The tokenizer files of the first form `has(file)` says the model has (tokenizer.json when it
 * has none, so the missing file is what an error names): { names, tokenizer } with tokenizer a
 * parsed tokenizer.json, { source, target, vocab } or { spiece }. `text(file)` and `bytes(file)`
 * read one.
 */
async function readTokenizer(has, text, bytes) {
  let form = TOKENIZER_FORMS[0];
  for (const candidate of TOKENIZER_FORMS) {
    if ((await Promise.all(candidate.map(has))).every(Boolean)) {
      form = candidate;
      break;
    }
  }
  if (form[0] === 'tokenizer.json') {
    const value = await text('tokenizer.json');
    return { names: form, texts: [value], tokenizer: plainCopy(typeof value === 'string' ? parseJson(value, 'tokenizer.json') : value, 'tokenizer.json') };
  }
  if (form[0] === 'spiece.model') return { names: form, texts: [null], tokenizer: { spiece: await bytes('spiece.model') } };
  const [source, target, vocab] = await Promise.all([bytes('source.spm'), bytes('target.spm'), text('vocab.json')]);
  return { names: form, texts: [null, null, vocab], tokenizer: { source, target, vocab: plainCopy(typeof vocab === 'string' ? parseJson(vocab, 'vocab.json') : vocab, 'vocab.json') } };
}

// T5's sentinels, for a tokenizer read from spiece.model: tokenizer_config.json's extra_ids, or T5Tokenizer's 100.
function withSentinels(tokenizer, tokenizerConfig) {
  if (tokenizer.spiece === undefined) return tokenizer;
  const extraIds = tokenizerConfig?.extra_ids ?? 100;
  if (!Number.isInteger(extraIds) || extraIds < 0 || extraIds > 1000) {
    throw new RangeError(`tokenizer_config.json's extra_ids must be an integer from 0 to 1000, got ${describe(extraIds)}`);
  }
  return { ...tokenizer, extraIds };
}

// Node, where paths are files; checked through getBuiltinModule, which keeps bundlers from seeing
// a node: import (and is missing before Node 20.16).
const node = typeof globalThis.process?.getBuiltinModule === 'function' && !globalThis.document
  ? (name) => globalThis.process.getBuiltinModule(name) : null;

/**
 * Resolves `source` to { config: string, tokenizer: object, weights: byte source, extras } (see
 * byte-sources.js; the weights are read later, by streaming). `extras` holds the optional files,
 * parsed, each null where the model has none: { generationConfig (generation_config.json),
 * tokenizerConfig (tokenizer_config.json) }. `options`: { hubUrl, revision, signal,
 * progress(file, loaded, total) }.
 */
export async function readModelFiles(source, options = {}) {
  if (source === undefined) source = BUILTINS.default();
  else if (isBuiltin(source)) source = builtinModel(source.builtin);
  if (typeof source === 'string' && sourceName(source).kind === 'hub') return readHubModel(source, options);
  let folder = null;
  if (typeof source === 'string' || source instanceof URL) {
    folder = folderUrl(String(source));
    source = { config: new URL('config.json', folder), weights: new URL('model.safetensors', folder) };
    for (const [file, key] of Object.entries(SOURCE_KEYS)) source[key] = new URL(file, folder);
  }
  if (source === null || typeof source !== 'object') {
    throw new TypeError(`loadModel takes a Hub model id, a folder URL or { config, tokenizer, weights }, got ${describe(source)}`);
  }
  const { config, weights, generationConfig, tokenizerConfig } = source; // each read once
  const tokenizerFiles = Object.fromEntries(Object.entries(SOURCE_KEYS).map(([file, key]) => [file, source[key]]));
  for (const [key, value] of Object.entries({ config, weights })) {
    if (value === undefined) throw new TypeError(`loadModel source is missing \`${key}\``);
  }
  if (!TOKENIZER_FORMS.some((form) => form.every((file) => tokenizerFiles[file] !== undefined))) {
    throw new TypeError('loadModel source is missing `tokenizer` (tokenizer.json; or Marian\'s `sourceSpm`, `targetSpm` and `vocab`, or T5\'s `spiece`)');
  }
  const { signal, progress } = options;
  // A local folder is asked which tokenizer files it has; an http(s) folder has no listing to
  // ask, so it is read for tokenizer.json; a source object has the files it names.
  const has = async (file) => (folder?.protocol === 'file:' ? (await fileExists(new URL(file, folder)))
    : folder ? file === 'tokenizer.json' : tokenizerFiles[file] !== undefined);
  // A local folder's optional files are read if it has them; a source object's if it names them.
  // A folder served over http(s) has no listing to ask, and asking for a file it lacks would be a
  // 404 in the browser's console: name them in a source object to have them.
  const optional = (value, name) => (folder?.protocol === 'file:' ? readOptional(new URL(name, folder), name, signal)
    : value === undefined ? null : readText(value, name, signal));
  // The reads run at once, but a failure is reported in file order, so the same broken
  // source always gives the same message (Promise.all would report whichever read failed first).
  // A file given as an object is copied first (plainCopy); one given as text is parsed, then
  // copied the same way, so both meet the same depth limit.
  const results = await Promise.allSettled([
    readText(config, 'config.json', signal).then((text) => (typeof text === 'string' ? text : JSON.stringify(plainCopy(text, 'config.json')))),
    readTokenizer(has, (file) => readText(tokenizerFiles[file], file, signal), (file) => readBytes(tokenizerFiles[file], file, signal)),
    optional(generationConfig, 'generation_config.json'),
    optional(tokenizerConfig, 'tokenizer_config.json'),
  ]);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  const [configText, read, generationText, tokenizerConfigText] = results.map((result) => result.value);
  reportWhole(progress, 'config.json', configText);
  read.names.forEach((name, i) => reportWhole(progress, name, read.texts[i]));
  const more = extras(generationText, tokenizerConfigText);
  return { config: configText, tokenizer: withSentinels(read.tokenizer, more.tokenizerConfig), weights: weightsSource(weights, 'model.safetensors'), extras: more };
}

/** Whether a local file exists (Node). */
async function fileExists(url) {
  if (!node) return false;
  try {
    await node('node:fs/promises').access(url);
    return true;
  } catch {
    return false;
  }
}

/** The optional files, parsed (objects, or null for a file the model does not have). */
function extras(generationText, tokenizerConfigText) {
  const parsed = (value, name) => (value === null ? null : plainCopy(typeof value === 'string' ? parseJson(value, name) : value, name));
  return { generationConfig: parsed(generationText, 'generation_config.json'), tokenizerConfig: parsed(tokenizerConfigText, 'tokenizer_config.json') };
}

/** An optional file of a local folder: its text, or null when the folder has no such file. */
async function readOptional(url, name, signal) {
  try {
    return new TextDecoder().decode(await fetchBytes(url, name, signal));
  } catch (error) {
    if (error.code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * A Hub repository's three files, from {hubUrl}/{id}/resolve/{revision}/{file}. In browsers every
 * file goes through the Cache API (cache.js), so a second load makes no request. The
 * weights' header is read by two range requests (or from the cache) before anything else of
 * model.safetensors, so a model that does not fit is refused before its download starts.
 */
async function readHubModel(id, { hubUrl = DEFAULT_HUB_URL, revision = 'main', signal, progress }) {
  try {
    parseHubId(id); // a malformed id is refused before any request
  } catch (error) {
    // In Node the string may have been meant as a folder: say how to write one.
    throw node ? new TypeError(`${error.message} (a folder path must be absolute or start with ./ or ../)`) : error;
  }
  const where = { hubUrl, id, revision };
  // Progress of the two JSON files is the download's; the weights' is counted as they stream
  // into WASM (weights-stream.js), which with the cache is the download's pace too.
  const fetchFile = (file, onProgress) => cacheFetch(hubFileUrl({ ...where, file }), (url, options) => hubFetch(url, { ...where, file, ...options }), {
    signal,
    model: { ...where, file },
    onProgress,
  });
  const bytes = async (file) => {
    const response = await fetchFile(file, ({ loaded, total }) => progress?.(file, loaded, total ?? loaded));
    const body = await readBody(response, `${id}'s ${file}`, MAX_JSON_BYTES[file], REAL_SIZES[file], signal);
    progress?.(file, body.byteLength, body.byteLength);
    return body;
  };
  const text = async (file) => new TextDecoder().decode(await bytes(file));
  // An optional file is fetched from the cache, or when the Hub API lists it: asking for a file the
  // repository lacks would be a 404, which browsers report in the console. A model whose
  // config.json is cached was loaded before, with the optional files it has: it asks the API
  // nothing, so it loads offline. One that cannot be had now is absent: the model loads without it;
  // one that is there but too large is refused, as the other files are.
  const cached = await cachedResponse(hubFileUrl({ ...where, file: 'config.json' }));
  const listing = cached ? Promise.resolve(null) : hubRepoFiles({ hubUrl, id, revision, signal });
  const has = async (file) => Boolean(await cachedResponse(hubFileUrl({ ...where, file }))) || Boolean((await listing)?.includes(file));
  const optional = async (file) => {
    if (!(await has(file))) return null;
    return text(file).catch((error) => (signal?.aborted || error instanceof RangeError ? Promise.reject(error) : null));
  };
  // A repository the listing cannot be had for is asked for tokenizer.json, as before listings.
  const hasTokenizerFile = async (file) => (await has(file)) || (file === 'tokenizer.json' && !(await listing) && !cached);
  const results = await Promise.allSettled([text('config.json'), readTokenizer(hasTokenizerFile, text, bytes), optional('generation_config.json'),
    optional('tokenizer_config.json')]);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  const [configText, read, generationText, tokenizerConfigText] = results.map((result) => result.value);
  const more = extras(generationText, tokenizerConfigText);
  const weightsUrl = hubFileUrl({ ...where, file: 'model.safetensors' });
  const label = `${id}'s model.safetensors`;
  const ranged = (range, signal) => hubFetch(weightsUrl, { ...where, file: 'model.safetensors', signal, headers: { Range: range } });
  return {
    config: configText,
    tokenizer: withSentinels(read.tokenizer, more.tokenizerConfig),
    extras: more,
    weights: {
      async header() {
        const cached = await cachedResponse(weightsUrl);
        return cached ? readSafetensorsHeaderFromStream(cached.body, label) : readSafetensorsHeader(ranged, { label, signal });
      },
      async *chunks(start) {
        yield* streamChunks((await fetchFile('model.safetensors')).body, start, signal, label);
      },
    },
  };
}

function isBuiltin(source) {
  return source !== null && typeof source === 'object' && !(source instanceof URL) && 'builtin' in source;
}

function builtinModel(name) {
  if (!Object.hasOwn(BUILTINS, name)) {
    throw new TypeError(`loadModel has no built-in model ${describe(name)}; the built-in models are ${BUILTIN_NAMES.join(', ')}`);
  }
  return BUILTINS[name]();
}

/**
 * The folder a string names: an absolute URL; in a browser also a URL relative to the page; in
 * Node also a path (absolute, or relative to the working directory when it starts with ./ or ../).
 */
function folderUrl(text) {
  if (text.trim() === '') throw new TypeError('loadModel was given an empty string; give a Hub model id, a folder URL or a path');
  if (sourceName(text).kind === 'path') {
    const path = node('node:path');
    return node('node:url').pathToFileURL(path.resolve(text) + path.sep);
  }
  try {
    return new URL(text.endsWith('/') ? text : `${text}/`, globalThis.location?.href);
  } catch {
    const hint = node ? 'a Hub model id, a URL, an absolute path, or a path starting with ./ or ../' : 'a Hub model id or a URL';
    throw new TypeError(`loadModel cannot read a model from ${JSON.stringify(text)}: it is not ${hint}`);
  }
}

/** Reports a small file as read whole. */
function reportWhole(progress, file, text) {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text).byteLength : 0;
  progress?.(file, bytes, bytes);
}

/** The byte source for model.safetensors given as bytes, a Blob, a URL or (in Node) a file: URL. */
function weightsSource(value, name) {
  if (value instanceof URL || typeof value === 'string') {
    const url = new URL(value, globalThis.location?.href);
    if (url.protocol === 'file:') {
      if (!node) throw fileUrlError(url, name);
      return nodeFileSource(url, name, node('node:fs/promises'));
    }
    return urlSource((range, signal) => fetchOk(url, name, { range, signal }), name);
  }
  if (value === null || typeof value !== 'object') {
    throw new TypeError(`${name} must be an ArrayBuffer, a Uint8Array, a Blob or File, or a URL, got ${describe(value)}`);
  }
  return valueSource(value, name);
}

/**
 * A plain copy of a JSON file given as an object (or just parsed): every property is read once,
 * here, so a getter or a Proxy trap cannot answer the checks one way and the reader another, and
 * no toJSON or other function of the caller's runs later. Objects or arrays nested more than
 * MAX_JSON_DEPTH deep are refused (an object that contains itself never ends, so it is caught
 * too), and so are values JSON cannot hold; properties set to undefined are left out, as
 * JSON.stringify leaves them. Iterative: nothing recurses, however deep the input.
 */
function plainCopy(value, name) {
  const root = { copy: undefined };
  // Children are pushed in reverse, so they are copied, and keys created, in their order.
  const pending = [{ item: value, depth: 1, parent: root, key: 'copy', up: null }];
  while (pending.length) {
    const entry = pending.pop();
    const { item, depth, parent, key } = entry;
    if (item === undefined) continue;
    let copy = item;
    if (typeof item === 'function' || typeof item === 'symbol' || typeof item === 'bigint') {
      throw new TypeError(`${name}${pathOf(entry)} is a ${typeof item}, which JSON cannot hold`);
    }
    if (item !== null && typeof item === 'object') {
      if (depth > MAX_JSON_DEPTH) {
        throw new RangeError(`${name} nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep ` +
          '(or contains itself); real model files nest a few levels');
      }
      copy = Array.isArray(item) ? [] : {};
      const keys = Object.keys(item);
      for (let i = keys.length - 1; i >= 0; i--) {
        pending.push({ item: item[keys[i]], depth: depth + 1, parent: copy, key: keys[i], up: entry });
      }
    }
    // A key named __proto__ must stay data, as JSON.parse makes it, not set the prototype.
    if (key === '__proto__') Object.defineProperty(parent, key, { value: copy, writable: true, enumerable: true, configurable: true });
    else parent[key] = copy;
  }
  return root.copy;
}

/** Where a plainCopy entry sits, for messages: ' model.vocab["cat"]' style; '' for the root. */
function pathOf(entry) {
  const keys = [];
  for (let e = entry; e.up; e = e.up) {
    keys.unshift(/^[A-Za-z_$][\w$]*$/.test(e.key) ? `.${e.key}` : Array.isArray(e.parent) ? `[${e.key}]` : `[${JSON.stringify(e.key)}]`);
  }
  return keys.length ? ` ${keys.join('').replace(/^\./, '')}` : '';
}

function parseJson(text, name) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${name} is not valid JSON: ${error.message}`);
  }
}

/**
 * A plain object stays an object; a URL, bytes, a Blob or a string of JSON become text, refused past
 * the file's MAX_JSON_BYTES (a string, past as many characters) before more of it is read.
 */
async function readText(value, name, signal) {
  if (value instanceof URL) return new TextDecoder().decode(await fetchBytes(value, name, signal));
  const limit = MAX_JSON_BYTES[name];
  if (bytesOf(value) !== null) {
    const bytes = checkBytes(name, value);
    if (bytes.byteLength > limit) throw tooLarge(name, bytes.byteLength, limit, REAL_SIZES[name]);
    return new TextDecoder().decode(bytes);
  }
  if (typeof Blob === 'function' && value instanceof Blob) {
    if (value.size > limit) throw tooLarge(name, value.size, limit, REAL_SIZES[name]);
    return new TextDecoder().decode(await readBlob(value, name));
  }
  if (typeof value === 'string') {
    if (value.length > limit) throw tooLarge(name, value.length, limit, REAL_SIZES[name], 'characters');
    return value;
  }
  if (value !== null && typeof value === 'object') return value;
  throw new TypeError(`${name} must be an object, JSON text, bytes, a Blob or a URL, got ${typeof value}`);
}

function fileUrlError(url, name) {
  const why = globalThis.process?.versions?.node ? 'reading file: URLs needs Node ≥ 20.16'
    : 'a browser cannot fetch file: URLs; serve the page and the model over http(s), or pass the files (File objects or bytes) to loadModel';
  return new Error(`cannot read ${name} from ${url}: ${why}`);
}

/** A binary file (a SentencePiece model) given as bytes, a Blob or a URL, refused past its MAX_JSON_BYTES. */
async function readBytes(value, name, signal) {
  const limit = MAX_JSON_BYTES[name];
  if (value instanceof URL) return fetchBytes(value, name, signal);
  if (bytesOf(value) !== null) {
    const bytes = checkBytes(name, value);
    if (bytes.byteLength > limit) throw tooLarge(name, bytes.byteLength, limit, REAL_SIZES[name]);
    return bytes;
  }
  if (typeof Blob === 'function' && value instanceof Blob) {
    if (value.size > limit) throw tooLarge(name, value.size, limit, REAL_SIZES[name]);
    return readBlob(value, name);
  }
  throw new TypeError(`${name} must be bytes, a Blob or a URL, got ${describe(value)}`);
}

/** A JSON file at `url`, read up to its MAX_JSON_BYTES (a file in Node as a download is: a FIFO may never end). */
async function fetchBytes(url, name, signal) {
  if (url.protocol === 'file:') {
    // Node's fetch cannot read file: URLs, and browsers do not let a page fetch them.
    if (!node) throw fileUrlError(url, name);
    return readWhole(nodeFileSource(url, name, node('node:fs/promises')).chunks(0, signal), name, MAX_JSON_BYTES[name], REAL_SIZES[name]);
  }
  return readBody(await fetchOk(url, name, { signal }), name, MAX_JSON_BYTES[name], REAL_SIZES[name], signal);
}

/**
 * fetch() that throws a message naming the file unless the answer is 2xx; the error of an HTTP
 * answer carries its status. `range` is a Range header value, or null.
 */
async function fetchOk(url, name, { range = null, signal } = {}) {
  let response;
  try {
    response = await fetch(url, { signal, headers: range ? { Range: range } : {} });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw new Error(`cannot fetch ${name} from ${url}: ${error.message}`);
  }
  if (!response.ok) {
    throw Object.assign(new Error(`cannot fetch ${name} from ${url}: HTTP ${response.status}`), { status: response.status });
  }
  return response;
}
