// Paints many heatmaps without blocking the page. A big one takes tens of ms (a 1024 × 1024 head,
// about 60), and a view may hold hundreds: BERT-base's model view has 144, the four steps of
// Qwen2.5 at 1024 tokens 14 of that size. Queued paints run in slices of about SLICE_MS, one
// slice a frame, so typing, hovering and scrolling go on between them; starting again abandons
// what is left. The paints of elements on screen go first: BERT-base's model view shows about 24
// of its 144 heads at once, so what the reader sees is painted in a sixth of the time. Elements
// whose data is still to come (a streamed run's later layers) are `waiting`: aria-busy marks the
// view until every paint is done and nothing waits, and data-painting="offscreen" once what is
// left, painted or awaited, is off screen (tests wait for it). Which elements are on screen is
// what an IntersectionObserver said at the last frame: asking the layout instead, after the caller
// changed the page (the model view's badges), would lay it out there and then (16 ms for
// BERT-base's). The first slice runs as the caller draws, for what is on screen only.
const SLICE_MS = 12;

/** Whether `element` is in the viewport now, from its layout. */
function onScreen(element) {
  const box = element.getBoundingClientRect();
  return box.bottom > 0 && box.right > 0 && box.top < innerHeight && box.left < innerWidth && box.width > 0;
}

export function paintQueue(root) {
  let jobs = [], next = 0, frame = 0, visible = 0, waiting = { any: false, shown: false };
  // element → whether the observer last saw it on screen (undefined until it first says)
  const observed = new Map();
  const observer = typeof IntersectionObserver === 'function' ? new IntersectionObserver((entries) => {
    for (const entry of entries) if (observed.has(entry.target)) observed.set(entry.target, entry.isIntersecting);
  }) : null;
  const shown = (element) => observed.get(element) ?? onScreen(element);
  /** Observes `elements` from now on, and no others. */
  function watch(elements) {
    if (!observer) return;
    const now = new Set(elements);
    for (const element of observed.keys()) {
      if (!now.has(element)) {
        observer.unobserve(element);
        observed.delete(element);
      }
    }
    for (const element of now) {
      if (!observed.has(element)) {
        observed.set(element, undefined);
        observer.observe(element);
      }
    }
  }
  // Paints until `limit` or for SLICE_MS, then goes on at the next frame.
  function slice(limit = jobs.length) {
    frame = 0;
    const start = performance.now();
    while (next < Math.min(limit, jobs.length) && performance.now() - start < SLICE_MS) jobs[next++]();
    if (next < jobs.length) frame = requestAnimationFrame(() => slice()); // one slice a frame, so each frame is painted
    if (next >= jobs.length && !waiting.any) return done();
    const painting = next >= visible && !waiting.shown ? 'offscreen' : 'screen';
    if (root.dataset.painting !== painting) root.dataset.painting = painting;
    return undefined;
  }
  function done() {
    root.removeAttribute('aria-busy');
    delete root.dataset.painting;
  }
  return {
    /**
     * Paints `list` (functions) from now on, instead of whatever was still queued: in order, but
     * with those whose element (`elements[i]` for list[i], when given) is on screen first. The
     * elements in `awaited` have nothing to paint yet: the view stays busy until a start without them.
     */
    start(list, elements = null, awaited = []) {
      cancelAnimationFrame(frame);
      const order = list.map((_, i) => i);
      if (elements) {
        watch([...elements, ...awaited]);
        const on = elements.map(shown);
        order.sort((a, b) => Number(on[b]) - Number(on[a]) || a - b);
        visible = on.filter(Boolean).length;
      } else visible = list.length;
      [jobs, next] = [order.map((i) => list[i]), 0];
      waiting = { any: awaited.length > 0, shown: awaited.some(shown) };
      root.setAttribute('aria-busy', 'true');
      root.dataset.painting = 'screen';
      // The first slice paints now, as the caller draws, but only what is on screen: the others
      // wait for the next frame (a streamed run's last layers, far down, add nothing to this one).
      slice(visible);
    },
    /** Drops what is queued, and stops watching its elements. */
    cancel() {
      cancelAnimationFrame(frame);
      [jobs, next, frame, visible, waiting] = [[], 0, 0, 0, { any: false, shown: false }];
      observer?.disconnect();
      observed.clear();
      done();
    },
  };
}
