// Streaming model.safetensors into WASM memory: the header (byte-sources.js reads it first, by a
// range request for a Hub file) is checked by C++ with config.json before any weight byte is
// read; then the data
// section flows through one reusable chunk buffer on the WASM heap into the native ModelLoader,
// which converts F16/BF16 to F32 straight into the model's own buffers. JavaScript never holds
// more than one chunk of the file, and an abort or an error frees everything the load made.
//
// It does not know where bytes come from (byte-sources.js does) nor what a model is (model.js).
import { heapBuffer, orThrow } from './wasm-glue.js';

// The WASM-side buffer each chunk is copied into before the loader consumes it.
const WASM_CHUNK_BYTES = 1 << 20;

/**
 * Makes the native loader for config.json's text and the header bytes. C++ checks every tensor
 * against the config and the engine's memory limit here, and allocates the model's buffers. The
 * caller owns the loader (delete() it); module.loaderInfo(loader) gives { dataStart, fileSize,
 * weightBytes, config }.
 */
export function createLoader(module, configText, header) {
  return orThrow(module.createModelLoader(configText, header));
}

/**
 * Feeds the data section (bytes info.dataStart to info.fileSize) from `source` into `loader`,
 * then returns the finished native Model. onProgress(loaded, total) follows the file's bytes.
 */
export async function streamInto(module, loader, info, source, { signal, onProgress } = {}) {
  const { dataStart, fileSize } = info;
  // >>> 0: a heap above 2 GiB hands out addresses that read as negative 32-bit integers.
  const chunk = module._malloc(WASM_CHUNK_BYTES) >>> 0;
  if (!chunk) throw new RangeError('out of memory: no room on the WASM heap for a 1 MiB load buffer');
  let loaded = dataStart;
  try {
    onProgress?.(loaded, fileSize);
    // Read to the source's end, not to fileSize: bytes past what the header describes reach the
    // loader, which refuses them, and a download is never cut off unfinished.
    for await (const piece of source.chunks(dataStart, signal)) {
      signal?.throwIfAborted();
      for (let at = 0; at < piece.byteLength; at += WASM_CHUNK_BYTES) {
        const part = piece.subarray(at, Math.min(at + WASM_CHUNK_BYTES, piece.byteLength));
        // The heap is fetched for every copy: the loader may grow it, which replaces its buffer.
        new Uint8Array(heapBuffer(module)).set(part, chunk);
        orThrow(module.loaderWrite(loader, chunk, part.byteLength));
      }
      loaded += piece.byteLength;
      onProgress?.(Math.min(loaded, fileSize), fileSize);
    }
  } finally {
    module._free(chunk);
  }
  signal?.throwIfAborted();
  if (loaded < fileSize) {
    throw new Error(`model.safetensors: the file ended after ${loaded} bytes, but its header describes ${fileSize}`);
  }
  return orThrow(module.loaderFinish(loader));
}
