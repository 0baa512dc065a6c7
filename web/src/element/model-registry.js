// The models <multihead-view> elements share on a page: one engine, and one loaded model per
// source with the elements using it, so elements naming the same model share one download and one
// copy in memory. A model no element uses is freed after `releaseMs`, not at once, so an element
// moved in the page (disconnected, then connected again) keeps its model, and a download nobody
// waits for any more is stopped. No DOM: the element gives it its engine loader.

/**
 * A registry on `loadEngine` (called once, when a first model is asked for; a failure lets a
 * later request try again). Sources are modelSource()'s: { builtin } | { hub, hubUrl } | { url }.
 */
export function createModelRegistry({ loadEngine, releaseMs = 5000 }) {
  let engine = null;
  const models = new Map(); // key → { loading, users: Set, controller, timer }

  /** The model `source` names for `user`, loaded once for every user that names it; `user`'s other models are released. */
  function acquire(source, user) {
    const key = JSON.stringify(source);
    release(user, key);
    let entry = models.get(key);
    if (!entry) {
      engine ??= loadEngine().catch((error) => {
        engine = null;
        throw error;
      });
      const controller = new AbortController();
      const options = { signal: controller.signal, ...(source?.hub ? { hubUrl: source.hubUrl } : {}) };
      const loading = engine.then((e) => e.loadModel(source.builtin ? source : source.hub ?? source.url, options));
      entry = { loading, users: new Set(), controller, timer: 0 };
      loading.catch(() => models.get(key) === entry && models.delete(key));
      models.set(key, entry);
    }
    clearTimeout(entry.timer);
    entry.users.add(user);
    return entry.loading;
  }

  /** `user` no longer uses its models (but the one keyed `keep`); one that nobody uses is freed soon. */
  function release(user, keep = null) {
    for (const [key, entry] of models) {
      if (key === keep || !entry.users.delete(user) || entry.users.size) continue;
      entry.timer = setTimeout(() => {
        if (entry.users.size || models.get(key) !== entry) return;
        models.delete(key);
        entry.controller.abort(); // a download still running stops, and frees what it loaded
        entry.loading.then((model) => model.dispose(), () => {});
      }, releaseMs);
    }
  }

  /** How many models are held, loading or loaded (for tests). */
  const size = () => models.size;

  return { acquire, release, size };
}
