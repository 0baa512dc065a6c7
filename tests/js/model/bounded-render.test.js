// bounded-render.js: each bound stops a render with a TemplateBoundError naming it, at the bound
// and not before; what passes renders exactly as jinja's own Template.render does.
import * as jinja from '@huggingface/jinja';
import { TemplateBoundError, renderWithin } from '../../../web/src/model/bounded-render.js';

const ROOMY = { maxChars: 1e6, maxWork: 1e8, maxBlocks: 1e5, maxMs: 60000 };
const { Template } = jinja;
const render = (source, limits = {}, context = {}) => renderWithin(jinja, new Template(source), context, { ...ROOMY, ...limits });
const bound = (source, limits, context) => {
  try {
    render(source, limits, context);
  } catch (error) {
    if (error instanceof TemplateBoundError) return { bound: error.bound, message: error.message };
    throw error;
  }
  return null;
};

test('what stays within the bounds renders as jinja renders it, globals included', () => {
  const source = '{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{{ loop.index }}:{{ m.role|upper }} ' +
    '{{ m.content.replace("a", "4")|indent(2) }}{% endfor %}{{ ns.n }}{{ true }}{{ none is none }}{{ True and not False }}' +
    '{{ range(3)|join(",") }}{{ range(1, 4)|list|tojson }}{{ range(5, 0, -2)|tojson(indent=2) }}{{ messages|tojson }}' +
    '{{ {"k": [1, 2.5]}|tojson(separators=(",", ":")) }}{{ "a\nb"|indent(first=true) }}{{ ["x", "y"]|join }}';
  const context = { messages: [{ role: 'user', content: 'a banana\nand a cat' }, { role: 'assistant', content: 'yes' }] };
  expect(render(source, {}, context)).toBe(new Template(source).render(context));
});

test('raise_exception throws its message, and strftime_now writes as Python\'s strftime in its C locale', () => {
  expect(() => render('{{ raise_exception("no system role") }}')).toThrow(/^no system role$/);
  const now = new Date();
  const text = render('{{ strftime_now("%d %b %Y, %B %m %H:%M %%") }}');
  const months = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  expect(text).toMatch(new RegExp(`^\\d\\d ${months[now.getMonth()].slice(0, 3)} ${now.getFullYear()}, ${months[now.getMonth()]} \\d\\d \\d\\d:\\d\\d %$`));
});

test('range takes one to three whole numbers and refuses more items than the blocks a render may run', () => {
  expect(render('{{ range(4)|join(" ") }}|{{ range(2, 5)|join(" ") }}|{{ range(9, 0, -4)|join(" ") }}|{{ range(3, 1)|length }}')).toBe('0 1 2 3|2 3 4|9 5 1|0');
  expect(() => render('{{ range(1.5) }}')).toThrow('range() takes 1 to 3 whole numbers, got (1.5)');
  expect(() => render('{{ range(1, 2, 0) }}')).toThrow('range() step must not be zero');
  expect(bound('{% for i in range(11) %}{% endfor %}', { maxBlocks: 10 })).toEqual({ bound: 'blocks',
    message: "the model's chat template asked for range(11), which has 11 items, more than the 10 a render may loop over" });
  expect(bound('{% for i in range(10) %}{% endfor %}', { maxBlocks: 11 })).toBeNull();
});

test('blocks: every loop iteration, branch taken and macro called counts', () => {
  const loops = '{% for i in [1, 2, 3] %}{% for j in [1, 2, 3] %}{% endfor %}{% endfor %}'; // 1 + 3 + 9 blocks
  expect(bound(loops, { maxBlocks: 13 })).toBeNull();
  expect(bound(loops, { maxBlocks: 12 })?.bound).toBe('blocks');
  const calls = '{% macro m() %}x{% endmacro %}{% if true %}{{ m() }}{{ m() }}{% endif %}'; // the template, the branch, two calls
  expect(bound(calls, { maxBlocks: 4 })).toBeNull();
  expect(bound(calls, { maxBlocks: 3 })).toEqual({ bound: 'blocks', message: "the model's chat template rendered more than 3 blocks " +
    '(each loop iteration renders one, as does each branch taken and each macro called): it was stopped there' });
});

test('characters: the text written is checked as each loop iteration ends, and so is every value made', () => {
  const loop = '{% for i in range(100) %}abcdefghij{% endfor %}';
  expect(bound(loop, { maxChars: 1000 })).toBeNull();
  expect(bound(loop, { maxChars: 999, charsNote: ' (a note)' })).toEqual({ bound: 'characters',
    message: "the model's chat template wrote 1000 characters, more than the 999 a render may write (a note): it was stopped there" });
  expect(bound('{% set s = "abcdef" ~ "ghij" %}', { maxChars: 9 })?.message).toMatch(/made a string of 10 characters, more than the 9/);
  expect(bound('{% set l = ["ab", "cd"] %}', { maxChars: 14 })).toBeNull(); // prints as ["ab", "cd"]: 12 characters, counted as 14
  expect(bound('{% set l = ["ab", "cd"] %}', { maxChars: 13 })?.message).toMatch(/made a list that prints as 14 characters/);
});

test('characters: a list nested in itself is refused at the level that passes, never printed', () => {
  const source = '{% set ns = namespace(a=[0]) %}{% for i in range(60) %}{% set ns.a = [ns.a, ns.a] %}{% endfor %}{{ ns.a }}';
  expect(bound(source, { maxChars: 1e6 })?.message).toMatch(/made a list that prints as \d{7} characters, more than the 1000000/);
  expect(bound('{% set ns = namespace() %}{% set ns.me = [ns] %}{{ ns }}')?.message).toMatch(/made a namespace that holds itself/);
});

test('work: the characters of every value made count, those read again do not', () => {
  const made = '{% for i in range(10) %}{% set x = ("0123456789" ~ i)|upper %}{% endfor %}';
  expect(bound(made, { maxWork: 400 })).toBeNull();
  expect(bound(made, { maxWork: 200 })).toEqual({ bound: 'work',
    message: "the model's chat template made more than 200 characters of values and text in all: it was stopped there" });
  const read = '{% for i in range(10) %}{% set x = s %}{% set y = s %}{% endfor %}';
  expect(bound(read, { maxWork: 200 }, { s: 'x'.repeat(1000) })).toBeNull();
});

test('time: a render that runs too long is stopped at its deadline', () => {
  const slow = '{% for i in range(300) %}{% for j in range(300) %}{% if "zz" in s %}{% endif %}{% endfor %}{% endfor %}';
  expect(bound(slow, { maxMs: 1 }, { s: 'ab'.repeat(1000) })).toEqual({ bound: 'time',
    message: "the model's chat template ran for more than 1 ms: it was stopped there" });
});

test('replace, join, indent and tojson are measured from their inputs before they run', () => {
  const s = { s: 'ab'.repeat(500) }; // 1000 characters
  expect(bound('{{ s.replace("a", s) }}', { maxChars: 1e5 }, s)?.message).toMatch(/would write, with the method replace, 501000 characters/);
  expect(bound('{{ s|replace("", "xy") }}', { maxChars: 2e3 }, s)?.message).toMatch(/would write, with the filter replace, 3002 characters/);
  expect(bound('{{ s|join(s) }}', { maxChars: 1e5 }, s)?.message).toMatch(/would write, with the filter join, 1000000 characters/);
  expect(bound('{{ (s ~ "\n" ~ s)|indent(1000) }}', { maxChars: 4000 }, s)?.message).toMatch(/would write, with the filter indent, 4001 characters/);
  expect(bound('{{ (s ~ "\n" ~ s)|indent(1000) }}', { maxChars: 4001 }, s)).toBeNull();
  expect(bound('{{ [[1, 2], [3]]|tojson(indent=100) }}', { maxChars: 1000 })?.message).toMatch(/would write, with the filter tojson, \d+ characters/);
  // Each within its bound gives jinja's text.
  for (const source of ['{{ s.replace("b", "-") }}', '{{ s|join("+") }}', '{{ (s ~ "\n" ~ s)|indent(3) }}', '{{ [[1, 2], [3]]|tojson(indent=4) }}']) {
    expect(render(source, {}, s)).toBe(new Template(source).render(s));
  }
});

test('a dict or namespace with a key named replace is called as jinja calls it', () => {
  const source = '{% macro r(a, b) %}{{ a }}>{{ b }}{% endmacro %}{% set ns = namespace(replace=r) %}{{ ns.replace(1, 2) }}';
  expect(render(source)).toBe(new Template(source).render({}));
  expect(() => render('{{ none.replace(1, 2) }}')).toThrow('Cannot call something that is not a function: got UndefinedValue');
});
