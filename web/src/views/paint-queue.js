// Paints many heatmaps without blocking the page. A big one takes tens of ms (a 1024 × 1024 head,
// about 60), and a view may hold hundreds: BERT-base's model view has 144, the four steps of
// Qwen2.5 at 1024 tokens 14 of that size. Queued paints run in slices of about SLICE_MS, one
// slice a frame, so typing, hovering and scrolling go on between them; starting again abandons
// what is left. aria-busy marks the view meanwhile (and tests wait for it to go).
const SLICE_MS = 12;

export function paintQueue(root) {
  let jobs = [], next = 0, frame = 0;
  function slice() {
    frame = 0;
    const start = performance.now();
    while (next < jobs.length && performance.now() - start < SLICE_MS) jobs[next++]();
    if (next < jobs.length) frame = requestAnimationFrame(slice); // one slice a frame, so each frame is painted
    else root.removeAttribute('aria-busy');
  }
  return {
    /** Paints `list` (functions), in order, from now on, instead of whatever was still queued. */
    start(list) {
      cancelAnimationFrame(frame);
      [jobs, next] = [list, 0];
      root.setAttribute('aria-busy', 'true');
      slice();
    },
    /** Drops what is queued. */
    cancel() {
      cancelAnimationFrame(frame);
      [jobs, next, frame] = [[], 0, 0];
      root.removeAttribute('aria-busy');
    },
  };
}
