// A small static file server: serves one directory tree over HTTP on 127.0.0.1, for the browser
// tests that serve something other than the built page (`npm start` and the page's tests use
// `vite preview`, tests/e2e/page-server.js): the repository, a host without isolation, a page
// with a test's headers. `node tools/serve.js [root=.] [port=8080]` serves and prints the URL.
// It serves files and a directory's index.html only, with single byte ranges (the engine reads a
// safetensors header by a range request): no listings, no caching, no HTTPS. Browsers
// need it because they refuse ES modules and .wasm fetches from file:// URLs. By default its pages
// are cross-origin isolated (COOP and COEP headers), which browsers require before they share
// memory with workers, so the engine can use threads; { isolated: false } serves a page as most
// hosts do. Every response may be embedded by other origins (CORP cross-origin), so an isolated
// page of one server can load files from another. { headers } adds headers to every response
// (a test's Content-Security-Policy).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  // WebAssembly.instantiateStreaming rejects any other type for .wasm.
  '.wasm': 'application/wasm',
  '.safetensors': 'application/octet-stream',
  '.bin': 'application/octet-stream',
};

const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

/** Serves `root` until close(); port 0 picks a free port. Resolves to { url, close() }. */
export function startServer({ root, port = 0, host = '127.0.0.1', isolated = true, headers = {} }) {
  const base = resolve(root);
  const server = createServer((request, response) => {
    response.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    if (isolated) for (const [name, value] of Object.entries(ISOLATION)) response.setHeader(name, value);
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    respond(base, request, response).catch((error) => {
      if (!response.headersSent) send(response, 500, `Internal error: ${error.message}`);
      else response.destroy(error);
    });
  });
  return new Promise((ready, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      const url = `http://${host}:${server.address().port}/`;
      // closeAllConnections: browsers keep idle connections alive, which would hold close() open.
      const close = () => new Promise((done) => { server.close(done); server.closeAllConnections(); });
      ready({ url, close });
    });
  });
}

async function respond(base, request, response) {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return send(response, 405, `${request.method} is not supported`, { Allow: 'GET, HEAD' });
  }
  let pathname;
  try {
    pathname = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
  } catch {
    return send(response, 400, `Malformed URL: ${request.url}`);
  }
  let file = insideRoot(base, pathname);
  if (file === null) return send(response, 403, `Outside the served directory: ${request.url}`);
  let info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    // Without the trailing slash, the index page's relative URLs would resolve one level up.
    if (!pathname.endsWith('/')) return send(response, 301, 'Moved', { Location: `${pathname}/` });
    file = join(file, 'index.html');
    info = await stat(file).catch(() => null);
  }
  if (!info?.isFile()) return send(response, 404, `Not found: ${request.url}`);
  const range = parseRange(request.headers.range, info.size);
  if (range === 'unsatisfiable') return send(response, 416, 'Range Not Satisfiable', { 'Content-Range': `bytes */${info.size}` });
  const { start, end } = range ?? { start: 0, end: info.size - 1 };
  response.writeHead(range ? 206 : 200, {
    'Content-Type': MIME_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': end - start + 1,
    'Accept-Ranges': 'bytes',
    ...(range ? { 'Content-Range': `bytes ${start}-${end}/${info.size}` } : {}),
    'Cache-Control': 'no-store',
  });
  if (request.method === 'HEAD' || end < start) return response.end();
  createReadStream(file, { start, end }).on('error', (error) => response.destroy(error)).pipe(response);
}

/**
 * One byte range of a `Range` header ("bytes=a-b", "bytes=a-", "bytes=-n") within a file of
 * `size` bytes: { start, end } inclusive, 'unsatisfiable', or null to send the whole file (no
 * header, several ranges, or a form this server does not read, which HTTP lets a server ignore).
 */
export function parseRange(header, size) {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const [start, end] = match[1] === ''
    ? [Math.max(0, size - Number(match[2])), size - 1]
    : [Number(match[1]), Math.min(match[2] === '' ? size - 1 : Number(match[2]), size - 1)];
  return start >= size || start > end ? 'unsatisfiable' : { start, end };
}

/** The path `pathname` names inside `base`, or null when it escapes `base`. */
function insideRoot(base, pathname) {
  // URL parsing already removed plain "..", but a decoded "..%2f" still climbs, hence this check.
  if (pathname.includes('\0')) return null;
  const path = resolve(base, `.${pathname}`);
  return path === base || path.startsWith(base + sep) ? path : null;
}

function send(response, status, message, headers = {}) {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
  response.end(`${message}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [root = '.', port = '8080'] = process.argv.slice(2);
  try {
    const { url } = await startServer({ root, port: Number(port) });
    console.log(`Serving ${resolve(root)} at ${url} (Ctrl+C stops)`);
  } catch (error) {
    const hint = error.code === 'EADDRINUSE' ? ` Port ${port} is in use: pass another, e.g. \`npm start -- ${Number(port) + 1}\`.` : '';
    console.error(`serve: ${error.message}.${hint}`);
    process.exit(1);
  }
}
