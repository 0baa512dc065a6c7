// Argument checks shared by the public wrappers. Each throws a TypeError (wrong kind of value) or a
// RangeError (right kind, wrong size or value) whose message says what was expected and what was given.
//
// The checks that take arrays also *snapshot* them: they read every element exactly once into a
// fresh typed array that only this package holds, and only that copy ever reaches WASM. A getter,
// a Proxy or a redefined `length` can run user code while an argument is read; with snapshots that
// code runs here, before anything touches WASM memory, never in the middle of a copy into it (where
// it could dispose the layer being called, grow the memory under the copy, or throw past C++ and
// leak what C++ had allocated). Typed arrays are read through the built-in getters, so their own
// properties cannot lie about their length.

const TypedArray = Object.getPrototypeOf(Uint8Array);
const builtin = (name) => Object.getOwnPropertyDescriptor(TypedArray.prototype, name).get;
const typedArrayName = builtin(Symbol.toStringTag); // the class name of a real typed array, else undefined
const typedLength = builtin('length');
const typedBuffer = builtin('buffer');
const typedByteOffset = builtin('byteOffset');
const typedByteLength = builtin('byteLength');
const typedSet = TypedArray.prototype.set;
const bufferByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get;
const view = (name) => Object.getOwnPropertyDescriptor(DataView.prototype, name).get;
const [viewBuffer, viewByteOffset, viewByteLength] = [view('buffer'), view('byteOffset'), view('byteLength')];

/** The class name of `value` if it is a real typed array ('Float32Array', …), else undefined. */
function typedArrayType(value) {
  return typedArrayName.call(value);
}

/** A real typed array's own length, which a redefined `length` property cannot change. */
function lengthOf(value) {
  return typedArrayType(value) === undefined ? value.length : typedLength.call(value);
}

/** Describes a value for an error message without dumping large arrays into it. */
export function describe(value) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  const typed = typedArrayType(value);
  if (typed) return `a ${typed} of length ${typedLength.call(value)}`;
  if (Array.isArray(value)) return `an Array of length ${value.length}`;
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

/**
 * A Float32Array, Float64Array or Array of exactly `length` numbers that are finite in float32,
 * returned as a fresh Float32Array snapshot (see the top of this file).
 */
export function checkFloats(name, value, length, expected) {
  const typed = typedArrayType(value);
  if (typed !== 'Float32Array' && typed !== 'Float64Array' && !Array.isArray(value)) {
    throw new TypeError(`${name} must be a Float32Array (or an array of numbers), got ${describe(value)}`);
  }
  const given = lengthOf(value);
  if (given !== length) {
    const detached = typed && given === 0 && bufferByteLength.call(typedBuffer.call(value)) === 0 ? ' (its buffer is empty or detached)' : '';
    throw new RangeError(`${name} must have ${expected} = ${length} values, got ${given}${detached}`);
  }
  const out = new Float32Array(length);
  if (typed) {
    typedSet.call(out, value); // built-in copy: runs no user code
    for (let i = 0; i < length; i++) {
      if (!Number.isFinite(out[i])) throw notFinite(name, i, value[i]);
    }
    return out;
  }
  for (let i = 0; i < length; i++) {
    const v = value[i]; // the one read of this element: a getter runs here, once
    if (typeof v !== 'number') throw new RangeError(`${name}[${i}] is ${describe(v)}; every value must be a finite number`);
    out[i] = v;
    if (!Number.isFinite(out[i])) throw notFinite(name, i, v);
  }
  return out;
}

function notFinite(name, i, v) {
  const why = Number.isFinite(v) ? `, outside float32's range (±${FLOAT32_MAX.toExponential(3)})` : '';
  return new RangeError(`${name}[${i}] is ${describe(v)}${why}; every value must be a finite number`);
}

const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * The bytes of an ArrayBuffer, a typed array or a DataView, as a Uint8Array over the same memory
 * (no copy) that only this package made, read through the built-in getters; null for anything else.
 */
export function bytesOf(value) {
  let buffer, offset, length;
  if (typedArrayType(value) !== undefined) {
    [buffer, offset, length] = [typedBuffer.call(value), typedByteOffset.call(value), typedByteLength.call(value)];
  } else if (value instanceof DataView) {
    [buffer, offset, length] = [viewBuffer.call(value), viewByteOffset.call(value), viewByteLength.call(value)];
  } else if (isArrayBuffer(value)) {
    [buffer, offset, length] = [value, 0, bufferByteLength.call(value)];
  } else {
    return null;
  }
  // A detached buffer reads as 0 bytes, and cannot be viewed at all.
  return length === 0 ? new Uint8Array(0) : new Uint8Array(buffer, offset, length);
}

/** bytesOf(value), which must hold at least one byte; `name` names it in errors. */
export function checkBytes(name, value) {
  const bytes = bytesOf(value);
  if (bytes === null) throw new TypeError(`${name} must be an ArrayBuffer or a Uint8Array, got ${describe(value)}`);
  if (bytes.byteLength === 0) throw new RangeError(`${name} is empty: 0 bytes (was its buffer detached or transferred?)`);
  return bytes;
}

function isArrayBuffer(value) {
  try {
    bufferByteLength.call(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * A per-key visibility mask: a Uint8Array or array of 0/1 or booleans, one per key. The keys are
 * `count`, named `countName` in messages: nTokens in self-attention, nKeys otherwise.
 */
export function checkKeyMask(value, count, countName = 'nTokens') {
  const ok = typedArrayType(value) === 'Uint8Array' || Array.isArray(value);
  if (!ok) throw new TypeError(`keyMask must be a Uint8Array (or an array of 0/1), got ${describe(value)}`);
  const given = lengthOf(value);
  const each = countName === 'nTokens' ? 'token' : 'key';
  if (given !== count) throw new RangeError(`keyMask must have one entry per ${each} (${countName} = ${count}), got ${given}`);
  const mask = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
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
