// The lines that say how the page is doing: the status (and Cancel, once a run is slow), the note
// on a text cut to the model's positions, and the note on a sentence too long for a link.
import { MAX_SENTENCE } from '../../src/element/attributes.js';
import { truncationNote } from '../../src/views/view-data.js';
import { pageStatus } from '../state/status.js';
import { PAGE_MAX_TOKENS } from '../worker/messages.js';

const count = (n) => n.toLocaleString('en');

export function createStatusLine() {
  const $ = (id) => document.getElementById(id);
  const dom = { status: $('status'), cancel: $('cancel'), notice: $('notice'), link: $('link-notice'), sentence: $('sentence') };

  function render(state) {
    const { text } = pageStatus(state);
    if (dom.status.textContent !== text) dom.status.textContent = text;
    const slow = Boolean(state.session.inFlight?.slow);
    // The button disappears under the keyboard's focus: give the focus to the sentence it was about.
    if (!slow && document.activeElement === dom.cancel) dom.sentence.focus();
    dom.cancel.hidden = !slow;
    const run = state.result.run;
    const shows = run && state.settings.sentence.trim() !== '';
    show(dom.notice, shows && run.truncated && state.session.info
      ? truncationNote({ ...run, closing: state.session.info.closingToken !== null }, state.session.info.maxTokens > PAGE_MAX_TOKENS) : '');
    const { sentence } = state.settings;
    show(dom.link, sentence.length <= MAX_SENTENCE ? '' : `This text is too long to share by link: it has ${count(sentence.length)} ` +
      `characters, and the address bar and Embed keep only the first ${count(MAX_SENTENCE)}.`);
  }

  return { render };
}

function show(node, text) {
  if (node.textContent !== text) node.textContent = text;
  node.hidden = text === '';
}
