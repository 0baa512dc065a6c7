// The page's state in its URL, after the #, so a link or an iframe opens one precise view:
// #sentence=The+cat+sat.&view=head&layer=2&head=3 (layer and head counted from 1, as on the page;
// head=all for every head in the lines view). Values that make no sense are ignored, not errors:
// a link typed by hand should still open the page.
import { VIEWS } from '../src/views/views.js';

const MODES = ['model', 'toy'];
const MAX_SENTENCE = 2000; // characters kept from a link

/** The state a URL hash asks for: only the fields it gives, each checked. */
export function readUrlState(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const state = {};
  const sentence = params.get('sentence');
  if (sentence !== null) state.sentence = sentence.slice(0, MAX_SENTENCE);
  if (Object.hasOwn(VIEWS, params.get('view') ?? '')) state.view = params.get('view');
  if (MODES.includes(params.get('mode'))) state.mode = params.get('mode');
  const layer = counted(params.get('layer'));
  if (layer !== null) state.layer = layer;
  const head = params.get('head') === 'all' ? 'all' : counted(params.get('head'));
  if (head !== null) state.head = head;
  return state;
}

/** The hash for a state: what readUrlState reads back. */
export function urlHash({ sentence, view, mode, layer, head }) {
  const params = new URLSearchParams({ sentence, view, mode, layer: String(layer + 1) });
  params.set('head', head === 'all' ? 'all' : String(head + 1));
  return `#${params}`;
}

// "3" → 2 (counted from 1 in the URL, from 0 in the page); anything else → null.
function counted(text) {
  if (text === null || !/^[1-9][0-9]{0,3}$/.test(text)) return null;
  return Number(text) - 1;
}
