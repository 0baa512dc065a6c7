// The page's state in one store of slices, each written by one reducer only: settings (what the
// URL encodes, state/settings.js), session and result (the worker's model, requests and answers,
// session.js), and ui (pointer, focus and what is not in the URL, state/ui.js). Code changes the
// state only by dispatching an action, a plain object named by its `type`; every reducer sees
// every action and the whole state before it. Nothing here touches the DOM.
// Listeners run once after a burst of dispatches (a microtask later), with the state as it is
// then: the renderers draw once per burst, and the session decides once what to ask next.

/** A store over `reducers`, { slice: (slice | undefined, action, state) → slice }. */
export function createStore(reducers) {
  const names = Object.keys(reducers);
  let state = Object.freeze(Object.fromEntries(names.map((name) => [name, reducers[name](undefined, { type: 'init' }, {})])));
  const listeners = [];
  let scheduled = false;

  function dispatch(action) {
    const before = state;
    const after = Object.fromEntries(names.map((name) => [name, reducers[name](before[name], action, before)]));
    if (names.every((name) => after[name] === before[name])) return;
    state = Object.freeze(after);
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(notify);
    }
  }

  function notify() {
    scheduled = false;
    // A listener may dispatch: those who follow it see the newer state, and everyone runs again.
    for (const listener of listeners) listener(state);
  }

  return {
    dispatch,
    get state() {
      return state;
    },
    /** Calls `listener(state)` after each burst of changes, in the order listeners were added. */
    subscribe(listener) {
      listeners.push(listener);
    },
  };
}

/** A slice with `patch` applied, or the same slice when no field would change (so nothing redraws). */
export function patched(slice, patch) {
  return Object.entries(patch).every(([key, value]) => Object.is(slice[key], value)) ? slice : Object.freeze({ ...slice, ...patch });
}
