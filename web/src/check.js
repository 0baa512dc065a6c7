// Argument checks shared by the public wrappers. Each throws a TypeError (wrong kind of value) or a
// RangeError (right kind, wrong size or value) whose message says what was expected and what was given.

/** Describes a value for an error message without dumping large arrays into it. */
export function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an Array of length ${value.length}`;
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of length ${value.length}`;
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'Object'})`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  return `${typeof value} ${String(value)}`;
}

export function checkObject(name, value) {
  if (value === null || typeof value !== 'object') throw new TypeError(`${name} must be an object, got ${describe(value)}`);
  return value;
}

export function checkInteger(name, value, min, max) {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new TypeError(`${name} must be an integer, got ${describe(value)}`);
  }
  if (value < min || value > max) throw new RangeError(`${name} must be from ${min} to ${max}, got ${value}`);
  return value;
}

export function checkBoolean(name, value) {
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be true or false, got ${describe(value)}`);
  return value;
}

/** A Float32Array, or an array-like of numbers, of exactly `length` finite values. */
export function checkFloats(name, value, length, expected) {
  const ok = value instanceof Float32Array || value instanceof Float64Array || Array.isArray(value);
  if (!ok) throw new TypeError(`${name} must be a Float32Array (or an array of numbers), got ${describe(value)}`);
  if (value.length !== length) {
    throw new RangeError(`${name} must have ${expected} = ${length} values, got ${value.length}`);
  }
  for (let i = 0; i < length; i++) {
    const v = value[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new RangeError(`${name}[${i}] is ${describe(v)}; every value must be a finite number`);
    }
  }
  return value;
}

/** A per-key visibility mask: a Uint8Array or array of 0/1 or booleans, one per token. */
export function checkKeyMask(value, nTokens) {
  const ok = value instanceof Uint8Array || Array.isArray(value);
  if (!ok) throw new TypeError(`keyMask must be a Uint8Array (or an array of 0/1), got ${describe(value)}`);
  if (value.length !== nTokens) {
    throw new RangeError(`keyMask must have one entry per token (nTokens = ${nTokens}), got ${value.length}`);
  }
  const mask = new Uint8Array(nTokens);
  for (let i = 0; i < nTokens; i++) {
    const v = value[i];
    if (v !== 0 && v !== 1 && v !== true && v !== false) {
      throw new RangeError(`keyMask[${i}] is ${describe(v)}; use 1 (visible) or 0 (hidden)`);
    }
    mask[i] = v ? 1 : 0;
  }
  return mask;
}

export function checkAlive(disposed, what) {
  if (disposed) throw new Error(`This ${what} has been disposed and can no longer be used`);
}
