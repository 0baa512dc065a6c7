// A chat template rendered within stated bounds. The template comes from tokenizer_config.json, an
// untrusted file, and @huggingface/jinja has no limits of its own: `range(10**8)`, two nested
// loops, a list grown in a loop or a string replaced into itself fill the heap or run for minutes,
// and nothing can stop a synchronous render from outside (run() takes a chat on the caller's thread).
//
// So jinja's own Interpreter runs under a meter, which stops it with a TemplateBoundError once:
// - the text written passes `maxChars`: the text of any block, or the text its loops, branches
//   and macros have written so far, checked as each of them ends;
// - any value an expression makes passes `maxChars` (lists and dicts are measured by the text they
//   print as, memoised per value, so a list nested in itself 30 times is refused at the level that
//   passes, never printed);
// - the values made in all pass `maxWork` characters, which bounds memory: a value looked up is
//   not counted again, one made is, even where V8 shares its characters with another;
// - `maxBlocks` blocks have been rendered: every loop iteration renders its body once, as does
//   every branch taken and macro called;
// - `maxMs` have passed, read every 256 steps.
// range() is ours, as long as maxBlocks at most (Jinja's own sandbox stops range() at 100,000
// items), and the operations whose result can be far longer than their inputs are measured from
// their inputs before they run: replace (method and filter), join, indent and tojson.
//
// What it does not bound: one step of jinja's that would be slow on values within these bounds
// (none is known: each is about linear in its inputs, or measured first), and parsing the
// template, whose size its file's limit bounds. It overrides evaluate and three methods private
// to jinja 0.5.13's TypeScript (renderBlock, applyFilter, evaluateArguments), so the package is
// pinned to that version; tests/js/model/bounded-render.test.js and tests/js/hostile/chat-templates.test.js
// fail if a bound stops holding. The library is given, not imported: chat.js imports it with the
// first model that has a template, so a page that never renders one never needs it.

/** What a render stopped at: `bound` names the limit ('characters', 'work', 'blocks', 'time'). */
export class TemplateBoundError extends Error {
  constructor(message, bound) {
    super(message);
    this.name = 'TemplateBoundError';
    this.bound = bound;
  }
}

const CLOCK_EVERY = 256; // steps between two reads of the clock

/**
 * The text `template` (a Template of `jinja`, the @huggingface/jinja module) renders from `context`
 * (plain data: its names become the template's variables), within `limits` = { maxChars, maxWork,
 * maxBlocks, maxMs, charsNote }: charsNote follows the number in the message for maxChars, saying
 * where it comes from.
 */
export function renderWithin(jinja, template, context, limits) {
  const environment = new jinja.Environment();
  for (const [name, value] of Object.entries(globals(limits.maxBlocks))) environment.set(name, value);
  for (const [name, value] of Object.entries(context)) environment.set(name, value);
  return new (metered(jinja.Interpreter))(environment, limits).run(template.parsed).value;
}

// The globals jinja's Template.render sets (setupGlobals, which the package does not export),
// with a range() of bounded length; `namespace` comes with every Environment.
function globals(maxItems) {
  return {
    false: false, true: true, none: null, False: false, True: true, None: null,
    raise_exception: (message) => {
      throw new Error(message);
    },
    range: (...args) => boundedRange(args, maxItems),
    strftime_now: (format) => strftime(new Date(), String(format)),
  };
}

/** Python's range(stop), range(start, stop) or range(start, stop, step), refused past maxItems. */
function boundedRange(args, maxItems) {
  if (args.length < 1 || args.length > 3 || !args.every(Number.isInteger)) {
    throw new TypeError(`range() takes 1 to 3 whole numbers, got (${args.map(String).join(', ')})`);
  }
  const [start, stop, step] = args.length === 1 ? [0, args[0], 1] : [args[0], args[1], args[2] ?? 1];
  if (step === 0) throw new Error('range() step must not be zero');
  const count = Math.max(0, Math.ceil((stop - start) / step));
  if (count > maxItems) {
    throw new TemplateBoundError(`the model's chat template asked for range(${args.join(', ')}), which has ${count} items, ` +
      `more than the ${maxItems} a render may loop over`, 'blocks');
  }
  return Array.from({ length: count }, (_, i) => start + i * step);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** The directives of Python's strftime that jinja's strftime_now knows, with Python's C-locale month names. */
function strftime(date, format) {
  const two = (n) => String(n).padStart(2, '0');
  const parts = {
    '%Y': () => String(date.getFullYear()), '%m': () => two(date.getMonth() + 1), '%d': () => two(date.getDate()),
    '%b': () => MONTHS[date.getMonth()], '%B': () => MONTH_NAMES[date.getMonth()], '%H': () => two(date.getHours()),
    '%M': () => two(date.getMinutes()), '%%': () => '%',
  };
  return format.replace(/%[YmdbBHM%]/g, (directive) => parts[directive]());
}

const meteredClasses = new WeakMap(); // jinja's Interpreter → MeteredInterpreter over it

/** The metered subclass of `Interpreter`, made once. */
function metered(Interpreter) {
  if (!meteredClasses.has(Interpreter)) meteredClasses.set(Interpreter, meteredInterpreter(Interpreter));
  return meteredClasses.get(Interpreter);
}

const meteredInterpreter = (Interpreter) => class MeteredInterpreter extends Interpreter {
  #limits;
  #deadline;
  #steps = 0;
  #work = 0;
  #blocks = 0;
  #sizes = new WeakMap(); // list or dict value → its #shape (a namespace's is not kept: it can change)
  #filters = []; // the filter calls whose arguments are being evaluated: { args (the AST's), name, operand }
  #written = []; // per block being rendered, the characters its inner blocks have written so far

  constructor(environment, limits) {
    super(environment);
    this.#limits = limits;
    this.#deadline = performance.now() + limits.maxMs;
  }

  evaluate(node, environment) {
    this.#step();
    const value = isReplaceMethod(node) ? this.#replaceMethod(node, environment) : super.evaluate(node, environment);
    // A name or a member reads a value that exists; anything else makes one.
    const made = !(node?.type === 'Identifier' || (node?.type === 'MemberExpression' && node.property.type !== 'SliceExpression'));
    const size = this.#shape(value).size;
    this.#check(size, () => `made ${KINDS[value.type] ?? 'a value of'}`);
    if (made) this.#charge(size);
    return value;
  }

  renderBlock(statements, environment) {
    this.#step();
    if (++this.#blocks > this.#limits.maxBlocks) {
      this.#fail(`rendered more than ${this.#limits.maxBlocks} blocks (each loop iteration renders one, as does each branch ` +
        'taken and each macro called)', 'blocks');
    }
    // A block's text is concatenated, which V8 does without copying: it costs no work, but its
    // length is checked as it grows, block by block (a loop's text grows an iteration at a time).
    this.#written.push(0);
    let text;
    try {
      text = super.renderBlock(statements, environment);
    } finally {
      this.#written.pop();
    }
    this.#check(text.length, () => 'wrote');
    if (this.#written.length) this.#check(this.#written[this.#written.length - 1] += text.length, () => 'wrote');
    return text;
  }

  // Filters whose result can outgrow their inputs are measured once their arguments are known
  // (in evaluateArguments, which applyFilter calls for them), before they run.
  applyFilter(operand, filter, environment) {
    const name = filter.type === 'CallExpression' ? filter.callee?.value : null;
    if (!GROWING_FILTERS.has(name)) return super.applyFilter(operand, filter, environment);
    this.#filters.push({ args: filter.args, name, operand });
    try {
      return super.applyFilter(operand, filter, environment);
    } finally {
      this.#filters.pop();
    }
  }

  evaluateArguments(args, environment) {
    const evaluated = super.evaluateArguments(args, environment);
    const filter = this.#filters.at(-1);
    if (filter?.args === args) this.#checkFilter(filter, ...evaluated);
    return evaluated;
  }

  #checkFilter({ name, operand }, positional, named) {
    const arg = (index, key) => positional[index] ?? named.get(key);
    const text = (value) => (value?.type === 'StringValue' ? value.value : '');
    if (name === 'replace' && operand.type === 'StringValue') {
      this.#checkReplace(operand.value, positional.map((v) => v.value), 'the filter replace');
    } else if (name === 'join') {
      const separator = text(arg(0, 'separator')).length;
      const items = operand.type === 'StringValue' ? [...operand.value].length : operand.value?.length ?? 0;
      this.#check(this.#shape(operand).size + Math.max(0, items - 1) * separator, () => 'would write, with the filter join,');
    } else if (name === 'indent' && operand.type === 'StringValue') {
      const width = arg(0, 'width');
      const each = width?.type === 'StringValue' ? width.value.length : Math.max(0, Number(width?.value ?? 4));
      const lines = operand.value.split('\n').length;
      this.#check(operand.value.length + lines * each, () => 'would write, with the filter indent,');
    } else if (name === 'tojson') {
      // Every item starts a line, indented once per level it is nested in.
      const indent = Math.max(0, Number(named.get('indent')?.value ?? 0));
      const separators = named.get('separators')?.value;
      const extra = Array.isArray(separators) ? separators.reduce((sum, s) => sum + text(s).length, 0) : 0;
      const { size, items, depth } = this.#shape(operand);
      this.#check(6 * size + items * (extra + 1 + indent * depth), () => 'would write, with the filter tojson,');
    }
  }

  // `text.replace(old, new[, count])`: jinja evaluates the arguments, then the string, as its
  // evaluateCallExpression does; the call is measured before it runs.
  #replaceMethod(node, environment) {
    const args = this.evaluateCallArguments(node.args, environment);
    const subject = this.evaluate(node.callee.object, environment);
    // jinja's member lookup: a dict's or namespace's own key first, then the type's methods.
    const container = subject.value instanceof Map;
    const own = container ? subject.value.get('replace') : undefined;
    const replace = own ?? (subject.type === 'NamespaceValue' ? undefined : subject.builtins.get('replace')) ?? this.evaluate(undefined, environment);
    if (replace.type !== 'FunctionValue') throw new Error(`Cannot call something that is not a function: got ${replace.type}`);
    if (subject.type === 'StringValue') this.#checkReplace(subject.value, args.map((v) => v.value), 'the method replace');
    return replace.value(args, environment);
  }

  #checkReplace(text, [old, replacement], what) {
    if (typeof old !== 'string' || typeof replacement !== 'string') return; // jinja refuses them
    let places = 0; // where `replacement` goes: between every two characters, or at each `old`
    if (old === '') places = [...text].length + 1;
    else for (let at = text.indexOf(old); at >= 0; at = text.indexOf(old, at + old.length)) places++;
    this.#check(text.length + places * replacement.length, () => `would write, with ${what},`);
  }

  #step() {
    if (++this.#steps % CLOCK_EVERY === 0 && performance.now() > this.#deadline) {
      this.#fail(`ran for more than ${this.#limits.maxMs} ms`, 'time');
    }
  }

  // `did()` says what made `chars` characters ('wrote', 'made a list that prints as'…), once they are too many.
  #check(chars, did) {
    if (chars > this.#limits.maxChars) {
      const count = chars > 1e15 ? 'more than 10^15' : String(chars);
      this.#fail(`${did()} ${count} characters, more than the ${this.#limits.maxChars} a render may write${this.#limits.charsNote ?? ''}`, 'characters');
    }
  }

  #charge(chars) {
    this.#work += chars;
    if (this.#work > this.#limits.maxWork) {
      this.#fail(`made more than ${this.#limits.maxWork} characters of values and text in all`, 'work');
    }
  }

  #fail(what, bound) {
    throw new TemplateBoundError(`the model's chat template ${what}: it was stopped there`, bound);
  }

  /**
   * { size, items, depth } of a value: the length it prints as, how many values it holds, how
   * deeply they nest. Lists and dicts do not change once made, so theirs are kept; a namespace
   * can, so it is measured again each time, and one that holds itself never ends.
   */
  #shape(value, open = new Set()) {
    switch (value?.type) {
      case 'StringValue':
        return { size: value.value.length, items: 1, depth: 0 };
      case 'ArrayValue': case 'TupleValue': case 'ObjectValue': case 'KeywordArgumentsValue': case 'NamespaceValue': {
        const known = this.#sizes.get(value);
        if (known) return known;
        if (open.has(value)) this.#fail('made a namespace that holds itself', 'characters');
        open.add(value);
        const entries = value.value instanceof Map ? [...value.value] : value.value.map((v) => [null, v]);
        const shape = { size: 2, items: 1, depth: 0 };
        let mutable = value.type === 'NamespaceValue';
        for (const [key, child] of entries) {
          const inner = this.#shape(child, open);
          shape.size += inner.size + 4 + (key === null ? 0 : key.length + 4); // quotes and a separator; a key, quoted, and ": "
          shape.items += inner.items;
          shape.depth = Math.max(shape.depth, inner.depth + 1);
          mutable ||= inner.mutable;
        }
        open.delete(value);
        if (!mutable) this.#sizes.set(value, shape);
        return mutable ? { ...shape, mutable } : shape;
      }
      case 'IntegerValue': case 'FloatValue': case 'BooleanValue':
        return { size: String(value.value).length, items: 1, depth: 0 };
      default: // none, undefined, a function
        return { size: 4, items: 1, depth: 0 };
    }
  }
};

// What a value is, for messages; a list or dict is measured by the text it prints as.
const KINDS = {
  StringValue: 'a string of', ArrayValue: 'a list that prints as', TupleValue: 'a tuple that prints as', ObjectValue: 'a dict that prints as',
  KeywordArgumentsValue: 'keyword arguments that print as', NamespaceValue: 'a namespace that prints as',
};

// Filters that take arguments and can make a result far longer than their operand.
const GROWING_FILTERS = new Set(['replace', 'join', 'indent', 'tojson']);

/** `x.replace(…)`, a call of the method whose result can be the product of two lengths. */
function isReplaceMethod(node) {
  return node?.type === 'CallExpression' && node.callee?.type === 'MemberExpression' && !node.callee.computed &&
    node.callee.property?.type === 'Identifier' && node.callee.property.value === 'replace';
}
