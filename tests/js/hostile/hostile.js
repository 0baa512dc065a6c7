// Shared by the hostile suite: arguments that run code of their own while the engine reads them.

/**
 * A copy of `values` (an Array, or a typed array's values as an Array) whose element `index` is a
 * getter: the first read returns the value; every later read calls `later()` first. An engine that
 * reads each element once, before touching WASM, never runs `later`; one that reads the array again
 * while copying it into WASM runs it in the middle of that copy.
 */
export function arrayWithGetter(values, index, later) {
  const array = Array.from(values);
  let reads = 0;
  Object.defineProperty(array, index, {
    enumerable: true,
    get() {
      if (reads++ > 0) later();
      return values[index];
    },
  });
  return { array, reads: () => reads };
}

/** Bytes malloc has handed out in this engine's WASM module. */
export const used = (engine) => engine.memory().usedBytes;

/** Runs `call` `times` times, expecting each to throw; returns the distinct messages. */
export function failures(call, times) {
  const messages = new Set();
  for (let i = 0; i < times; i++) {
    try {
      call(i);
    } catch (error) {
      messages.add(error.message);
      continue;
    }
    throw new Error(`call ${i} did not throw`);
  }
  return [...messages];
}

/** Awaits `call(i)` `times` times, one after another, expecting each to reject; returns the distinct messages. */
export async function rejections(call, times) {
  const messages = new Set();
  for (let i = 0; i < times; i++) {
    const outcome = await call(i).then(() => 'resolved', (error) => messages.add(error.message));
    if (outcome === 'resolved') throw new Error(`call ${i} did not reject`);
  }
  return [...messages];
}
