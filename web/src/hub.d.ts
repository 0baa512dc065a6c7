// Types of hub.js: the Hugging Face Hub's ids, URL layout and error answers.

/** 'https://huggingface.co'. */
export const DEFAULT_HUB_URL: string;


export interface HubId {
  /** The id as given, 'owner/name' or 'name'. */
  id: string;
  /** null for a bare name. */
  owner: string | null;
  name: string;
  /** The id as it goes into a URL path, each part percent-encoded. */
  path: string;
}

/**
 * Splits a Hub model id ('owner/name' or 'name'). Each part is 1 to 96 letters, digits, '-', '_'
 * or '.', not starting or ending with '-' or '.', without '..'. Anything else, including every
 * string that could move a URL path, throws a TypeError naming the id.
 */
export function parseHubId(id: string): HubId;

/**
 * True when `text` is meant as a Hub id, not a URL or path: no scheme (https:, file:, C:) and no
 * leading '/', './', '../' or backslash. It may still be malformed; parseHubId says how.
 */
export function isHubId(text: unknown): boolean;

/**
 * A hubUrl reduced to its origin and path without a trailing slash. Throws a TypeError unless it
 * is an http(s) URL without credentials, query or fragment.
 */
export function hubBase(hubUrl?: string | URL): string;

export interface HubFile {
  /** Default 'https://huggingface.co'; may have a path prefix. */
  hubUrl?: string | URL;
  id: string;
  /** A branch, tag or commit; default 'main'. Encoded as one path segment ('refs/pr/1' too). */
  revision?: string;
  /** A path inside the repository, like 'config.json'. */
  file: string;
}

/** {hubUrl}/{id}/resolve/{revision}/{file}. */
export function hubFileUrl(file: HubFile): string;

/** {hubUrl}/api/models/{id}/revision/{revision}. */
export function hubApiUrl(where: { hubUrl?: string | URL; id: string; revision?: string }): string;

export interface HubFetchOptions {
  /** The model id and the file, for messages. */
  id: string;
  file: string;
  /** For messages; default 'main'. */
  revision?: string;
  /**
   * Names the Hub in network errors. When given, a 404 for model.safetensors or tokenizer.json
   * asks the Hub API what the repository has, and the error says so (missingFileMessage).
   */
  hubUrl?: string | URL;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** An Error from hubFetch for an HTTP answer: its status and the Hub's X-Error-Code when readable. */
export interface HubHttpError extends Error {
  status: number;
  hubErrorCode?: string;
}

/**
 * fetch() with redirects followed and CORS mode, whose failures are Errors a user can act on:
 * - no answer: "cannot reach the Hub at {hub} to fetch {id}'s {file}: {reason} (no network, a
 *   wrong hubUrl, or a server that does not send CORS headers)";
 * - 404: "the model '{id}' has no {file} at revision '{revision}' (HTTP 404)", or for an unknown
 *   id "the Hub has no model '{id}' (HTTP 404 for {file} at revision '{revision}'): check the
 *   id", or for an unknown revision "the model '{id}' has no revision '{revision}' (HTTP 404 for
 *   {file})"; with hubUrl, model.safetensors and tokenizer.json get missingFileMessage instead;
 * - 401/403: "the model '{id}' is gated or private (HTTP 401 for {file} at revision
 *   '{revision}'): multihead can only load public models", or where the Hub's X-Error-Code is
 *   RepoNotFound "the model '{id}' does not exist or is private (HTTP 401 for …): check the id;
 *   multihead can only load public models";
 * - others: "the Hub answered HTTP {status} {statusText} for {id}'s {file} at revision '{revision}'".
 * Those are HubHttpErrors. An abort rejects with the signal's reason, untouched.
 */
export function hubFetch(url: string | URL, options: HubFetchOptions): Promise<Response>;

/**
 * The file names of a revision (the Hub API's siblings[].rfilename), or null when the API cannot
 * be reached or answers anything else than a listing under 8 MiB. An abort still rejects.
 */
export function hubRepoFiles(where: { hubUrl?: string | URL; id: string; revision?: string; signal?: AbortSignal }): Promise<string[] | null>;

/**
 * What a repository without model.safetensors or tokenizer.json has instead, and what multihead
 * needs: "the model '{id}' has no model.safetensors at revision '{revision}', only
 * pytorch_model.bin: multihead reads safetensors weights (the Hub can convert a repository with
 * its safetensors conversion space, or load a revision that has them)", the sharded and the
 * no-weights variants, and "the model '{id}' has no tokenizer.json at revision '{revision}' (it
 * has vocab.txt): multihead needs tokenizer.json, the fast-tokenizer file".
 */
export function missingFileMessage(what: { id: string; revision?: string; file: string; files: string[] }): string;
