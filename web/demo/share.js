// The page's Embed dialog and downloads: snippets that reproduce the view on screen, and files of
// its attention (web/src/views/export.js draws them). It reads the state main.js passes in and
// changes none of it.
import { attentionJson, headsOnScreen, heatmapPng, heatmapSvg } from '../src/views/export.js';

/** Text safe inside an HTML attribute or element. */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The iframe and the element that show what is on screen. */
export function embedSnippets({ sentence, view, layer, head, toy }) {
  const title = `multihead: the attention of “${sentence}”`;
  const iframe = `<iframe src="${escapeHtml(location.href)}" title="${escapeHtml(title)}" width="100%" height="720" loading="lazy"></iframe>`;
  const heads = view === 'lines' && head === 'all' ? 'all' : String(head === 'all' ? 1 : head + 1);
  if (toy) return { iframe, element: 'The element shows the model\'s attention, not the toy layer: switch to "the model" for its snippet.' };
  const element = `<script type="module">import 'multihead/element';</script>\n` +
    `<multihead-view sentence="${escapeHtml(sentence)}" view="${view}" layer="${layer + 1}" head="${heads}"></multihead-view>`;
  return { iframe, element };
}

/** The figure of layer `layer` of `result` for view `view`: the heads on screen, or all of them. */
function figure(result, view, layer, head) {
  const weights = result.layers[layer].weights;
  const heads = headsOnScreen(view === 'lines' && head === 'all' ? 'grid' : view, weights.length, [head]);
  return { tokens: result.tokens, weights, heads, title: `Layer ${layer + 1}` };
}

/** Downloads the result as 'png', 'svg' or 'json'. */
export async function download(kind, result, { view, layer, head }) {
  let blob;
  if (kind === 'json') {
    const { tokens, unknown, layers } = result;
    blob = new Blob([attentionJson({ tokens, unknown, layers })], { type: 'application/json' });
  } else if (kind === 'svg') {
    blob = new Blob([heatmapSvg(figure(result, view, layer, head))], { type: 'image/svg+xml' });
  } else {
    blob = await heatmapPng(figure(result, view, layer, head));
  }
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = kind === 'json' ? 'multihead-attention.json' : `multihead-layer${layer + 1}.${kind}`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}
