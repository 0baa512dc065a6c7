// What a string names (web/src/loading/source-name.js), the one answer loadModel, the element and
// the page's links share.
import { sourceName } from '../../../web/src/loading/source-name.js';

test.each([
  ['gpt2', { kind: 'hub', id: 'gpt2' }], ['owner/name', { kind: 'hub', id: 'owner/name' }],
  ['default', { kind: 'hub', id: 'default' }], // loadModel takes { builtin } for the built-in models
  ['https://example.org/m/', { kind: 'url', text: 'https://example.org/m/' }], ['m/', { kind: 'url', text: 'm/' }],
  ['owner/name/', { kind: 'url', text: 'owner/name/' }], ['C:\\models\\m', { kind: 'url', text: 'C:\\models\\m' }],
  ['/abs/folder', { kind: 'path', text: '/abs/folder' }], ['./here', { kind: 'path', text: './here' }], ['../up', { kind: 'path', text: '../up' }],
])('%j names %j', (text, expected) => {
  expect(sourceName(text)).toEqual(expected);
});

test('where built-in names are taken, they win over Hub ids of the same spelling', () => {
  expect(sourceName('default', { builtins: true })).toEqual({ kind: 'builtin', name: 'default' });
  expect(sourceName('causal', { builtins: true })).toEqual({ kind: 'builtin', name: 'causal' });
  expect(sourceName('gpt2', { builtins: true })).toEqual({ kind: 'hub', id: 'gpt2' });
});
