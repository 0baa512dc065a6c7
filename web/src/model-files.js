// Reads the three files of a model folder (config.json, tokenizer.json, model.safetensors) from
// whatever the caller has: parsed objects, text, bytes, or URLs (http(s): in browsers and
// workers, file: in Node). One loader for the default model, a URL and a user's files.

import { inlined } from './inlined.js';

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
    const folder = new URL(String(source).endsWith('/') ? String(source) : `${source}/`, globalThis.location?.href);
    source = { config: new URL('config.json', folder), tokenizer: new URL('tokenizer.json', folder), weights: new URL('model.safetensors', folder) };
  }
  if (source === null || typeof source !== 'object') {
    throw new TypeError(`loadModel takes a folder URL or { config, tokenizer, weights }, got ${source === null ? 'null' : typeof source}`);
  }
  for (const key of ['config', 'tokenizer', 'weights']) {
    if (source[key] === undefined) throw new TypeError(`loadModel source is missing \`${key}\``);
  }
  // The three reads run at once, but a failure is reported in file order, so the same broken
  // source always gives the same message (Promise.all would report whichever read failed first).
  const results = await Promise.allSettled([
    readText(source.config, 'config.json').then((text) => (typeof text === 'string' ? text : JSON.stringify(text))),
    readText(source.tokenizer, 'tokenizer.json').then((text) => (typeof text === 'string' ? parseJson(text, 'tokenizer.json') : text)),
    readBytes(source.weights, 'model.safetensors'),
  ]);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  const [config, tokenizer, weights] = results.map((result) => result.value);
  return { config, tokenizer, weights };
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
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (value instanceof Uint8Array) return value;
  throw new TypeError(`${name} must be an ArrayBuffer, a Uint8Array or a URL, got ${typeof value}`);
}

async function fetchBytes(url, name) {
  if (url.protocol === 'file:') {
    // Node's fetch cannot read file: URLs. getBuiltinModule keeps bundlers from seeing a node: import.
    const fs = globalThis.process?.getBuiltinModule?.('node:fs/promises');
    if (!fs) throw new Error(`cannot read ${name} from ${url}: file: URLs need Node ≥ 20.16`);
    return new Uint8Array(await fs.readFile(url).catch((error) => {
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
