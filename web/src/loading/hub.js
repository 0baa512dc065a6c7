// The Hugging Face Hub as multihead reads it: model ids, the {hubUrl}/{id}/resolve/{revision}/{file}
// URL layout, the Hub's error answers turned into messages a user can act on, and the repository's
// file list. Works wherever fetch does (browsers, workers, Node 20); touches no DOM.
// It deliberately does not parse model files, cache anything (cache.js does) or decide which
// files a model needs beyond naming the three multihead reads in its messages. Ids arrive from page
// URLs, so they are validated here before they reach a path: nothing a caller passes can leave the
// {id}/resolve/{revision}/ part of the Hub's URL space.

import { describe } from '../check.js';
import { readBody, readPrefix } from './streams.js';

export const DEFAULT_HUB_URL = 'https://huggingface.co';

// A model listing of the Hub API is a few kilobytes (a large repository's, tens); anything this
// big is not an answer worth parsing.
const MAX_LISTING_BYTES = 8 * 1024 * 1024;
const MAX_LISTED_FILES = 100000;

// The Hub's own rule for the parts of a repository id: letters, digits, '-', '_', '.', at most 96,
// neither starting nor ending with '.' or '-', and no '..'.
const ID_PART = /^(?![.-])(?!.*\.\.)[A-Za-z0-9._-]{1,96}(?<![.-])$/;
const MAX_REVISION_LENGTH = 256;

/**
 * Splits a Hub model id ('owner/name' or a bare 'name') into its parts, or throws a TypeError
 * naming the id. `path` is the id as it goes into a URL, each part percent-encoded (a no-op for a
 * valid id, kept so that no future loosening of ID_PART can open a path).
 */
export function parseHubId(id) {
  if (typeof id !== 'string') throw new TypeError(`a Hub model id must be a string, got ${describe(id)}`);
  const parts = id.split('/');
  if (parts.length > 2 || !parts.every((part) => ID_PART.test(part))) {
    throw new TypeError(`${JSON.stringify(id.length > 200 ? id.slice(0, 200) + '…' : id)} is not a Hub model id: ` +
      'use "owner/name" or "name", each part 1 to 96 letters, digits, "-", "_" or ".", ' +
      'not starting or ending with "-" or "." and without ".."');
  }
  const [owner, name] = parts.length === 2 ? parts : [null, parts[0]];
  return { id, owner, name, path: parts.map(encodeURIComponent).join('/') };
}

/**
 * True when a string is meant as a Hub id rather than a URL or a path: it has no scheme
 * ('https:', 'file:', a Windows drive 'C:') and does not start with '/', './', '../' or a
 * backslash. It may still be a malformed id, which parseHubId reports.
 */
export function isHubId(text) {
  if (typeof text !== 'string' || text.trim() === '' || text === '.' || text === '..') return false;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(text)) return false;
  return !/^(\/|\\|\.\.?[/\\])/.test(text);
}

/**
 * The Hub's base URL with no trailing slash: http(s) only, an optional path prefix, no query or
 * fragment (either would swallow the path appended to it).
 */
export function hubBase(hubUrl = DEFAULT_HUB_URL) {
  let url;
  try {
    url = new URL(String(hubUrl));
  } catch {
    throw new TypeError(`hubUrl must be an http(s) URL, got ${describe(hubUrl)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`hubUrl must be an http(s) URL, got ${JSON.stringify(String(hubUrl))}`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new TypeError(`hubUrl must be a plain http(s) URL without credentials, query or fragment, got ${JSON.stringify(String(hubUrl))}`);
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** A revision (a branch, tag or commit) as one URL path segment; '.' and '..' would move the path. */
function revisionSegment(revision) {
  if (typeof revision !== 'string' || revision === '' || revision.length > MAX_REVISION_LENGTH) {
    throw new TypeError(`revision must be a branch, tag or commit name of 1 to ${MAX_REVISION_LENGTH} characters, got ${describe(revision)}`);
  }
  if (revision === '.' || revision === '..') throw new TypeError(`revision ${JSON.stringify(revision)} is not a branch, tag or commit name`);
  return encodeURIComponent(revision);
}

/** A file in the repository ('config.json', 'onnx/model.onnx'), each segment encoded. */
function filePath(file) {
  const segments = typeof file === 'string' ? file.split('/') : [];
  if (!segments.length || segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\'))) {
    throw new TypeError(`file must be a path inside the repository, like "config.json", got ${describe(file)}`);
  }
  return segments.map(encodeURIComponent).join('/');
}

/** {hubUrl}/{id}/resolve/{revision}/{file}: where the Hub serves one file of one revision. */
export function hubFileUrl({ hubUrl = DEFAULT_HUB_URL, id, revision = 'main', file }) {
  return `${hubBase(hubUrl)}/${parseHubId(id).path}/resolve/${revisionSegment(revision)}/${filePath(file)}`;
}

/** {hubUrl}/api/models/{id}/revision/{revision}: the Hub API's description of one revision. */
export function hubApiUrl({ hubUrl = DEFAULT_HUB_URL, id, revision = 'main' }) {
  return `${hubBase(hubUrl)}/api/models/${parseHubId(id).path}/revision/${revisionSegment(revision)}`;
}

/** An Error carrying the HTTP status, so callers can tell a missing file from other failures. */
function httpError(message, status, code) {
  const error = new Error(message);
  error.status = status;
  if (code) error.hubErrorCode = code;
  return error;
}

/** The Hub's X-Error-Code (RepoNotFound, EntryNotFound, RevisionNotFound, GatedRepo), if readable. */
function errorCode(response) {
  const code = response.headers.get('x-error-code');
  return code && /^[A-Za-z]{1,64}$/.test(code) ? code : null;
}

/** The message for a Hub answer that is not a success. */
function statusMessage(response, { id, file, revision }) {
  const { status } = response;
  const code = errorCode(response);
  const what = `${file} at revision '${revision}'`;
  if (status === 401 || status === 403) {
    if (code === 'RepoNotFound') {
      // The Hub answers 401 for a repository that does not exist, not to reveal private ones.
      return `the model '${id}' does not exist or is private (HTTP ${status} for ${what}): check the id; multihead can only load public models`;
    }
    // A gated model (google/gemma-3-270m) serves its files only to signed-in users who accepted
    // its terms; multihead sends no credentials, so the way in is the files themselves.
    return `the model '${id}' is gated or private (HTTP ${status} for ${what}): multihead can only load public models. ` +
      'If you have access, download its config.json, tokenizer.json and model.safetensors and open them as a local ' +
      'folder, or load an ungated copy of the model by its id';
  }
  if (status === 404) {
    if (code === 'RepoNotFound') return `the Hub has no model '${id}' (HTTP 404 for ${what}): check the id`;
    if (code === 'RevisionNotFound') return `the model '${id}' has no revision '${revision}' (HTTP 404 for ${file})`;
    return `the model '${id}' has no ${file} at revision '${revision}' (HTTP 404)`;
  }
  const text = response.statusText ? ` ${response.statusText}` : '';
  return `the Hub answered HTTP ${status}${text} for ${id}'s ${what}`;
}

/** Where a request went, for network-failure messages: the hubUrl when known, else the URL's origin. */
function hubName(url, hubUrl) {
  if (hubUrl !== undefined) return hubBase(hubUrl);
  try {
    return new URL(url).origin;
  } catch {
    return String(url);
  }
}

/** Node's fetch says "fetch failed" and keeps the reason in `cause`; browsers give one message. */
function networkReason(error) {
  const cause = error?.cause?.message ?? error?.cause?.code;
  const message = error?.message ?? String(error);
  return cause ? `${message} (${cause})` : message;
}

/**
 * fetch() of one Hub file with the Hub's failures turned into Errors a user can act on. Aborting
 * `signal` rejects with the signal's reason (an AbortError DOMException unless the caller gave
 * another), untouched. With `hubUrl` given, a 404 for model.safetensors or tokenizer.json asks the
 * Hub API what the repository has and says so (missingFileMessage).
 */
export async function hubFetch(url, { id, file, revision = 'main', hubUrl, signal, headers } = {}) {
  let response;
  try {
    response = await fetch(url, { redirect: 'follow', mode: 'cors', signal, headers });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new Error(`cannot reach the Hub at ${hubName(url, hubUrl)} to fetch ${id}'s ${file}: ${networkReason(error)} ` +
      '(no network, a wrong hubUrl, or a server that does not send CORS headers)');
  }
  if (response.ok) return response;
  const code = errorCode(response);
  // The error page is read (a few hundred bytes) rather than cancelled, which a browser would
  // report as an aborted request beside the real failure.
  if (response.body) await readPrefix(response.body, 1 << 16).catch(() => {});
  if (response.status === 404 && code !== 'RepoNotFound' && code !== 'RevisionNotFound' &&
      hubUrl !== undefined && EXPLAINED_FILES.has(file)) {
    const files = await hubRepoFiles({ hubUrl, id, revision, signal });
    if (files) throw httpError(missingFileMessage({ id, revision, file, files }), 404, code);
  }
  throw httpError(statusMessage(response, { id, file, revision }), response.status, code);
}

/**
 * The repository's file names at one revision, from the Hub API's siblings[].rfilename; null
 * when the API cannot be reached or answers anything unexpected (the caller then says less).
 * Aborting `signal` still rejects.
 */
export async function hubRepoFiles({ hubUrl = DEFAULT_HUB_URL, id, revision = 'main', signal }) {
  let response;
  try {
    response = await fetch(hubApiUrl({ hubUrl, id, revision }), { redirect: 'follow', mode: 'cors', signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    return null;
  }
  try {
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      return null;
    }
    // Larger than the limit, it is refused like any other failure: the caller says less.
    const bytes = await readBody(response, 'the Hub API\'s file list', MAX_LISTING_BYTES, '', signal);
    return siblingNames(JSON.parse(new TextDecoder().decode(bytes)));
  } catch (error) {
    if (signal?.aborted) throw error;
    return null;
  }
}

/** The rfilename of every sibling, if the listing has the shape the Hub API gives; else null. */
function siblingNames(listing) {
  const siblings = listing?.siblings;
  if (!Array.isArray(siblings) || siblings.length > MAX_LISTED_FILES) return null;
  const names = [];
  for (const sibling of siblings) {
    const name = sibling?.rfilename;
    if (typeof name !== 'string' || name === '' || name.length > 1000) return null;
    names.push(name);
  }
  return names;
}

// The two files whose absence has a usual cause worth explaining; a missing config.json does not.
const EXPLAINED_FILES = new Set(['model.safetensors', 'tokenizer.json']);

// Files that hold weights in formats multihead does not read, and the files of slow tokenizers.
const WEIGHT_FILE = /(^|\/)[^/]+\.(bin|pt|pth|ckpt|h5|msgpack|onnx|gguf|ot|tflite)$/i;
const SHARD_FILE = /(^|\/)model-\d+-of-\d+\.safetensors$/;
const TOKENIZER_FILE = /^(vocab\.(txt|json)|merges\.txt|spiece\.model|sentencepiece\.bpe\.model|tokenizer\.model|tokenizer_config\.json|special_tokens_map\.json|added_tokens\.json)$/;

/** 'a, b and c', or the first few and how many more. */
function listNames(names, most = 6) {
  if (names.length > most) return `${names.slice(0, most).join(', ')} and ${names.length - most} more`;
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names[0];
}

/**
 * What to tell a user whose model has no model.safetensors or no tokenizer.json, given the
 * repository's files (hubRepoFiles). Plain words, naming only files the repository has.
 */
export function missingFileMessage({ id, revision = 'main', file, files }) {
  const where = `the model '${id}' has no ${file} at revision '${revision}'`;
  if (file === 'tokenizer.json') {
    const present = files.filter((name) => TOKENIZER_FILE.test(name));
    const has = present.length ? `it has ${listNames(present)}` : 'nor any other tokenizer file';
    return `${where} (${has}): multihead needs tokenizer.json, the fast-tokenizer file`;
  }
  if (file === 'model.safetensors') {
    const shards = files.filter((name) => SHARD_FILE.test(name));
    if (shards.length) {
      return `${where}: its safetensors weights are split into ${shards.length} files (${listNames(shards, 3)}), ` +
        'and multihead reads one model.safetensors file';
    }
    const others = files.filter((name) => WEIGHT_FILE.test(name));
    if (others.length) {
      return `${where}, only ${listNames(others)}: multihead reads safetensors weights ` +
        '(the Hub can convert a repository with its safetensors conversion space, or load a revision that has them)';
    }
    return `${where} and no other weights file: multihead needs model.safetensors`;
  }
  return `${where} (HTTP 404)`;
}
