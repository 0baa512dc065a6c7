// The corrupted twin the Why? view suggests for patching: one word swapped, the token count kept.
import { suggestCorruption } from '../../../web/src/analysis/corruption.js';

const words = (text) => text.split(/\s+/).length;

test('an induction prompt swaps the predicted name where the prompt holds it, for a name it does not hold', () => {
  const text = 'Yesterday Henry met William at the station. Today Henry met';
  const same = (candidate) => words(candidate) === words(text);
  expect(suggestCorruption(text, ' william', same)).toEqual({ text: 'Yesterday Henry met James at the station. Today Henry met', from: 'William', to: 'James' });
  // A prompt that holds James already gets the next name.
  expect(suggestCorruption(text.replace('station', 'James'), ' William', same).to).toBe('Mary');
});

test('without the predicted word, the last repeated word is swapped, else the longest; lower case stays lower case', () => {
  const same = () => true;
  // "the" repeats too, but a function word is no key word.
  expect(suggestCorruption('the cat saw the dog and the cat ran', ' away', same)).toEqual({ text: 'the cat saw the dog and the house ran', from: 'cat', to: 'house' });
  expect(suggestCorruption('Nothing repeats in this sentence', ' x', same)).toMatchObject({ from: 'sentence', to: 'dog' });
});

test('a replacement that changes the token count is skipped; none that keeps it gives null', () => {
  const text = 'Yesterday Henry met William. Today Henry met';
  const tried = [];
  const suggestion = suggestCorruption(text, ' William', (candidate) => {
    tried.push(candidate);
    return tried.length === 3;
  });
  expect(suggestion.to).toBe('John');
  expect(suggestCorruption(text, ' William', () => false)).toBeNull();
  expect(suggestCorruption('!!! ???', ' x', () => true)).toBeNull();
});
