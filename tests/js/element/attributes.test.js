// <multihead-view>'s attributes, read without a DOM (web/src/element/attributes.js): the model a
// value names, and the view, layer, heads and height, each bad value refused by name.
import { MAX_SENTENCE, modelSource, readChoice, readStack } from '../../../web/src/element/attributes.js';

const BASE = 'https://example.org/post/page.html';
const css = { supports: (height) => /^(\d+(\.\d+)?(px|em|vh)|auto)$/.test(height), pixels: (height) => (height.endsWith('em') ? 16 * parseFloat(height) : parseFloat(height)) };
const choice = (attributes, layers = 4, heads = 4) => readChoice({ view: null, layer: null, head: null, theme: null, height: null, ...attributes }, layers, heads, css);

test.each([
  [null, { builtin: 'default' }], ['', { builtin: 'default' }], ['  causal ', { builtin: 'causal' }],
  ['gpt2', { hub: 'gpt2', hubUrl: 'https://huggingface.co' }], ['owner/name', { hub: 'owner/name', hubUrl: 'https://huggingface.co' }],
  ['./models/m/', { url: 'https://example.org/post/models/m/' }], ['/m/', { url: 'https://example.org/m/' }],
  ['https://cdn.example.org/m/', { url: 'https://cdn.example.org/m/' }], ['m/', { url: 'https://example.org/post/m/' }],
])('the model attribute %j names %j', (value, expected) => {
  expect(modelSource(value, null, BASE)).toEqual(expected);
});

test('hub-url chooses the Hub a Hub id is read from, and must be http(s)', () => {
  expect(modelSource('gpt2', 'http://127.0.0.1:8080/', BASE)).toEqual({ hub: 'gpt2', hubUrl: 'http://127.0.0.1:8080' });
  expect(() => modelSource('gpt2', 'ftp://x', BASE)).toThrow(/^hub-url must be an http\(s\) URL/);
});

test('without attributes the element shows layer 1, head 1 in the grid, as tall as the view', () => {
  expect(choice({})).toEqual({ view: 'grid', layer: 0, heads: [0], height: '' });
});

test.each([
  [{ view: 'bogus' }, 'view must be grid, head, lines, steps, why or alignment, got "bogus"'],
  [{ layer: '5' }, 'layer must be a whole number from 1 to 4, got "5"'],
  [{ layer: '1.5' }, 'layer must be a whole number from 1 to 4, got "1.5"'],
  [{ head: '0' }, 'head must be a whole number from 1 to 4, a list of them, or "all", got "0"'],
  [{ head: '1 2' }, 'several heads ("1 2") need view="lines"; the grid view shows one'],
  [{ theme: 'blue' }, 'theme must be light, dark or auto, got "blue"'],
  [{ height: 'tall' }, 'height must be a CSS length such as 400 or 30em, got "tall"'],
  [{ height: '1e20' }, 'height must be at most 100000 pixels (a number, or a CSS length such as 30em), got "1e20"'],
  [{ height: '7000em' }, 'height must be at most 100000 pixels (a number, or a CSS length such as 30em), got "7000em"'],
])('%j is refused: %s', (attributes, message) => {
  expect(() => choice(attributes)).toThrow(message);
});

test('the lines view takes several heads, or all; a number height is pixels', () => {
  expect(choice({ view: 'lines', head: '2, 4' })).toEqual({ view: 'lines', layer: 0, heads: [1, 3], height: '' });
  expect(choice({ view: 'lines', head: 'all', layer: '3', height: '400' }, 4, 3)).toEqual({ view: 'lines', layer: 2, heads: [0, 1, 2], height: '400px' });
  expect(choice({ height: '30em' }).height).toBe('30em');
});

test('a sentence of the element and of a link to the page holds at most 2000 characters', () => {
  expect(MAX_SENTENCE).toBe(2000);
});

test('the stack attribute: an encoder–decoder\'s attention, cross for the alignment view by default; a one-stack model takes none', () => {
  expect(readStack(null, 'grid', true)).toBe('encoder');
  expect(readStack(null, 'alignment', true)).toBe('cross');
  expect(readStack('decoder', 'alignment', true)).toBe('decoder');
  expect(readStack(null, 'grid', false)).toBe('encoder');
  expect(readStack('encoder', 'head', false)).toBe('encoder');
  expect(() => readStack('Cross', 'grid', true)).toThrow('stack must be encoder, decoder or cross, got "Cross"');
  expect(() => readStack('decoder', 'grid', false)).toThrow('stack="decoder" is an encoder–decoder\'s (T5, BART, Marian); this model has one stack of layers');
  expect(() => readStack(null, 'why', true)).toThrow('view="why" explains a one-stack model\'s prediction');
});
