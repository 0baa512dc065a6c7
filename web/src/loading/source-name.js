// What a string names, one answer for every place that takes one: loadModel's source, the
// element's model attribute and the page's model= link. In order:
// - a built-in model's name ("default", "causal"), where the caller takes names (the element and
//   the page; loadModel takes { builtin } instead), winning over a Hub id of the same spelling,
//   which the Hub does not have;
// - in Node, a path: absolute, or starting with ./ or ../;
// - a URL: with a scheme, starting with /, ./, ../ or \, or ending with / (a folder);
// - else a Hub id ("gpt2", "owner/name"), which parseHubId checks when it is used.
import { BUILTIN_NAMES } from './builtins.js';
import { isHubId } from './hub.js';

const node = typeof globalThis.process?.getBuiltinModule === 'function' && !globalThis.document
  ? (name) => globalThis.process.getBuiltinModule(name) : null;

/**
 * { kind: 'builtin', name } | { kind: 'path', text } | { kind: 'url', text } | { kind: 'hub', id }
 * for `text` (a string). `builtins`: whether a built-in model's name names it.
 */
export function sourceName(text, { builtins = false } = {}) {
  if (builtins && BUILTIN_NAMES.includes(text)) return { kind: 'builtin', name: text };
  if (node) {
    const path = node('node:path');
    if (path.isAbsolute(text) || /^\.\.?([/\\]|$)/.test(text)) return { kind: 'path', text };
  }
  return isHubId(text) && !text.endsWith('/') ? { kind: 'hub', id: text } : { kind: 'url', text };
}
