// Types of cache.js: downloaded Hub files in the browser's Cache API ('multihead-models').

/** 'multihead-models'. */
export const CACHE_NAME: string;

/** Where a cached file came from; stored with it, so it can be listed and deleted. */
export interface CachedModelFile {
  /** Default 'https://huggingface.co'. */
  hubUrl?: string | URL;
  id: string;
  /** Default 'main'. */
  revision?: string;
  file: string;
}

export interface CacheFetchOptions {
  /** Aborting rejects with the signal's reason and leaves no entry. */
  signal?: AbortSignal;
  /** Called as the network download's bytes arrive; total is Content-Length, or null. */
  onProgress?: (progress: { loaded: number; total: number | null }) => void;
  /** The file's coordinates. Without them the response is fetched but never stored. */
  model?: CachedModelFile;
}

/** True when this context has a Cache API (false in Node and insecure contexts). */
export function cacheAvailable(): boolean;

/** The cached response for a URL, or null (always null without a Cache API). */
export function cachedResponse(url: string | URL): Promise<Response | null>;

/**
 * Cache first: the stored response for `url` if there is one (no network request). Otherwise
 * `fetcher(url, { signal })`'s response (for example hubFetch's), streamed into the cache while
 * onProgress counts its bytes, and then read back from the cache, so the file is never held in
 * JavaScript memory. A download that breaks off or is aborted rejects with its error and stores
 * nothing; a cache that refuses the file (storage full) makes it fetch once more, uncached.
 * Without a Cache API, or without `model`, the fetched response is returned, its body counted as
 * it is read.
 */
export function cacheFetch(
  url: string | URL,
  fetcher: (url: string, init: { signal?: AbortSignal }) => Promise<Response>,
  options?: CacheFetchOptions,
): Promise<Response>;

export interface CachedModel {
  id: string;
  revision: string;
  /** The hubUrl without a trailing slash. */
  hubUrl: string;
  /** The sum of the files' sizes. */
  bytes: number;
  /** Sorted by name. */
  files: { file: string; bytes: number; url: string }[];
}

/** Every cached model revision with its files and sizes, sorted by id; [] without a Cache API. */
export function listCachedModels(): Promise<CachedModel[]>;

/** Deletes one model revision's cached files; resolves to how many were deleted. */
export function deleteCachedModel(model: { id: string; revision?: string; hubUrl?: string | URL }): Promise<number>;
