// A Web Worker with a time limit on each request: the page's defence against a run that never
// ends. The worker tokenizes with whatever tokenizer.json the model brings, and a hostile one (a
// Split pattern such as (a+)+$ on 'aaa…a!') can backtrack for ever inside one call. Such a worker
// cannot be interrupted, only terminated, so a request over its limit, or one the user cancels,
// terminates the worker and starts a fresh one (which loads the engine and the model again).
// It knows the page's protocol (one { type: 'ready', info } message, then one answer per
// request's id) and nothing of the model; it runs one request at a time and queues none. Other
// messages (a model load's progress, a writing's steps) pass through post() and onEvent, without a
// time limit on the whole: a download is slow for honest reasons. What such a task may not do is
// fall silent: watch() gives it a limit on the time between its messages, past which the worker is
// taken to be hung (a stalled download, a file it cannot finish reading) and replaced too.

/**
 * The time limit for a text of `characters` characters, in ms: 10 s, plus 10 s per million
 * characters. The slowest honest text measured, 1 MB of unknown 99-letter words, took 1.0 s in
 * the page's worker on a 2-core VM; ordinary 1 MB pastes took 0.3–0.9 s.
 */
export function timeLimit(characters) {
  return 10000 + Math.ceil(characters / 100);
}

/**
 * Why a request ended without an answer: reason 'time' (over its limit), 'cancel', or 'restart'
 * (its worker was replaced because a watched task fell silent).
 */
export class Stopped extends Error {
  constructor(reason, ms, limit) {
    super({ time: `stopped at the time limit of ${limit} ms`, cancel: `cancelled after ${Math.round(ms)} ms`,
      restart: `stopped after ${Math.round(ms)} ms when the worker was replaced` }[reason]);
    this.name = 'Stopped';
    this.reason = reason;
    this.ms = ms; // how long the request had run
    this.limit = limit;
  }
}

export class LimitedWorker {
  #create;
  #limit;
  #worker = null;
  #ready = null; // Promise<info>: the current worker has loaded the model
  #pending = null; // { id, resolve, reject, limit, start, timer }: the request in flight
  #onEvent;
  #onRestart;

  /**
   * `create()` makes the worker (it is called again after each stop); `limit(size)` gives a
   * request's time limit in ms from the size run() is given; `onEvent(data)` receives the
   * worker's messages that are neither 'ready' nor an answer; `onRestart()` is called when a
   * stopped worker has been replaced (whatever it was doing besides the request is lost).
   */
  constructor(create, { limit = timeLimit, onEvent = () => {}, onRestart = () => {} } = {}) {
    this.#create = create;
    this.#limit = limit;
    this.#onEvent = onEvent;
    this.#onRestart = onRestart;
    this.#start();
  }

  /** Resolves to the first worker's info; rejects when it cannot load. */
  get ready() {
    return this.#ready;
  }

  /** A request is in flight (or waits for a fresh worker to load). */
  get busy() {
    return this.#pending !== null;
  }

  /**
   * Sends `message` (with an `id`) once the worker is ready; resolves to the worker's answer to
   * that id. Rejects with Stopped when the request exceeds limit(size) or is cancelled, and with
   * an Error when the worker cannot load or fails.
   */
  run(message, size) {
    if (this.#pending) return Promise.reject(new Error('LimitedWorker runs one request at a time'));
    return new Promise((resolve, reject) => {
      const pending = { id: message.id, resolve, reject, limit: this.#limit(size), start: 0, timer: 0 };
      this.#pending = pending;
      this.#ready.then(() => {
        if (this.#pending !== pending) return; // cancelled while a fresh worker was loading
        pending.start = performance.now();
        // The clock starts at posting: loading a fresh worker does not count against the text.
        pending.timer = setTimeout(() => this.#stop('time'), pending.limit);
        this.#worker.postMessage(message);
      }, (error) => this.#settle(pending)?.reject(error));
    });
  }

  /** Posts a message that is not a request (no time limit, no answer awaited) once the worker is ready. */
  post(message) {
    const worker = this.#worker;
    this.#ready.then(() => {
      if (this.#worker === worker) worker.postMessage(message); // a replaced worker gets nothing
    }, () => {});
  }

  /** Stops the request in flight, if there is one: its worker is terminated and a fresh one started. */
  cancel() {
    if (this.#pending) this.#stop('cancel');
  }

  /**
   * Watches a task the worker does besides requests (a load, a writing), which shows it is alive
   * by its messages: call alive() at each, and end() once it is over. If `limit` ms pass without
   * either, onSilent() is called (to forget the task: the fresh worker does not carry it on), then
   * the worker is replaced as for a request over its limit, with that request, if any, stopped too.
   */
  watch(limit, onSilent) {
    let timer = 0;
    let over = false;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        over = true;
        onSilent();
        this.#stop('restart');
      }, limit);
    };
    arm();
    return {
      alive: () => { if (!over) arm(); },
      end: () => {
        over = true;
        clearTimeout(timer);
      },
    };
  }

  #start() {
    const worker = this.#create();
    this.#worker = worker;
    this.#ready = new Promise((resolve, reject) => {
      worker.onmessage = ({ data }) => {
        if (data.type === 'ready') resolve(data.info);
        else if (data.type === 'error' && data.id === undefined) reject(new Error(data.message)); // it could not load
        else if (data.id !== undefined) {
          if (data.id === this.#pending?.id) this.#settle(this.#pending).resolve(data);
        } else this.#onEvent(data);
      };
      worker.onerror = (event) => {
        const error = new Error(`The worker failed: ${event.message ?? 'unknown error'}`);
        reject(error);
        // A worker that failed during a request may be broken: start afresh for the next one.
        const pending = this.#settle(this.#pending);
        if (pending) {
          worker.terminate();
          this.#start();
          this.#onRestart();
          pending.reject(error);
        }
      };
    });
    this.#ready.catch(() => {}); // run() and the page's own ready handler report it
  }

  /** Ends `pending` if it is still the request in flight; returns it, or null. */
  #settle(pending) {
    if (!pending || this.#pending !== pending) return null;
    clearTimeout(pending.timer);
    this.#pending = null;
    return pending;
  }

  #stop(reason) {
    const pending = this.#settle(this.#pending);
    this.#worker.terminate();
    this.#start();
    this.#onRestart();
    pending?.reject(new Stopped(reason, pending.start ? performance.now() - pending.start : 0, pending.limit));
  }
}
