// The page's state in its URL: the heads switched off (&ablate=2.1,2.4, counted from 1) and what
// they pass on (&ablation=mean) are read back as written, in layer then head order and once each;
// anything that is not such a list is ignored, as the page ignores every value that makes no sense.
import { readUrlState, urlHash } from '../../../web/demo/url-state.js';

const STATE = { sentence: 'The cat sat.', view: 'grid', mode: 'model', layer: 'all', head: 0, toy: null };

test('switched-off heads and their ablation go into the hash and come back', () => {
  const ablate = [{ layer: 1, head: 0 }, { layer: 11, head: 11 }];
  const hash = urlHash({ ...STATE, ablate, ablation: 'mean' });
  expect(new URLSearchParams(hash.slice(1)).get('ablate')).toBe('2.1,12.12');
  expect(readUrlState(hash)).toMatchObject({ ablate, ablation: 'mean' });
  // zero is the default, left out; no heads off leaves both out.
  expect(urlHash({ ...STATE, ablate, ablation: 'zero' })).not.toContain('ablation=');
  expect(urlHash({ ...STATE, ablate: [] })).not.toContain('ablate');
});

test('a hand-typed list is sorted and each head kept once; an empty one switches every head on', () => {
  expect(readUrlState('#ablate=3.2,1.4,3.2,1.1').ablate).toEqual([{ layer: 0, head: 0 }, { layer: 0, head: 3 }, { layer: 2, head: 1 }]);
  expect(readUrlState('#ablate=').ablate).toEqual([]);
  expect(readUrlState('#sentence=x')).not.toHaveProperty('ablate');
});

test.each(['0.1', '1.0', '1', '1.1,', '1.1;2.2', 'a.b', '1.1.1', '-1.2', '12345.1', '1.1,,2.2', ' 1.1'])('ablate=%p is ignored', (text) => {
  expect(readUrlState(`#${new URLSearchParams({ ablate: text })}`)).not.toHaveProperty('ablate');
});

test('more heads than any model has is ignored; an unknown ablation too', () => {
  const many = Array.from({ length: 1025 }, (_, i) => `${1 + Math.floor(i / 100)}.${1 + (i % 100)}`).join(',');
  expect(readUrlState(`#ablate=${many}`)).not.toHaveProperty('ablate');
  expect(readUrlState('#ablation=half')).not.toHaveProperty('ablation');
  expect(readUrlState('#ablation=zero').ablation).toBe('zero');
});

test('the Why? view\'s choices go into the hash and come back; other views leave them out', () => {
  const why = { position: 11, token: ' William', against: ' James', corrupted: 'Yesterday Henry met James & co. Today Henry met' };
  const hash = urlHash({ ...STATE, view: 'why', layer: 1, why });
  const params = new URLSearchParams(hash.slice(1));
  expect([params.get('pos'), params.get('token'), params.get('against')]).toEqual(['12', ' William', ' James']);
  expect(readUrlState(hash)).toMatchObject({ view: 'why', why });
  // The defaults are left out, and a link to another view carries none of them.
  expect(urlHash({ ...STATE, view: 'why', layer: 1, why: { position: null, token: '', against: '', corrupted: null } })).not.toMatch(/pos=|token=|against=|corrupt=/);
  expect(urlHash({ ...STATE, view: 'head', layer: 1, why })).not.toMatch(/pos=|token=|against=|corrupt=/);
  // A position that is not a count from 1, or a "token" far too long for one, is ignored.
  expect(readUrlState('#view=why&pos=0&token=' + 'x'.repeat(101)).why).toBeUndefined();
});
