// The page's status as a pure function of its state: the phase (body[data-state], which the tests
// wait on: loading, empty, busy, writing, ready, error, cancelled) and the line the reader sees.
import { inputsKey, needed } from './needed.js';

const count = (n) => n.toLocaleString('en');
const seconds = (ms) => `${ms < 10000 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000)} s`;

/** Whether the page shows no result at all: the sentence is empty, or its run was stopped. */
export function cleared(state) {
  return state.settings.sentence.trim() === '' || state.session.stopped?.key === inputsKey(state);
}

/** { phase, text } for `state`. */
export function pageStatus(state) {
  const { session, settings } = state;
  if (session.startError) return { phase: 'error', text: session.startError };
  if (!session.info) return { phase: 'loading', text: 'Loading the engine and the model…' };
  if (settings.sentence.trim() === '') return { phase: 'empty', text: state.ui.note || 'Type a sentence (or pick an example) to see how each head attends.' };
  if (session.writing) return { phase: 'writing', text: writingText(session.writing, settings.write.maxNewTokens) };
  const key = inputsKey(state);
  if (session.stopped?.key === key) return stopped(session.stopped);
  if (session.failed?.key === key) return { phase: 'error', text: session.failed.message };
  const run = state.result.run;
  if (session.inFlight?.slow) return { phase: 'busy', text: `Working on ${count(session.inFlight.characters)} characters…` };
  // Until an answer comes, the line says what it said: the last run's summary, or that the model is ready.
  const before = run?.summary ?? modelReady(session.info);
  const wrote = session.wrote?.key === key ? wroteText(session.wrote) : null;
  if (session.inFlight || run?.key !== key || needed(state) !== null) return { phase: 'busy', text: wrote ?? before };
  return { phase: 'ready', text: state.ui.note || (wrote ?? run.summary) };
}

const ms = (value) => (value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString('en'));

/** Prefill, time per token and tokens per second of `count` steps that took `stepMs` in all. */
function speed({ prefillMs, stepMs, count }) {
  const prefill = prefillMs === null ? '' : `prefill ${ms(prefillMs)} ms`;
  if (count === 0) return prefill;
  const per = stepMs / count;
  return `${prefill}, ${ms(per)} ms per token (${(1000 / per).toFixed(1)} tokens/s)`;
}

function writingText(writing, asked) {
  if (writing.stopping) return `Stopping after ${writing.count} tokens…`;
  if (writing.count === 0) return 'Writing: running the prompt…';
  return `Writing… ${writing.count} of ${asked} tokens: ${speed(writing)}.`;
}

const REASONS = {
  eos: 'the model ended its text', stop: 'a stop token', maxNewTokens: 'as many as asked', length: 'the model\'s length', aborted: 'stopped',
};

function wroteText(wrote) {
  const why = wrote.reason === 'error' ? `stopped by an error: ${wrote.message}` : REASONS[wrote.reason] ?? wrote.reason;
  const timing = speed(wrote); // none when it failed before its prompt ran
  return `Wrote ${wrote.count} token${wrote.count === 1 ? '' : 's'} (${why})${timing ? `: ${timing}` : ''}.`;
}

const BUILD_NAMES = { 'relaxed-simd': 'relaxed SIMD', simd: 'SIMD', scalar: 'scalar' };

function modelReady({ numLayers, numHeads, dModel, build, threads }) {
  return `Model ready: ${numLayers} layers × ${numHeads} heads, d_model ${dModel} ` +
    `(${BUILD_NAMES[build]} WebAssembly, ${threads === 1 ? '1 thread' : `${threads} threads`}).`;
}

function stopped({ reason, ms, limit, characters }) {
  if (reason === 'time') {
    return {
      phase: 'error',
      text: `Stopped after ${seconds(limit)}: tokenizing this text took too long (the page allows ` +
        `${seconds(limit)} for ${count(characters)} characters), as a tokenizer with a pathological pattern, or a hostile chat template, can. ` +
        'The page restarted its worker; the sentence is kept: change it to try again.',
    };
  }
  return { phase: 'cancelled', text: `Cancelled after ${seconds(ms)}. The page restarted its worker; the sentence is kept: change it to run it again.` };
}
