// Reading the bytes of a download or a file as they arrive: chunk by chunk (the weights, which
// stream on into WASM memory), a prefix (a safetensors header, an error page), or a whole small
// file up to a stated size (the JSON files), never more. A stream that breaks off gets an Error
// naming the file and the cause, not the fetch implementation's bare "terminated"; an abort
// reaches the caller untouched. It knows nothing of what the bytes mean.

/**
 * Reads a ReadableStream's chunks as they arrive, skipping the first `skip` bytes, and cancels the
 * stream when the reader stops early (an error, an abort), so no download runs on unseen. `name`
 * names the file in the error of a stream that breaks off.
 */
export async function* streamChunks(body, skip, signal, name) {
  const reader = body.getReader();
  const abort = () => reader.cancel(signal.reason).catch(() => {});
  signal?.addEventListener('abort', abort, { once: true });
  let done = false;
  try {
    for (;;) {
      signal?.throwIfAborted();
      let next;
      try {
        next = await reader.read();
      } catch (error) {
        signal?.throwIfAborted();
        throw brokenOff(error, name);
      }
      signal?.throwIfAborted();
      if (next.done) {
        done = true;
        return;
      }
      const { value } = next;
      if (skip >= value.byteLength) {
        skip -= value.byteLength;
        continue;
      }
      yield skip ? value.subarray(skip) : value;
      skip = 0;
    }
  } finally {
    signal?.removeEventListener('abort', abort);
    // Only a body not read to its end is cancelled: Chromium reports cancelling a finished one
    // as an aborted request.
    if (!done) reader.cancel().catch(() => {});
  }
}

/**
 * The first `count` bytes of a stream (fewer if it ends first), then cancels the rest, so a
 * larger answer is never held. Rejects with the stream's error (an AbortError when aborted).
 */
export async function readPrefix(stream, count) {
  const reader = stream.getReader();
  const out = new Uint8Array(count);
  let filled = 0;
  try {
    while (filled < count) {
      const { done, value } = await reader.read();
      if (done) return out.subarray(0, filled);
      const take = Math.min(value.length, count - filled);
      out.set(value.subarray(0, take), filled);
      filled += take;
    }
    return out;
  } finally {
    if (filled >= count) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/**
 * A whole file from `chunks` (an async iterable of Uint8Arrays, as a byte source's chunks() or
 * streamChunks give), refused with a RangeError as soon as it passes `limit` bytes: the source is
 * stopped there, so an endless answer costs `limit` bytes, not the heap. `why` follows the limit
 * in the message (where it comes from).
 */
export async function readWhole(chunks, name, limit, why = '') {
  const parts = [];
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.byteLength;
    if (total > limit) throw tooLarge(name, null, limit, why);
    parts.push(chunk);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/**
 * The body of `response` whole, refused (a RangeError naming `name`) at once when its
 * Content-Length passes `limit` bytes, else as soon as more than that has arrived.
 */
export async function readBody(response, name, limit, why, signal) {
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > limit) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge(name, declared, limit, why, 'bytes (its Content-Length)');
  }
  return response.body ? readWhole(streamChunks(response.body, 0, signal, name), name, limit, why) : new Uint8Array(0);
}

/**
 * The RangeError for a file over its limit of `limit` bytes: its `size` where known (in `unit`s:
 * a Content-Length, a Blob's size, a string's characters), or null once more has arrived.
 */
export function tooLarge(name, size, limit, why = '', unit = 'bytes') {
  const is = size === null ? `is more than ${limit} bytes (${mebibytes(limit)}), the most` : `is ${size} ${unit}, more than the ${limit} bytes (${mebibytes(limit)})`;
  return new RangeError(`${name} ${is} multihead reads of it${why}`);
}

/** A stream's error as it should reach the caller: an abort untouched, a broken download named. */
export function brokenOff(error, name) {
  if (error?.name === 'AbortError') return error;
  // Node's fetch says "terminated" and keeps the reason in `cause`; browsers give one message.
  const cause = error?.cause?.message ?? error?.cause?.code;
  return new Error(`${name}: the download broke off: ${error?.message ?? String(error)}${cause ? ` (${cause})` : ''}`);
}

const mebibytes = (bytes) => `${+(bytes / 2 ** 20).toFixed(2)} MiB`;
