// Where model.safetensors' bytes come from, behind one small interface, so the weights can be
// streamed into WASM memory from any of them without JavaScript ever holding the whole file:
//
//   source.header(signal)        → Promise<Uint8Array>: the first 8 + N bytes (the header length
//                                  and the JSON header), reading no further than that
//   source.chunks(start, signal) → AsyncIterable<Uint8Array>: the bytes from `start` to the end
//
// Sources: bytes the caller already holds, a Blob or File (a browser's local files), a file in
// Node, and a URL (sources.js builds a Hub file's source from this one and the cache). The
// header is found by safetensors-header.js; nothing here parses its JSON: C++ does, when
// weights-stream.js hands it over.
import { bytesOf, checkBytes, describe } from '../check.js';
import { readSafetensorsHeader, readSafetensorsHeaderFromStream } from './safetensors-header.js';
import { streamChunks } from './streams.js';

// How much one read from a file or Blob takes: large enough that per-call overhead vanishes,
// small enough to be "one download chunk" next to a model's hundreds of megabytes.
const CHUNK_BYTES = 4 << 20;

/** Bytes in memory (an ArrayBuffer, a typed array or a DataView): each read re-checks them. */
function bytesSource(value, name) {
  checkBytes(name, value);
  // Read through bytesOf each time: the caller may detach or transfer the buffer while loading.
  const current = () => checkBytes(name, value);
  return withHeader(name, {
    async *chunks(start) {
      for (let at = start; ; at += CHUNK_BYTES) {
        const bytes = current();
        if (at >= bytes.byteLength) return;
        yield bytes.subarray(at, Math.min(at + CHUNK_BYTES, bytes.byteLength));
      }
    },
  });
}

/** A Blob or File, read in slices. */
function blobSource(blob, name) {
  return withHeader(name, {
    async *chunks(start, signal) {
      for (let at = start; at < blob.size; at += CHUNK_BYTES) {
        signal?.throwIfAborted();
        yield await readBlob(blob, name, at, Math.min(at + CHUNK_BYTES, blob.size));
      }
    },
  });
}

/** Bytes [start, end) of a Blob; an error names the file. */
export async function readBlob(blob, name, start = 0, end = blob.size) {
  try {
    return new Uint8Array(await blob.slice(start, end).arrayBuffer());
  } catch (error) {
    throw new Error(`cannot read ${name} from the file "${blob.name ?? 'blob'}": ${error.message}`);
  }
}

/** A file in Node, read through a file handle; `url` is a file: URL. */
export function nodeFileSource(url, name, fs) {
  const failed = (error) => Object.assign(new Error(`cannot read ${name} from ${url}: ${error.message}`), { code: error.code });
  const open = () => fs.open(url, 'r').catch((error) => {
    throw failed(error);
  });
  const readAt = async (handle, start, length) => {
    const buffer = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(buffer, filled, length - filled, start + filled).catch((error) => {
        throw failed(error);
      });
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  };
  return withHeader(name, {
    async *chunks(start, signal) {
      const handle = await open();
      try {
        for (let at = start; ; at += CHUNK_BYTES) {
          signal?.throwIfAborted();
          const bytes = await readAt(handle, at, CHUNK_BYTES);
          if (bytes.byteLength === 0) return;
          yield bytes;
        }
      } finally {
        await handle.close();
      }
    },
  });
}

/**
 * A file over HTTP(S): `get(range, signal)` fetches it with that Range header (null: the whole
 * file) and resolves to an ok Response, or throws a message naming the file. The header is read by
 * range requests, so nothing of the weights is downloaded before C++ has checked it.
 */
export function urlSource(get, name) {
  return {
    header: (signal) => readSafetensorsHeader(get, { label: name, signal }),
    async *chunks(start, signal) {
      yield* streamChunks((await get(null, signal)).body, start, signal, name);
    },
  };
}

/** Adds header() to a source that has chunks(): the header read from the first chunks. */
function withHeader(name, source) {
  source.header = (signal) => readSafetensorsHeaderFromStream(readableStream(source.chunks(0, signal)), name);
  return source;
}

/** A ReadableStream over an async iterable of Uint8Arrays; cancelling it ends the iteration. */
function readableStream(iterable) {
  const iterator = iterable[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/** A byte source for bytes or a Blob; anything else is a TypeError naming `name`. */
export function valueSource(value, name) {
  if (isBlob(value)) return blobSource(value, name);
  if (bytesOf(value) !== null) return bytesSource(value, name);
  throw new TypeError(`${name} must be an ArrayBuffer, a Uint8Array, a Blob or File, or a URL, got ${describe(value)}`);
}

function isBlob(value) {
  return typeof Blob === 'function' && value instanceof Blob;
}
