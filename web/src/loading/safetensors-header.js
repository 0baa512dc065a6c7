// Reading a safetensors header: the 8-byte little-endian length N and the N bytes of JSON after
// it, by range requests over HTTP or from the start of a stream, reading no further than that. The
// length is refused above the engine's limit before anything more is read. This module does not
// parse the JSON (C++ does, with config.json) and knows nothing of the Hub beyond what a caller's
// `get` function does.
import { brokenOff, readPrefix } from './streams.js';

/** The engine's kMaxSafetensorsHeaderBytes (cpp/include/multihead/safetensors.h): 16 MiB. */
export const MAX_SAFETENSORS_HEADER_BYTES = 16 * 1024 * 1024;

/** "bytes a-b/total" → { start, end, total } (total null for '*'); null when absent or malformed. */
function contentRange(response) {
  const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(response.headers.get('content-range') ?? '');
  if (!match) return null;
  return { start: Number(match[1]), end: Number(match[2]), total: match[3] === '*' ? null : Number(match[3]) };
}

/**
 * One single-range request for bytes [start, start + length). Returns the response when it is a
 * 206 covering exactly that range, or a 200 (a server that ignores Range sends the whole file from
 * byte 0); anything else is an Error.
 */
async function rangeRequest(get, start, length, signal, label) {
  const range = `bytes=${start}-${start + length - 1}`;
  let response;
  try {
    response = await get(range, signal);
  } catch (error) {
    if (error.status === 416) throw new Error(`${label}: the file is shorter than ${start + length} bytes (HTTP 416 for ${range}), too short for a safetensors file`);
    throw error;
  }
  if (response.status === 200) return response;
  const answered = contentRange(response);
  const declared = response.headers.get('content-length');
  if (response.status === 206 && answered?.start === start && answered.total !== null &&
      answered.end === answered.total - 1 && answered.end < start + length - 1) {
    // A range past the end is cut to the file, as HTTP says: the file is shorter than its header.
    await response.body?.cancel().catch(() => {});
    throw new Error(`${label}: the file is ${answered.total} bytes, shorter than the ${start + length} bytes its header needs`);
  }
  if (response.status !== 206 || (answered && (answered.start !== start || answered.end !== start + length - 1)) ||
      (declared !== null && Number(declared) !== length)) {
    await response.body?.cancel().catch(() => {});
    const got = response.status !== 206 ? `HTTP ${response.status}` : answered ? `bytes ${answered.start}-${answered.end}` : `${declared} bytes`;
    throw new Error(`${label}: the server answered the range ${range} with ${got}`);
  }
  return response;
}

/** Exactly `count` bytes of a response's body, naming the file when it is short or breaks off. */
async function readExactly(response, count, label, what) {
  let bytes = new Uint8Array(0);
  if (response.body) {
    try {
      // An answer that declares exactly these bytes is read whole by arrayBuffer(), which lets the
      // browser finish the request: releasing a stream reader, even at its end, can make Chromium
      // drop a request that has not yet completed on its side and report it aborted.
      bytes = Number(response.headers.get('content-length')) === count
        ? new Uint8Array(await response.arrayBuffer()) : await readPrefix(response.body, count);
    } catch (error) {
      throw brokenOff(error, label);
    }
  }
  if (bytes.length !== count) throw new Error(`${label}: ${what} has ${bytes.length} bytes, expected ${count}`);
  return bytes;
}

/**
 * The first 8 + N bytes of a safetensors file (the 8-byte little-endian header length N, then the
 * JSON header), by two single-Range requests, before a single weight byte is fetched. A single
 * Range header is CORS-safelisted, so no preflight is needed: no other header is added. N above
 * MAX_SAFETENSORS_HEADER_BYTES is refused. `get(range, signal)` fetches the file with that Range
 * header and resolves to an ok Response, or throws an Error naming the file (with `status` for an
 * HTTP answer); `label` names the file in messages.
 */
export async function readSafetensorsHeader(get, { label = 'model.safetensors', signal } = {}) {
  const lengthResponse = await rangeRequest(get, 0, 8, signal, label);
  if (lengthResponse.status === 200) return readSafetensorsHeaderFromStream(lengthResponse.body, label);
  const first = await readExactly(lengthResponse, 8, label, 'the answer to bytes=0-7');
  const headerLength = checkedHeaderLength(first, contentRange(lengthResponse)?.total ?? null, label);
  const headerResponse = await rangeRequest(get, 8, headerLength, signal, label);
  const out = new Uint8Array(8 + headerLength);
  if (headerResponse.status === 200) {
    // Range worked once and not twice (a server behind a changing proxy): take the prefix.
    out.set(await readExactly(headerResponse, 8 + headerLength, label, 'the file'));
    return out;
  }
  out.set(first, 0);
  out.set(await readExactly(headerResponse, headerLength, label, `the answer to bytes=8-${8 + headerLength - 1}`), 8);
  return out;
}

/**
 * The same 8 + N bytes from a stream that starts at byte 0 of the file (a cached response's
 * body, or a server's answer that ignored Range), reading no further and cancelling the rest.
 */
export async function readSafetensorsHeaderFromStream(stream, label = 'model.safetensors') {
  const reader = stream.getReader();
  const chunks = [];
  let filled = 0;
  let needed = 8;
  let done = false;
  try {
    while (filled < needed) {
      let next;
      try {
        next = await reader.read();
      } catch (error) {
        throw brokenOff(error, label);
      }
      done = next.done;
      if (done) throw new Error(`${label}: the file is ${filled} bytes, shorter than the ${needed} bytes its header needs`);
      chunks.push(next.value);
      filled += next.value.length;
      if (needed === 8 && filled >= 8) needed = 8 + checkedHeaderLength(concat(chunks, 8), null, label);
    }
    return concat(chunks, needed);
  } finally {
    // The rest of the file is not wanted; a stream already at its end is left alone (see readPrefix).
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

function concat(chunks, count) {
  const out = new Uint8Array(count);
  let at = 0;
  for (const chunk of chunks) {
    if (at >= count) break;
    const take = Math.min(chunk.length, count - at);
    out.set(chunk.subarray(0, take), at);
    at += take;
  }
  return out;
}

/** N from the first 8 bytes, refused above the engine's limit or past the end of the file. */
function checkedHeaderLength(first, total, label) {
  const view = new DataView(first.buffer, first.byteOffset, 8);
  const length = view.getUint32(0, true) + view.getUint32(4, true) * 2 ** 32; // exact below 2^53, and larger is refused anyway
  if (length > MAX_SAFETENSORS_HEADER_BYTES) {
    throw new RangeError(`${label}: the header length ${length} is above the limit of ${MAX_SAFETENSORS_HEADER_BYTES} bytes ` +
      '(16 MiB); this is not a safetensors file multihead can read');
  }
  if (length === 0) throw new RangeError(`${label}: the header length is 0; a safetensors file starts with a JSON header`);
  if (total !== null && 8 + length > total) {
    throw new RangeError(`${label}: the header length ${length} is larger than the rest of the file (${total - 8} bytes)`);
  }
  return length;
}
