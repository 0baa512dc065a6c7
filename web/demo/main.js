// The multihead page, wired: one store (state/store.js) holds what the reader chose (settings,
// kept in the URL by url-sync.js), what the worker is doing and has answered (session.js, the
// one module that talks to it) and what the pointer and focus are on (ui). Controls dispatch
// actions; everything on screen subscribes and draws from the state. The drawing itself is
// web/src/views, the computing worker/worker.js.
//
// Flow: an input dispatches → the reducers make the next state → after the burst, each subscriber
// runs once: the session sends the run the state still needs (needed.js), the URL is rewritten,
// the token list, strip, status line, view, controls and panels draw (the controls and panels
// paced while the model writes), and the test hooks are set last.
import { VIEWS_CSS, palette } from '../src/views/styles.js';
import { createStore } from './state/store.js';
import { settings } from './state/settings.js';
import { ui } from './state/ui.js';
import { createSession, result, session } from './session.js';
import { readUrlState } from './url-state.js';
import { syncUrl } from './url-sync.js';
import { createControls } from './ui/controls.js';
import { createModelPanel } from './ui/model-panel.js';
import { createPanels } from './ui/panels.js';
import { createStatusLine } from './ui/status-line.js';
import { createTokenList } from './ui/token-list.js';
import { createViewHost } from './ui/view-host.js';
import { wireShareButtons } from './ui/share-buttons.js';
import { createWritePanel } from './ui/write-panel.js';
import { createWhyPanel } from './ui/why-panel.js';
import { testHooks } from './test-hooks.js';

const style = document.createElement('style');
style.textContent = `:root { ${palette('light')} }\n@media (prefers-color-scheme: dark) { :root { ${palette('dark')} } }\n${VIEWS_CSS}`;
document.head.append(style);

const store = createStore({ settings, session, result, ui });
// The sentence in the field, then what the link asks for; Hub ids from ?hub= (tests' fake Hub).
store.dispatch({ type: 'start', sentence: document.getElementById('sentence').value, url: readUrlState(location.hash), hubUrl: hubFromQuery() });

const pageSession = createSession(store);
syncUrl(store);
// While the model writes, what follows each token (the token list, the strip, the status line and
// the view, which paces itself) draws at once; the controls and the panels below at most every
// SLOW_MS, as each of their redraws lays out much of the page and the model writes on the same cores.
const SLOW_MS = 250;
const renderers = [
  createTokenList(store), createWritePanel(store, pageSession), createStatusLine(), createViewHost(store),
  ...[createControls(store, pageSession), createModelPanel(store, pageSession), createPanels(store, pageSession), createWhyPanel(store, pageSession)].map(paced),
  testHooks(),
];
for (const { render } of renderers) store.subscribe(render);

/** `renderer` drawing at most every SLOW_MS while the model writes, with the latest state. */
function paced({ render }) {
  let timer = 0, last = 0;
  return {
    render(state) {
      const wait = state.session.writing ? last + SLOW_MS - performance.now() : 0;
      if (wait <= 0) {
        clearTimeout(timer);
        timer = 0;
        last = performance.now();
        render(state);
        return;
      }
      if (timer) return;
      timer = setTimeout(() => {
        timer = 0;
        last = performance.now();
        render(store.state);
      }, wait);
    },
  };
}
wireShareButtons(store);

/** The ?hub= of the page's address, when it is an http(s) URL (anything else is ignored). */
function hubFromQuery() {
  const text = new URLSearchParams(location.search).get('hub');
  if (text === null) return undefined;
  try {
    const url = new URL(text);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password) return url.href;
  } catch {
    // not a URL: ignored
  }
  return undefined;
}
