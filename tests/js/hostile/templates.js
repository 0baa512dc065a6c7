// The hostile chat templates of issue 43 and the operations that can make far more text than they
// are given, and how to write after each: generate({ messages }) on the qwen2 checkpoint with 1024
// positions (as GPT-2 has), one template after another, then a genuine one. templates-child.js does
// it in Node under a heap limit, pages/templates.js in Chromium.

// Doubles ns.s, "ab", `times` times: a text of 2^(times + 1) characters, made in a few steps.
const doubled = (times) => `{% set ns = namespace(s="ab") %}{% for i in range(${times}) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}`;

/** [name, chat_template, the message it must end with] */
export const HOSTILE_TEMPLATES = [
  ['a loop of 100,000,000', '{% for i in range(100000000) %}x{% endfor %}', /asked for range\(100000000\), which has 100000000 items, more than the 100000 a render may loop over/],
  ['two nested loops of 3,000', '{% for i in range(3000) %}{% for j in range(3000) %}xy{% endfor %}{% endfor %}', /wrote 36000 characters, more than the 32768 a render may write \(32 for each of the model's 1024 tokens\)/],
  ['a loop of 50,000,000 in the messages loop', '{% for m in messages %}{% for i in range(50000000) %}{{ m.content }}{% endfor %}{% endfor %}', /asked for range\(50000000\)/],
  ['a list grown 30,000,000 times in a namespace', '{% set ns = namespace(l=[]) %}{% for i in range(30000000) %}{% set ns.l = ns.l + [i] %}{% endfor %}{{ ns.l|length }}', /asked for range\(30000000\)/],
  ['a loop of 1,000,000', '{% for i in range(1000000) %}x{% endfor %}', /asked for range\(1000000\)/],
  ['a string doubled 40 times', `${doubled(40)}{{ ns.s }}`, /made a namespace that prints as \d+ characters, more than the 32768/],
  ['a macro that calls itself', '{% macro m(n) %}{{ m(n + 1) }}{% endmacro %}{{ m(0) }}', /chat template failed to render these messages: Maximum call stack size exceeded/],
  ['a list nested in itself 40 times', '{% set ns = namespace(a=[1]) %}{% for i in range(40) %}{% set ns.a = [ns.a, ns.a] %}{% endfor %}{{ ns.a }}', /made a list that prints as 34806 characters/],
  ['a namespace that holds itself', '{% set ns = namespace() %}{% set ns.self = ns %}{{ ns }}', /made a namespace that holds itself/],
  ['a string replaced into itself', `${doubled(12)}{{ ns.s.replace('a', ns.s) }}`, /would write, with the method replace, 33562624 characters/],
  ['the filter replace', `${doubled(12)}{{ ns.s|replace('a', ns.s) }}`, /would write, with the filter replace, 33562624 characters/],
  ['a string joined with itself', `${doubled(12)}{{ ns.s|join(ns.s) }}`, /would write, with the filter join, 67108864 characters/],
  ['an indent of 10^9', `${doubled(12)}{{ (ns.s ~ '\n')|indent(1000000000) }}`, /would write, with the filter indent, 2000008193 characters/],
  ['tojson indented by 10^8', '{{ messages|tojson(indent=100000000) }}', /would write, with the filter tojson, \d+ characters/],
  ['100,000 loops of 100,000', '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}', /made a list that prints as 888892 characters/],
  ['a flat string made 90,000 times', `${doubled(13)}{% for i in range(300) %}{% for j in range(300) %}{% set x = (ns.s ~ j)|upper %}{% endfor %}{% endfor %}`,
    /made more than 67108864 characters of values and text in all/],
  ['a template of 300,000 characters', '{{ x }}'.repeat(300000 / 7 + 1), /chat template is 300006 characters long, more than the 262144 multihead reads/],
  ['a million blocks', '{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}', /rendered more than 100000 blocks/],
];

/**
 * Writes after "hi" with each of HOSTILE_TEMPLATES, one model each (`load(template)` resolves to it;
 * no template: the checkpoint's own), then with the checkpoint's own template and runs plain text.
 * `report(line)` is called as each ends: { name, message, ms }, then { name: 'afterwards', written, tokens }.
 */
export async function writeWithEach(load, report) {
  const hi = { messages: [{ role: 'user', content: 'hi' }] };
  for (const [name, template] of HOSTILE_TEMPLATES) {
    const model = await load(template);
    const start = performance.now();
    let message = null;
    try {
      for await (const step of model.generate(hi, { maxNewTokens: 2 })) void step;
    } catch (error) {
      message = error.message;
    }
    report({ name, message, ms: Math.round(performance.now() - start) });
    model.dispose();
  }
  const model = await load();
  let written = 0;
  for await (const step of model.generate(hi, { maxNewTokens: 2 })) written += step.id >= 0 ? 1 : 0;
  report({ name: 'afterwards', written, tokens: model.run('Once upon a time').tokens.length });
  model.dispose();
}
