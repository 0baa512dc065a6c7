// Reads the three files of a model folder (config.json, tokenizer.json, model.safetensors) from
// whatever the caller has: parsed objects, text, bytes, or URLs (http(s): in browsers and
// workers, file: and paths in Node). One loader for the default model, a URL and a user's files.
// Files are untrusted: JSON is refused when it nests deeper than any real model file does, before
// a parser or the tokenizer library could recurse that deep and overflow the stack.

import { bytesOf, checkBytes, describe } from './check.js';
import { inlined } from './inlined.js';

// Real config.json and tokenizer.json files nest 4 to 6 levels deep (a tokenizer's normalizer
// Sequence of objects holding arrays); the C++ JSON readers apply the same limit.
export const MAX_JSON_DEPTH = 64;

// Node, where paths are files; checked through getBuiltinModule, which keeps bundlers from seeing
// a node: import (and is missing before Node 20.16).
const node = typeof globalThis.process?.getBuiltinModule === 'function' && !globalThis.document
  ? (name) => globalThis.process.getBuiltinModule(name) : null;

// One literal URL per file, so bundlers see them and ship them as assets. A function, so a classic
// script (the single-file build, where import.meta.url is empty) never resolves them.
const defaultModel = () => inlined.model ?? {
  config: new URL('../models/default/config.json', import.meta.url),
  tokenizer: new URL('../models/default/tokenizer.json', import.meta.url),
  weights: new URL('../models/default/model.safetensors', import.meta.url),
};

/** Resolves `source` to { config: string, tokenizer: object, weights: Uint8Array }. */
export async function readModelFiles(source) {
  if (source === undefined) source = defaultModel();
  if (typeof source === 'string' || source instanceof URL) {
    const folder = folderUrl(String(source));
    source = { config: new URL('config.json', folder), tokenizer: new URL('tokenizer.json', folder), weights: new URL('model.safetensors', folder) };
  }
  if (source === null || typeof source !== 'object') {
    throw new TypeError(`loadModel takes a folder URL or { config, tokenizer, weights }, got ${describe(source)}`);
  }
  const { config, tokenizer, weights } = source; // each read once
  for (const [key, value] of Object.entries({ config, tokenizer, weights })) {
    if (value === undefined) throw new TypeError(`loadModel source is missing \`${key}\``);
  }
  // The three reads run at once, but a failure is reported in file order, so the same broken
  // source always gives the same message (Promise.all would report whichever read failed first).
  // A file given as an object is copied first (plainCopy); one given as text is parsed, then
  // copied the same way, so both meet the same depth limit.
  const results = await Promise.allSettled([
    readText(config, 'config.json').then((text) => (typeof text === 'string' ? text : JSON.stringify(plainCopy(text, 'config.json')))),
    readText(tokenizer, 'tokenizer.json').then((text) => plainCopy(typeof text === 'string' ? parseJson(text, 'tokenizer.json') : text, 'tokenizer.json')),
    readBytes(weights, 'model.safetensors'),
  ]);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  const [configText, tokenizerJson, bytes] = results.map((result) => result.value);
  return { config: configText, tokenizer: tokenizerJson, weights: bytes };
}

/**
 * The folder a string names: an absolute URL; in a browser also a URL relative to the page; in
 * Node also a path (absolute, or relative to the working directory when it starts with ./ or ../).
 */
function folderUrl(text) {
  if (text.trim() === '') throw new TypeError('loadModel was given an empty string; give a folder URL or path');
  if (node) {
    const path = node('node:path');
    if (path.isAbsolute(text) || /^\.\.?([/\\]|$)/.test(text)) return node('node:url').pathToFileURL(path.resolve(text) + path.sep);
  }
  try {
    return new URL(text.endsWith('/') ? text : `${text}/`, globalThis.location?.href);
  } catch {
    const hint = node ? 'a URL, an absolute path, or a path starting with ./ or ../' : 'a URL';
    throw new TypeError(`loadModel cannot read a model from ${JSON.stringify(text)}: it is not ${hint}`);
  }
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

/** A plain object stays an object; a URL, bytes or a string of JSON become text. */
async function readText(value, name) {
  if (value instanceof URL) return new TextDecoder().decode(await fetchBytes(value, name));
  if (bytesOf(value) !== null) return new TextDecoder().decode(checkBytes(name, value));
  if (typeof value === 'string' || (value !== null && typeof value === 'object')) return value;
  throw new TypeError(`${name} must be an object, JSON text, bytes or a URL, got ${typeof value}`);
}

async function readBytes(value, name) {
  if (value instanceof URL || typeof value === 'string') return fetchBytes(new URL(value, globalThis.location?.href), name);
  if (value === null || typeof value !== 'object') {
    throw new TypeError(`${name} must be an ArrayBuffer, a Uint8Array or a URL, got ${describe(value)}`);
  }
  return checkBytes(name, value);
}

async function fetchBytes(url, name) {
  if (url.protocol === 'file:') {
    // Node's fetch cannot read file: URLs, and browsers do not let a page fetch them.
    if (!node) {
      const why = globalThis.process?.versions?.node ? 'reading file: URLs needs Node ≥ 20.16'
        : 'a browser cannot fetch file: URLs; serve the page and the model over http(s), or pass the files\' bytes to loadModel';
      throw new Error(`cannot read ${name} from ${url}: ${why}`);
    }
    return new Uint8Array(await node('node:fs/promises').readFile(url).catch((error) => {
      throw new Error(`cannot read ${name} from ${url}: ${error.message}`);
    }));
  }
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`cannot fetch ${name} from ${url}: ${error.message}`);
  }
  if (!response.ok) throw new Error(`cannot fetch ${name} from ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}
