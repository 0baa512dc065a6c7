// A local stand-in for the Hugging Face Hub, for tests and manual runs of the page: two Node http
// servers on 127.0.0.1. The "Hub" answers the real URL layout, GET/HEAD {id}/resolve/{revision}/
// {file}, with a 302 to the second server (the "CDN", as the Hub sends file downloads to another
// host), and GET /api/models/{id}/revision/{revision} with the repository's file list. The CDN
// serves the bytes with CORS headers and one Range header (206, or 416 when unsatisfiable).
// Errors are the Hub's: 404 with X-Error-Code RepoNotFound / RevisionNotFound / EntryNotFound, and
// 401/403 for gated repositories. Every request to either server is logged.
// It deliberately does not imitate authentication, multi-range answers (a Range with a comma is
// ignored and answered 200, as HTTP allows), compression, Xet storage or any other API route.
//
//   node tests/hub/fake-hub.js tests/fixtures/checkpoints [--port 8080]
// serves each subfolder as the model multihead-test/<folder> and prints the hubUrl.

import { createHash } from 'node:crypto';
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

// What a browser on another origin may read of the answers; Content-Length is safelisted already,
// listed anyway as the real CDN lists it.
const EXPOSED = 'Content-Length, Content-Range, Accept-Ranges, ETag, X-Error-Code, X-Error-Message, X-Repo-Commit, X-Linked-Size';

/**
 * Starts the two servers. `repos` maps a model id to one of
 *   { folder }                       the files at the top of a folder (read on each request);
 *   { files: { name: Buffer|string } };
 *   { status: 401 | 403 }            gated or private: that status for every request of the repo
 *                                    (any other status, say 503, imitates an outage the same way);
 * plus, for the first two, `revisions` (names besides 'main' that serve the same files),
 * `ranges: false` (the CDN ignores Range for this repo and answers 200 with the whole file) and
 * `stallAfter: n` (a whole file's download sends its first n bytes, then nothing, and never ends:
 * a stalled connection; ranged reads are answered in full).
 * Options: `port` (the Hub's; the CDN takes a free one), `cors` (default true), and `throttle:
 * { bytesPerSecond, chunkSize }` to slow the CDN's bodies so tests can see progress and abort.
 * Returns { url, cdnUrl, requests, close() }; `requests` is the live log, { server: 'hub' | 'cdn',
 * method, path, range, host }, and can be emptied with requests.length = 0.
 */
export async function startFakeHub({ repos = {}, port = 0, cors = true, throttle = null } = {}) {
  const requests = [];
  const byHash = new Map(); // the CDN path's hash → { id, repo }
  for (const [id, repo] of Object.entries(repos)) byHash.set(repoSha(id).slice(0, 24), { id, repo });

  const state = { cdnUrl: '' };
  const log = (server, req) => requests.push({
    server, method: req.method, path: req.url, range: req.headers.range ?? null, host: req.headers.host ?? null,
  });
  const corsHeaders = () => (cors ? { 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': EXPOSED } : {});

  const hub = createServer((req, res) => {
    log('hub', req);
    handleHub(req, res, { repos, corsHeaders, cdnUrl: state.cdnUrl }).catch((error) => fail(res, error));
  });
  const cdn = createServer((req, res) => {
    log('cdn', req);
    handleCdn(req, res, { byHash, corsHeaders, throttle }).catch((error) => fail(res, error));
  });
  await Promise.all([listen(hub, port), listen(cdn, 0)]);
  state.cdnUrl = `http://127.0.0.1:${cdn.address().port}`;
  const url = `http://127.0.0.1:${hub.address().port}`;

  const close = async () => {
    for (const server of [hub, cdn]) server.closeAllConnections();
    await Promise.all([hub, cdn].map((server) => new Promise((done) => server.close(() => done()))));
  };
  return { url, cdnUrl: state.cdnUrl, requests, close };
}

function listen(server, port) {
  return new Promise((done, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => done());
  });
}

function fail(res, error) {
  if (!res.headersSent) {
    res.writeHead(500, { 'Content-Type': 'text/plain' });
    res.end(String(error?.stack ?? error));
  } else {
    res.destroy(error);
  }
}

/** A stable 40-hex "commit" for a repository, as the API's sha and X-Repo-Commit. */
function repoSha(id) {
  return createHash('sha1').update(`multihead fake hub ${id}`).digest('hex');
}

/** The repository's files: name → { size, bytes? , path? }. */
function repoFiles(repo) {
  const files = new Map();
  if (repo.files) {
    for (const [name, content] of Object.entries(repo.files)) {
      const bytes = Buffer.isBuffer(content) ? content : Buffer.from(String(content));
      files.set(name, { size: bytes.length, bytes });
    }
  } else if (repo.folder) {
    for (const entry of readdirSync(repo.folder, { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = join(repo.folder, entry.name);
      files.set(entry.name, { size: statSync(path).size, path });
    }
  }
  return files;
}

/** Splits '/a/b/resolve/main/x.json' into the id, the revision and the file; null if not that shape. */
function resolvePath(pathname) {
  const parts = pathname.split('/').slice(1).map(safeDecode);
  if (parts.includes(null)) return null;
  const at = parts[1] === 'resolve' ? 1 : parts[2] === 'resolve' ? 2 : -1;
  if (at < 0 || parts.length < at + 3) return null;
  return { id: parts.slice(0, at).join('/'), revision: parts[at + 1], file: parts.slice(at + 2).join('/') };
}

function apiPath(pathname) {
  const match = /^\/api\/models\/(.+)\/revision\/([^/]+)$/.exec(pathname);
  if (!match) return null;
  const [id, revision] = [safeDecode(match[1]), safeDecode(match[2])];
  return id === null || revision === null ? null : { id, revision };
}

function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

function sendError(res, status, code, message, headers) {
  const body = JSON.stringify({ error: message });
  res.writeHead(status, {
    ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body),
    // Header values must be Latin-1; a file name in the message may not be.
    ...(code ? { 'X-Error-Code': code, 'X-Error-Message': message.replace(/[^\x20-\x7e]/g, '?') } : {}),
  });
  res.end(body);
}

/** The repository and revision a request names, or the Hub's error answer for them. */
function lookUp(repos, id, revision) {
  const repo = Object.hasOwn(repos, id) ? repos[id] : null;
  if (!repo) return { status: 404, code: 'RepoNotFound', message: 'Repository not found' };
  if (repo.status === 401 || repo.status === 403) return { status: repo.status, code: 'GatedRepo', message: `Access to model ${id} is restricted.` };
  if (repo.status) return { status: repo.status, code: null, message: 'The fake Hub was told to fail' };
  const revisions = ['main', repoSha(id), ...(repo.revisions ?? [])];
  if (!revisions.includes(revision)) return { status: 404, code: 'RevisionNotFound', message: 'Invalid rev id' };
  return { repo };
}

async function handleHub(req, res, { repos, corsHeaders, cdnUrl }) {
  const headers = corsHeaders();
  if (req.method === 'OPTIONS') return preflight(res, headers);
  const { pathname } = new URL(req.url, 'http://hub');
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, null, 'Method not allowed', headers);

  const api = apiPath(pathname);
  if (api) {
    const found = lookUp(repos, api.id, api.revision);
    if (!found.repo) return sendError(res, found.status, found.code, found.message, headers);
    const sha = repoSha(api.id);
    const body = JSON.stringify({ _id: sha.slice(0, 24), id: api.id, sha, siblings: [...repoFiles(found.repo).keys()].map((rfilename) => ({ rfilename })) });
    res.writeHead(200, { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    return res.end(req.method === 'HEAD' ? undefined : body);
  }

  const target = resolvePath(pathname);
  if (!target) return sendError(res, 404, null, 'Not found', headers);
  const found = lookUp(repos, target.id, target.revision);
  if (!found.repo) return sendError(res, found.status, found.code, found.message, headers);
  const file = repoFiles(found.repo).get(target.file);
  if (!file) return sendError(res, 404, 'EntryNotFound', `Entry not found: ${target.file}`, headers);
  const sha = repoSha(target.id);
  const location = `${cdnUrl}/repos/${sha.slice(0, 24)}/${target.file.split('/').map(encodeURIComponent).join('/')}`;
  res.writeHead(302, {
    ...headers, Location: location, 'X-Repo-Commit': sha, 'X-Linked-Size': String(file.size), 'Content-Length': 0,
  });
  res.end();
}

function preflight(res, headers) {
  res.writeHead(204, { ...headers, 'Access-Control-Allow-Methods': 'GET, HEAD', 'Access-Control-Allow-Headers': 'Range', 'Access-Control-Max-Age': '0' });
  res.end();
}

/** One 'bytes=a-b', 'bytes=a-' or 'bytes=-n' range within `size`; 'none' to ignore it, 'unsatisfiable'. */
function parseRange(header, size) {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return 'none';
  let start, end;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    [start, end] = [Math.max(0, size - suffix), size - 1];
  } else {
    [start, end] = [Number(match[1]), match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)];
    if (match[2] !== '' && Number(match[2]) < start) return 'none'; // invalid: ignored, as HTTP says
  }
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

async function handleCdn(req, res, { byHash, corsHeaders, throttle }) {
  const headers = corsHeaders();
  if (req.method === 'OPTIONS') return preflight(res, headers);
  const { pathname } = new URL(req.url, 'http://cdn');
  const match = /^\/repos\/([0-9a-f]{24})\/(.+)$/.exec(pathname);
  const entry = match && byHash.get(match[1]);
  const name = match && safeDecode(match[2]);
  const file = entry && name !== null && !entry.repo.status ? repoFiles(entry.repo).get(name) : undefined;
  if (!file) return sendError(res, 404, null, 'Not found', headers);

  const etag = `"${createHash('sha1').update(`${entry.id}/${name}/${file.size}`).digest('hex')}"`;
  const common = { ...headers, 'Accept-Ranges': entry.repo.ranges === false ? 'none' : 'bytes', ETag: etag, 'Content-Type': 'application/octet-stream' };
  const range = entry.repo.ranges === false ? 'none' : parseRange(req.headers.range, file.size);
  if (range === 'unsatisfiable') {
    res.writeHead(416, { ...common, 'Content-Range': `bytes */${file.size}`, 'Content-Length': 0 });
    return res.end();
  }
  const [start, end] = range === 'none' ? [0, file.size - 1] : [range.start, range.end];
  const length = end - start + 1;
  res.writeHead(range === 'none' ? 200 : 206, {
    ...common, 'Content-Length': length, ...(range === 'none' ? {} : { 'Content-Range': `bytes ${start}-${end}/${file.size}` }),
  });
  if (req.method === 'HEAD' || length === 0) return res.end();
  const stall = range === 'none' && entry.repo.stallAfter !== undefined;
  await sendBytes(res, file, start, stall ? Math.min(end, start + entry.repo.stallAfter - 1) : end, throttle);
  if (!stall && !res.destroyed) res.end();
}

/** Writes bytes [start, end] of a file, in chunkSize pieces at bytesPerSecond when throttled. */
async function sendBytes(res, file, start, end, throttle) {
  const chunkSize = throttle?.chunkSize ?? 64 * 1024;
  const chunks = file.bytes ? sliceChunks(file.bytes, start, end, chunkSize) : createReadStream(file.path, { start, end, highWaterMark: chunkSize });
  let closed = false;
  res.once('close', () => { closed = true; });
  try {
    for await (const chunk of chunks) {
      if (closed) break;
      if (!res.write(chunk)) await drained(res);
      if (throttle?.bytesPerSecond) await new Promise((done) => setTimeout(done, (chunk.length / throttle.bytesPerSecond) * 1000));
    }
  } finally {
    chunks.destroy?.();
  }
}

/** Resolves when `res` drains or closes, removing both listeners either way (once() per write would pile them up). */
function drained(res) {
  return new Promise((done) => {
    const finish = () => {
      res.off('drain', finish);
      res.off('close', finish);
      done();
    };
    res.on('drain', finish);
    res.on('close', finish);
  });
}

function* sliceChunks(bytes, start, end, chunkSize) {
  for (let at = start; at <= end; at += chunkSize) yield bytes.subarray(at, Math.min(at + chunkSize, end + 1));
}

/** The CLI: every subfolder of a folder as multihead-test/<folder>. */
async function main(args) {
  const portAt = args.indexOf('--port');
  const port = portAt >= 0 ? Number(args[portAt + 1]) : 0;
  const root = args.find((arg, i) => !arg.startsWith('--') && args[i - 1] !== '--port');
  if (!root) {
    console.error('usage: node tests/hub/fake-hub.js <folder of model folders> [--port N]');
    process.exit(2);
  }
  const repos = {};
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.isDirectory()) repos[`multihead-test/${entry.name}`] = { folder: resolve(root, entry.name) };
  }
  const hub = await startFakeHub({ repos, port });
  console.log(`fake Hub at ${hub.url} (files from the CDN at ${hub.cdnUrl})`);
  for (const id of Object.keys(repos)) console.log(`  ${id}: ${hub.url}/${id}/resolve/main/config.json`);
  console.log(`load one with engine.loadModel('${Object.keys(repos)[0] ?? 'multihead-test/<folder>'}', { hubUrl: '${hub.url}' })`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
