// The ui slice: what the reader points at and chose that no link keeps. The token under the
// pointer or the keyboard focus in the token list, and the token chosen, pick which of a causal
// model's predictions show; rolesMode is how the head roles are measured; note is a message for
// the status line (a download that failed) until the next run. Its reducer is its one writer.
import { patched } from './store.js';
import { answerFits } from './needed.js';

const INITIAL = Object.freeze({
  at: null, // the token chosen to show a causal model's next-token predictions after it, or null
  pointed: null, // the token under the pointer in the token list, or null
  focused: null, // the token with the keyboard focus in the token list, or null
  rolesMode: 'live', // head roles measured 'live' (on the sentence) or over the 'probes'
  note: '', // a message for the status line until the next run
  step: null, // the written token chosen in the strip: its row shows in every head
  row: null, // the query row marked in the head view: the position the Why? view explained, when a head was chosen there
});

export function ui(slice = INITIAL, action, state) {
  switch (action.type) {
    case 'choose-token':
      return patched(slice, { at: slice.at === action.index ? null : action.index });
    case 'point':
      return patched(slice, { pointed: action.index });
    case 'focus-token':
      return patched(slice, { focused: action.index });
    case 'select-head': // from the Why? view, with the row it explains; from the grid, none
      return patched(slice, { row: action.row ?? null });
    case 'choose-step':
      return patched(slice, { step: slice.step === action.index ? null : action.index });
    case 'write-start':
      return patched(slice, { step: null, at: null });
    case 'roles-mode':
      return patched(slice, { rolesMode: action.value });
    case 'note':
      return patched(slice, { note: action.text });
    case 'answered': {
      const fresh = action.answer.type === 'result' && answerFits(state, action.asked) && state.result.run?.key !== action.asked.key;
      if (!fresh) return slice;
      // New tokens: the buttons pointed at or focused are replaced, and a removed button may never
      // report that the pointer or the focus left it; a chosen token past the new end is gone.
      const n = action.answer.tokens.length;
      return patched(slice, { pointed: null, focused: null, at: slice.at !== null && slice.at >= n - 1 ? null : slice.at, note: '' });
    }
    case 'ready':
    case 'loaded':
      return patched(slice, { at: null, pointed: null, focused: null, step: null, row: null });
    case 'sentence':
    case 'url':
      return patched(slice, { note: '', step: null, row: null });
    default:
      return slice;
  }
}
