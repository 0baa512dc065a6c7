// Paints many heatmaps without blocking the page. A big one takes tens of ms (a 1024 × 1024 head,
// about 60), and a view may hold hundreds: BERT-base's model view has 144, the four steps of
// Qwen2.5 at 1024 tokens 14 of that size. Queued paints run in slices of about SLICE_MS, one
// slice a frame, so typing, hovering and scrolling go on between them; starting again abandons
// what is left. The paints of elements on screen go first: BERT-base's model view shows about 24
// of its 144 heads at once, so what the reader sees is painted in a sixth of the time. aria-busy
// marks the view until every paint is done, and data-painting="offscreen" once only those off
// screen are left (tests wait for them).
const SLICE_MS = 12;

/** Whether `element` is in the viewport now. */
function onScreen(element) {
  const box = element.getBoundingClientRect();
  return box.bottom > 0 && box.right > 0 && box.top < innerHeight && box.left < innerWidth && box.width > 0;
}

export function paintQueue(root) {
  let jobs = [], next = 0, frame = 0, visible = 0;
  function slice() {
    frame = 0;
    const start = performance.now();
    while (next < jobs.length && performance.now() - start < SLICE_MS) jobs[next++]();
    if (next >= visible && next < jobs.length && root.dataset.painting !== 'offscreen') root.dataset.painting = 'offscreen';
    if (next < jobs.length) frame = requestAnimationFrame(slice); // one slice a frame, so each frame is painted
    else done();
  }
  function done() {
    root.removeAttribute('aria-busy');
    delete root.dataset.painting;
  }
  return {
    /**
     * Paints `list` (functions) from now on, instead of whatever was still queued: in order, but
     * with those whose element (`elements[i]` for list[i], when given) is on screen first.
     */
    start(list, elements = null) {
      cancelAnimationFrame(frame);
      const order = list.map((_, i) => i);
      if (elements) {
        const shown = elements.map(onScreen);
        order.sort((a, b) => Number(shown[b]) - Number(shown[a]) || a - b);
        visible = shown.filter(Boolean).length;
      } else visible = list.length;
      [jobs, next] = [order.map((i) => list[i]), 0];
      root.setAttribute('aria-busy', 'true');
      root.dataset.painting = 'screen';
      slice();
    },
    /** Drops what is queued. */
    cancel() {
      cancelAnimationFrame(frame);
      [jobs, next, frame, visible] = [[], 0, 0, 0];
      done();
    },
  };
}
