// Reads the three files of a model folder (config.json, tokenizer.json, model.safetensors) from
// whatever the caller has: parsed objects, text, bytes, or URLs (http(s): in browsers and
// workers, file: and paths in Node). One loader for the default model, a URL and a user's files.
// Files are untrusted: JSON is refused when it nests deeper than any real model file does, before
// a parser or the tokenizer library could recurse that deep and overflow the stack.

import { checkBytes, describe } from './check.js';
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
  for (const key of ['config', 'tokenizer', 'weights']) {
    if (source[key] === undefined) throw new TypeError(`loadModel source is missing \`${key}\``);
  }
  // The three reads run at once, but a failure is reported in file order, so the same broken
  // source always gives the same message (Promise.all would report whichever read failed first).
  const results = await Promise.allSettled([
    readText(source.config, 'config.json').then((text) => (typeof text === 'string' ? text : toJson(text, 'config.json'))),
    readText(source.tokenizer, 'tokenizer.json').then((text) => (typeof text === 'string'
      ? checkDepth(parseJson(text, 'tokenizer.json'), 'tokenizer.json') : plainCopy(text, 'tokenizer.json'))),
    readBytes(source.weights, 'model.safetensors'),
  ]);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  const [config, tokenizer, weights] = results.map((result) => result.value);
  return { config, tokenizer, weights };
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

/** A config given as an object, as JSON text for the C++ reader. */
function toJson(value, name) {
  const copy = plainCopy(value, name);
  try {
    return JSON.stringify(copy);
  } catch (error) {
    throw new Error(`${name} (given as an object) cannot be written as JSON: ${error.message}`);
  }
}

const tooDeep = (name) => new RangeError(`${name} nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep ` +
  '(or contains itself); real model files nest a few levels');

/** Throws tooDeep if parsed JSON nests more than MAX_JSON_DEPTH objects or arrays; returns it. Iterative. */
export function checkDepth(value, name) {
  const pending = [[value, 1]];
  while (pending.length) {
    const [item, depth] = pending.pop();
    if (item === null || typeof item !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) throw tooDeep(name);
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return value;
}

/**
 * A plain copy of a file given as an object: every property is read once, here (a getter or a
 * Proxy trap cannot answer the checks one way and the reader another), and nesting is limited as
 * checkDepth limits it (an object that contains itself never ends, so it is caught too). Iterative.
 */
function plainCopy(value, name) {
  const root = {};
  const pending = [[root, 'value', value, 1]];
  while (pending.length) {
    const [parent, key, item, depth] = pending.pop();
    let copy = item;
    if (item !== null && typeof item === 'object') {
      if (depth > MAX_JSON_DEPTH) throw tooDeep(name);
      copy = Array.isArray(item) ? [] : {};
      for (const k of Object.keys(item)) pending.push([copy, k, item[k], depth + 1]);
    }
    // defineProperty, so a key named __proto__ stays data, as JSON.parse makes it.
    Object.defineProperty(parent, key, { value: copy, writable: true, enumerable: true, configurable: true });
  }
  return root.value;
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
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return new TextDecoder().decode(value);
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
