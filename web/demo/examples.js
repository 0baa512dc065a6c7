// The page's example sentences, by kind of model. A causal model's show induction: a phrase seen
// once starts again, so an induction head attends from its second "met" to the word that followed
// the first one, and the model predicts that word (tests/js/model/causal-model.test.js checks it for the
// built-in causal model, on every one).
export const EXAMPLES = {
  masked: [
    'The cat sat on the mat because it was tired.',
    'The president said that the nation would not forget.',
    'She gave him the book, and he read it twice.',
    'We hold these truths to be self-evident.',
    'Le chat 🐈 dort sur le tapis.',
  ],
  // An encoder–decoder's source: sentences to translate, or, for the built-in reverser, words of
  // its vocabulary to write backwards.
  source: [
    'The house is wonderful.',
    'My friend bought a red car yesterday.',
    'The children are playing in the garden.',
    'I would like a cup of coffee, please.',
  ],
  reverse: [
    'red cat blue dog',
    'one two three four five six',
    'sun moon star tree house',
    'green frog eats one fish',
  ],
  causal: [
    'Yesterday Henry met William at the station. Today Henry met',
    'George wrote a long letter to his brother. The next day George wrote a long',
    'The king gave his daughter a golden ring. Later the king gave his daughter a golden',
    'The army crossed the frozen lake at night. In the morning the army crossed the frozen',
    'green apple, blue river, cold coffee. green apple, blue river, cold',
  ],
};
