// The browser's Cache API as multihead's model store: a cache-first fetch that stores a Hub file's
// full response while its reader reads it, the list of cached models with their sizes, and deleting one.
// Where there is no Cache API (Node, insecure contexts, some private windows) every function
// answers as an empty cache and cacheFetch simply fetches.
// It deliberately does not decide what to fetch (hub.js and the engine do), never holds a file's
// body in JavaScript memory (the body goes to the cache and to its reader chunk by chunk, in
// step), and never keeps a partial file: a download that fails or is aborted leaves no entry.

import { hubBase } from './hub.js';

export const CACHE_NAME = 'multihead-models';

// Headers added to each stored response. The model's coordinates are stored rather than parsed
// from the URL, because a hubUrl may have a path prefix and then the URL alone cannot say where
// the hubUrl ends and the owner begins.
const MODEL_HEADER = 'x-multihead-model';
const BYTES_HEADER = 'x-multihead-bytes';

const storage = () => (typeof globalThis.caches?.open === 'function' ? globalThis.caches : null);

/** True when this context has a Cache API (it may still refuse to open, then nothing is cached). */
export function cacheAvailable() {
  return storage() !== null;
}

/** The cache, or null where there is none or it cannot be opened (a SecurityError, say). */
async function openCache() {
  const caches = storage();
  if (!caches) return null;
  try {
    return await caches.open(CACHE_NAME);
  } catch {
    return null;
  }
}

async function match(cache, url) {
  try {
    return (await cache.match(url)) ?? null;
  } catch {
    return null;
  }
}

/** The cached response for a URL, or null. */
export async function cachedResponse(url) {
  const cache = await openCache();
  return cache ? match(cache, String(url)) : null;
}

function contentLength(response) {
  const text = response.headers.get('content-length');
  return text !== null && /^\d+$/.test(text) ? Number(text) : null;
}

/**
 * A stream of `body`'s bytes that counts them for onProgress({ loaded, total }) and errors with
 * the signal's reason on abort. `state.error` keeps the first error, so a failed cache.put can
 * tell a broken download (or a throwing onProgress) from a storage failure.
 */
function countingStream(body, { total, onProgress, signal }, state) {
  const reader = body.getReader();
  let loaded = 0;
  let onAbort = null;
  const stop = (controller, error) => {
    state.error ??= error;
    signal?.removeEventListener('abort', onAbort);
    reader.cancel(error).catch(() => {});
    controller.error(error);
  };
  return new ReadableStream({
    start(controller) {
      onAbort = () => stop(controller, signal.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
    },
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (state.error) return;
        if (done) {
          signal?.removeEventListener('abort', onAbort);
          controller.close();
          return;
        }
        loaded += value.byteLength;
        controller.enqueue(value);
        onProgress?.({ loaded, total });
      } catch (error) {
        if (!state.error) stop(controller, error);
      }
    },
    cancel(reason) {
      signal?.removeEventListener('abort', onAbort);
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/** The response with its body counted on the way, for contexts without a cache. */
function uncached(response, options) {
  if (!response.body) return response;
  const counted = countingStream(response.body, { ...options, total: contentLength(response) }, {});
  return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** { hubUrl, id, revision, file } as stored in MODEL_HEADER (header values must be ASCII). */
function modelHeader({ hubUrl, id, revision = 'main', file }) {
  return encodeURIComponent(JSON.stringify({ hubUrl: hubBase(hubUrl), id, revision, file }));
}

/** The stored coordinates of a cached response, or null for an entry that is not a model file. */
function modelOf(response) {
  try {
    const model = JSON.parse(decodeURIComponent(response.headers.get(MODEL_HEADER) ?? ''));
    const fields = [model?.hubUrl, model?.id, model?.revision, model?.file];
    return fields.every((field) => typeof field === 'string') ? model : null;
  } catch {
    return null;
  }
}

/**
 * The response for `url` from the cache; else `fetcher(url, { signal })`'s, whose body goes into
 * the cache and to the caller at the same pace while onProgress({ loaded, total }) counts its
 * bytes: the caller reads the file as it downloads, and reading it to its end also means it is
 * stored (or the cache refused it, when storage is full: the caller still gets every byte). Only
 * files named by `model` ({ hubUrl, id, revision, file }) are stored, so that every entry can be
 * listed and deleted; without it, or without a Cache API, the fetched response is returned with
 * its body counted as it is read. A download that breaks off, is aborted, or is cancelled by its
 * reader errors the body with that error (the signal's reason when aborted) and leaves no entry.
 */
export async function cacheFetch(url, fetcher, { signal, onProgress, model } = {}) {
  const key = String(url);
  const cache = model ? await openCache() : null;
  if (cache) {
    const hit = await match(cache, key);
    if (hit) return hit;
  }
  signal?.throwIfAborted();
  const response = await fetcher(key, { signal });
  if (!cache || response.status !== 200 || !response.body) return uncached(response, { signal, onProgress });

  const total = contentLength(response);
  const headers = new Headers({ [MODEL_HEADER]: modelHeader(model) });
  for (const name of ['content-type', 'content-length', 'etag']) {
    const value = response.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (total !== null) headers.set(BYTES_HEADER, String(total));
  const pair = inStep(countingStream(response.body, { total, onProgress, signal }, {}));
  // A put whose body errored stores nothing; deleting as well covers an implementation that would
  // keep what it had.
  pair.storing(cache.put(key, new Response(pair.forStore, { status: 200, headers })).then(() => true, async () => {
    await cache.delete(key).catch(() => {});
    return false;
  }));
  return new Response(pair.forReader, { status: 200, headers });
}

/**
 * Two streams of `source`'s chunks that advance together, one for cache.put and one for the
 * caller: the next chunk is read only when both have taken the last, so neither runs ahead and at
 * most one chunk waits in memory (tee() would queue the whole file for the slower side). The
 * caller's stream ends only once the put has settled (storing() hands it over), so a file read to
 * its end is in the cache; when the put gives up first, the caller reads on alone. An error of
 * the source, or the caller cancelling, errors both, so the put stores nothing.
 */
function inStep(source) {
  const reader = source.getReader();
  const side = () => ({ controller: null, wants: null, gone: false });
  const store = side(), caller = side();
  let stored = null;
  const ready = (s) => (s.gone || s.controller.desiredSize > 0 ? null : new Promise((wake) => { s.wants = wake; }));
  const wake = (s) => {
    s.wants?.();
    s.wants = null;
  };
  const end = (s, error) => {
    if (!s.gone) s.controller.error(error);
    s.gone = true;
    wake(s);
  };
  // The put is failed first and the caller told only once it has settled, so by the time a
  // reader sees the error, nothing of the file is left in the cache.
  const fail = async (error) => {
    end(store, error);
    reader.cancel(error).catch(() => {});
    await stored;
    end(caller, error);
  };
  const stream = (s, onCancel) => new ReadableStream({
    start(controller) { s.controller = controller; },
    pull() { wake(s); },
    cancel(reason) {
      s.gone = true;
      wake(s);
      onCancel(reason);
    },
  }, { highWaterMark: 1 });
  const forStore = stream(store, () => {}); // the put gave up: the caller reads on alone
  const forReader = stream(caller, (reason) => {
    end(store, reason);
    reader.cancel(reason).catch(() => {});
  });

  (async () => {
    try {
      for (;;) {
        await Promise.all([ready(store), ready(caller)]);
        if (caller.gone) return;
        const { done, value } = await reader.read();
        if (done) {
          if (!store.gone) store.controller.close();
          await stored;
          if (!caller.gone) caller.controller.close();
          return;
        }
        if (!store.gone) store.controller.enqueue(value);
        if (!caller.gone) caller.controller.enqueue(value);
      }
    } catch (error) {
      await fail(error);
    }
  })();
  return {
    forStore,
    forReader,
    storing(put) {
      stored = put;
      put.then((ok) => {
        if (!ok) {
          store.gone = true;
          wake(store);
        }
      });
    },
  };
}

/** A cached file's size: the size recorded when it was stored, else its body counted (streamed). */
async function sizeOf(response) {
  const recorded = response.headers.get(BYTES_HEADER);
  if (recorded !== null && /^\d+$/.test(recorded)) {
    await response.body?.cancel().catch(() => {});
    return Number(recorded);
  }
  if (!response.body) return 0;
  let bytes = 0;
  for (const reader = response.body.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
  }
}

/** Every cached model file, as { model, url, bytes } (bytes only when `sizes`: it may read bodies). */
async function cachedFiles(cache, { sizes }) {
  const files = [];
  for (const request of await cache.keys()) {
    const response = await match(cache, request);
    if (!response) continue;
    const model = modelOf(response);
    if (!model) {
      await response.body?.cancel().catch(() => {});
      continue;
    }
    if (sizes) files.push({ model, url: request.url, bytes: await sizeOf(response) });
    else {
      await response.body?.cancel().catch(() => {});
      files.push({ model, url: request.url });
    }
  }
  return files;
}

/**
 * The cached models, one entry per hubUrl, id and revision:
 * [{ id, revision, hubUrl, bytes, files: [{ file, bytes, url }] }], sorted by id then revision.
 * [] without a Cache API.
 */
export async function listCachedModels() {
  const cache = await openCache();
  if (!cache) return [];
  const models = new Map();
  for (const { model, url, bytes } of await cachedFiles(cache, { sizes: true })) {
    const key = JSON.stringify([model.hubUrl, model.id, model.revision]);
    if (!models.has(key)) models.set(key, { id: model.id, revision: model.revision, hubUrl: model.hubUrl, bytes: 0, files: [] });
    const entry = models.get(key);
    entry.bytes += bytes;
    entry.files.push({ file: model.file, bytes, url });
  }
  const order = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  return [...models.values()]
    .map((entry) => ({ ...entry, files: entry.files.sort((a, b) => order(a.file, b.file)) }))
    .sort((a, b) => order(a.id, b.id) || order(a.revision, b.revision) || order(a.hubUrl, b.hubUrl));
}

/**
 * Deletes every cached file of one model revision; resolves to how many were deleted (0 when
 * none were cached, or without a Cache API).
 */
export async function deleteCachedModel({ id, revision = 'main', hubUrl }) {
  const base = hubBase(hubUrl);
  const cache = await openCache();
  if (!cache) return 0;
  let deleted = 0;
  for (const { model, url } of await cachedFiles(cache, { sizes: false })) {
    if (model.hubUrl === base && model.id === id && model.revision === revision && await cache.delete(url)) deleted++;
  }
  return deleted;
}
