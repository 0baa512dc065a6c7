// The page's Embed dialog and downloads: snippets that reproduce the view on screen, and files of
// its attention (web/src/views/export.js draws them). It reads the state main.js passes in and
// changes none of it. A snippet says what of the sentence it could not carry: a link and the
// element hold 2000 characters, and HTML cannot hold U+0000 or a lone surrogate at all.
import { attentionJson, headsOnScreen, heatmapPng, heatmapSvg } from '../src/views/export.js';
import { modelPng, modelSvg } from '../src/views/model-figure.js';
import { whyCsv, whyPng, whySvg } from '../src/views/why-export.js';
import { viewData } from '../src/views/view-data.js';
import { MAX_SENTENCE } from '../src/element/attributes.js';
import { linkedSentence } from './url-state.js';

// Lone surrogates (half of a UTF-16 pair): with the u flag, a whole pair is one code point and does not match.
const LONE_SURROGATE = /[\ud800-\udfff]/gu;

/**
 * Text safe inside a double-quoted HTML attribute or an element. CR is escaped too: the parser
 * turns a raw CR (and CR LF) into LF, but keeps &#13; as CR.
 */
function escapeHtml(text) {
  return text.replace(/[&<>"'\r]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * `text` without what no HTML attribute can hold, and a list of what was left out. The parser
 * turns U+0000 into U+FFFD, raw or as &#0;, and a lone surrogate cannot be written in UTF-8
 * (&#xD800; gives U+FFFD too).
 */
function forHtml(text) {
  const nul = text.split('\0').length - 1;
  const lone = text.match(LONE_SURROGATE)?.length ?? 0;
  const left = [];
  if (nul > 0) left.push(`${nul} U+0000 (NUL)`);
  if (lone > 0) left.push(`${lone} lone surrogate${lone > 1 ? 's' : ''} (half of an emoji's UTF-16 pair)`);
  return { text: text.replaceAll('\0', '').replace(LONE_SURROGATE, ''), left: left.join(' and ') };
}

/** A short, plain excerpt of the sentence for the iframe's title. */
function excerpt(sentence) {
  const plain = forHtml(sentence).text.replace(/\s+/g, ' ').trim();
  const points = [...plain];
  return points.length <= 60 ? plain : `${points.slice(0, 60).join('')}…`;
}

/**
 * The iframe and the element that show what is on screen (the iframe's link is `href`, the
 * page's own URL), with a note for each on what of the sentence it leaves out ('' when nothing).
 * `model` is the Hub id or the built-in model's name on screen, or undefined for the default model;
 * `revision` a Hub model's revision other than main; `written`, how many tokens the model wrote
 * after the sentence; `chat`, whether the sentence is a chat message; `stack`, an encoder–decoder's
 * attention on screen (null for a one-stack model).
 */
export function embedSnippets({ sentence, view, layer, head, toy, model, revision, written = 0, chat = false, stack = null, href = location.href }) {
  const linked = linkedSentence(sentence);
  const cut = linked.length < sentence.length
    ? `the first ${MAX_SENTENCE.toLocaleString('en')} of this sentence's ${sentence.length.toLocaleString('en')} characters`
    : '';
  const title = `multihead: the attention of “${excerpt(sentence)}”`;
  const iframe = `<iframe src="${escapeHtml(href)}" title="${escapeHtml(title)}" width="100%" height="720" loading="lazy"></iframe>`;
  const lone = linked.match(LONE_SURROGATE)?.length ?? 0;
  const notes = {
    iframe: [
      cut && `A link holds at most ${MAX_SENTENCE.toLocaleString('en')} characters: the iframe shows ${cut}.`,
      lone > 0 && `A URL cannot hold a lone surrogate (half of an emoji's UTF-16 pair): the iframe shows U+FFFD (�) for ${lone === 1 ? 'the one' : `the ${lone}`} in the sentence.`,
    ].filter(Boolean).join(' '),
    element: '',
  };
  const heads = view === 'lines' && head === 'all' ? 'all' : String(head === 'all' ? 1 : head + 1);
  if (view === 'average' || view === 'rollout') {
    return { iframe, element: `The element does not show the ${view} view yet: the iframe does.`, notes };
  }
  if (toy) return { iframe, element: 'The element shows the model\'s attention, not the toy layer: switch to "the model" for its snippet.', notes };
  const html = forHtml(linked);
  notes.element = [
    cut && `The element takes at most ${MAX_SENTENCE.toLocaleString('en')} characters: this snippet holds ${cut}.`,
    html.left && `HTML cannot hold some of its characters in an attribute: the snippet leaves out ${html.left}.`,
    revision && `The element loads a Hub model's main revision, not ${revision}: the iframe shows that revision.`,
    written > 0 && stack === null && `The element shows the sentence alone, not the ${written} token${written === 1 ? '' : 's'} the model wrote after it: the iframe shows them.`,
    written > 0 && stack !== null && 'The element writes its own target from the source (greedy, at most 64 tokens): the iframe shows the one written here.',
    chat && 'The element runs the sentence as plain text, not through the chat template: the iframe runs it as a chat message.',
  ].filter(Boolean).join(' ');
  const element = `<script type="module">import 'multihead/element';</script>\n` +
    `<multihead-view sentence="${escapeHtml(html.text)}" view="${view}"${stack ? ` stack="${stack}"` : ''} layer="${layer + 1}" head="${heads}"` +
    `${model ? ` model="${escapeHtml(model)}"` : ''}></multihead-view>`;
  return { iframe, element, notes };
}

/**
 * The figure of layer `layer` of `result` for view `view`: the heads on screen, or all of them;
 * the one matrix of the average and rollout views.
 */
function figure(result, view, layer, head) {
  if (view === 'average' || view === 'rollout') {
    const { weights, title } = viewData(view, result, layer);
    return { tokens: result.tokens, keyTokens: result.keyTokens, weights: [weights], heads: [0], title };
  }
  const weights = result.layers[layer].weights;
  const heads = headsOnScreen(['lines', 'alignment'].includes(view) && head === 'all' ? 'grid' : view, weights.length, [head]);
  return { tokens: result.tokens, keyTokens: result.keyTokens, weights, heads, title: `Layer ${layer + 1}` };
}

/**
 * The model view (layer 'all') as modelPng and modelSvg take it, with each head's badge and switch:
 * its thumbnails as the view draws them (pooled into blocks of tokens on a long text).
 */
function modelFigure(result, roles, ablated) {
  const grid = viewData('grid', result, 'all', { roles, ablated });
  return {
    tokens: grid.tokens, keyTokens: grid.keyTokens, layers: grid.rows, title: grid.title,
    badges: grid.rows.map((row) => row.weights.map((_, h) => (row.roles?.[h] ? `${row.roles[h].role} ${row.roles[h].score.toFixed(2)}` : null))),
    ablated: grid.rows.map((row) => row.ablated),
  };
}

/**
 * Downloads the result as 'png', 'svg' or 'json'. `layer` 'all' is the model view, drawn with
 * each head's top role from `roles` and the heads in `ablated` marked. `numLayers`: the model's.
 */
export async function download(kind, result, { view, layer, head, numLayers, roles = null, ablated = [] }) {
  let blob;
  if (kind === 'json') {
    // Every layer, or on a long text the layers the page was sent: the ones it has shown.
    const { tokens, unknown, keyTokens } = result;
    const held = result.layers.flatMap((l, i) => (l ? [i] : []));
    const every = held.length === numLayers;
    const layers = held.map((i) => result.layers[i]);
    blob = new Blob([attentionJson({ tokens, unknown, keyTokens, layers, layerNumbers: every ? undefined : held.map((i) => i + 1) })], { type: 'application/json' });
  } else if (layer === 'all') {
    const input = modelFigure(result, roles, ablated);
    blob = kind === 'svg' ? new Blob([await modelSvg(input)], { type: 'image/svg+xml' }) : await modelPng(input);
  } else if (kind === 'svg') {
    blob = new Blob([heatmapSvg(figure(result, view, layer, head))], { type: 'image/svg+xml' });
  } else {
    blob = await heatmapPng(figure(result, view, layer, head));
  }
  const name = layer === 'all' ? 'model' : view === 'average' || view === 'rollout' ? `${view}${layer + 1}` : `layer${layer + 1}`;
  saveFile(blob, kind === 'json' ? 'multihead-attention.json' : `multihead-${name}.${kind}`);
}

/** Downloads the Why? view's figure as 'png' or 'svg', or its numbers as 'csv' (`data`: viewData's 'why'). */
export async function downloadWhy(kind, data) {
  if (!data.contributions && !data.lens && !data.patch && !data.queryKeys) throw new Error('the Why? view has nothing to download yet');
  const blob = kind === 'csv' ? new Blob([whyCsv(data)], { type: 'text/csv' })
    : kind === 'svg' ? new Blob([whySvg(data)], { type: 'image/svg+xml' }) : await whyPng(data);
  saveFile(blob, `multihead-why.${kind}`);
}

/** Saves `blob` as a download named `name`. */
export function saveFile(blob, name) {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}
