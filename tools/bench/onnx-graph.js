// An ONNX model of one multi-head self-attention layer, for benchmarking onnxruntime-web against
// our engine. The protobuf bytes are written by hand (ONNX's onnx.proto, proto2 wire format) so the
// benchmark needs no ONNX tooling: the graph is fixed and tiny, a full protobuf library is not.
//
// Not a general ONNX writer: only the fields this graph uses, float32 only, no mask, no causal,
// and no validation beyond what onnxruntime does when it loads the model.

const FLOAT = 1; // TensorProto.DataType
const INT64 = 7;
const ATTR_INT = 2; // AttributeProto.AttributeType
const ATTR_INTS = 7;

// ---- protobuf wire format ----

// Base-128 varint; negative int64 values take ten bytes (two's complement), as protobuf requires.
function varint(value) {
  let v = BigInt.asUintN(64, BigInt(value));
  const out = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return Uint8Array.from(out);
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

const intField = (field, value) => concat([varint(field << 3), varint(value)]); // wire type 0
const bytesField = (field, bytes) => concat([varint((field << 3) | 2), varint(bytes.length), bytes]);
const stringField = (field, s) => bytesField(field, new TextEncoder().encode(s));
// Repeated scalars are written unpacked: the proto2 default, which every ONNX reader accepts.
const message = (...fields) => concat(fields.flat());

// ---- ONNX messages (field numbers from onnx.proto) ----

function tensor(name, dims, dataType, raw) { // TensorProto
  return message(
    dims.map((d) => intField(1, d)),
    intField(2, dataType),
    stringField(8, name),
    // raw_data is little-endian; typed arrays are little-endian on every platform we target.
    bytesField(9, new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength)),
  );
}

// ValueInfoProto of a float tensor; a string dim becomes a symbolic dim_param.
function floatValue(name, dims) {
  const dim = (d) => (typeof d === 'string' ? stringField(2, d) : intField(1, d)); // Dimension
  const shape = message(dims.map((d) => bytesField(1, dim(d)))); // TensorShapeProto
  const tensorType = message(intField(1, FLOAT), bytesField(2, shape)); // TypeProto.Tensor
  return message(stringField(1, name), bytesField(2, bytesField(1, tensorType))); // TypeProto
}

function attribute(name, value) { // AttributeProto: an int or a list of ints
  return Array.isArray(value)
    ? message(stringField(1, name), value.map((v) => intField(8, v)), intField(20, ATTR_INTS))
    : message(stringField(1, name), intField(3, value), intField(20, ATTR_INT));
}

function node(opType, inputs, outputs, attrs = {}) { // NodeProto
  return message(
    inputs.map((s) => stringField(1, s)),
    outputs.map((s) => stringField(2, s)),
    stringField(3, outputs[0]),
    stringField(4, opType),
    Object.entries(attrs).map(([k, v]) => bytesField(5, attribute(k, v))),
  );
}

// ---- the attention graph ----

/**
 * Multi-head self-attention as an ONNX model (IR 8, opset 17), with the same convention as our
 * engine: Q = X·Wq + bq with Wq (dModel_in, dModel_out) row-major, head i uses columns
 * [i·dh, (i+1)·dh), probs = softmax(Q_i·K_iᵀ/√dh) over keys, output = concat(probs·V_i)·Wo + bo.
 *
 * Input `X` (n, dModel) with symbolic n. Outputs `output` (n, dModel) and `probs` (numHeads, n, n).
 * @param {{ dModel: number, numHeads: number,
 *   weights: { wq, wk, wv, wo: Float32Array, bq, bk, bv, bo: Float32Array } }} config
 *   wq…wo are (dModel × dModel) row-major, bq…bo have dModel entries.
 * @returns {Uint8Array} the serialized ModelProto
 */
export function attentionGraph({ dModel: d, numHeads: h, weights: w }) {
  if (d % h !== 0) throw new RangeError(`dModel ${d} is not a multiple of numHeads ${h}`);
  const dh = d / h;

  const initializers = [
    ...['wq', 'wk', 'wv', 'wo'].map((k) => tensor(k, [d, d], FLOAT, w[k])),
    ...['bq', 'bk', 'bv', 'bo'].map((k) => tensor(k, [d], FLOAT, w[k])),
    tensor('heads_shape', [3], INT64, BigInt64Array.from([-1n, BigInt(h), BigInt(dh)])),
    tensor('concat_shape', [2], INT64, BigInt64Array.from([-1n, BigInt(d)])),
    tensor('scale', [], FLOAT, Float32Array.of(1 / Math.sqrt(dh))),
  ];

  // Projection of X, split into heads: (n, d) → (n, h, dh) → transposed by perm.
  const project = (p, perm) => [
    node('MatMul', ['X', `w${p}`], [`${p}_mm`]), // (n, d)
    node('Add', [`${p}_mm`, `b${p}`], [p]), // (n, d)
    node('Reshape', [p, 'heads_shape'], [`${p}_split`]), // (n, h, dh)
    node('Transpose', [`${p}_split`], [`${p}_heads`], { perm }),
  ];

  const nodes = [
    ...project('q', [1, 0, 2]), // (h, n, dh)
    ...project('k', [1, 2, 0]), // (h, dh, n): Kᵀ per head
    ...project('v', [1, 0, 2]), // (h, n, dh)
    node('MatMul', ['q_heads', 'k_heads'], ['scores_raw']), // (h, n, n)
    node('Mul', ['scores_raw', 'scale'], ['scores']), // (h, n, n)
    node('Softmax', ['scores'], ['probs'], { axis: -1 }), // (h, n, n), over keys
    node('MatMul', ['probs', 'v_heads'], ['heads']), // (h, n, dh)
    node('Transpose', ['heads'], ['heads_t'], { perm: [1, 0, 2] }), // (n, h, dh)
    node('Reshape', ['heads_t', 'concat_shape'], ['concat']), // (n, d)
    node('MatMul', ['concat', 'wo'], ['o_mm']), // (n, d)
    node('Add', ['o_mm', 'bo'], ['output']), // (n, d)
  ];

  const graph = message( // GraphProto
    nodes.map((n) => bytesField(1, n)),
    stringField(2, 'attention'),
    initializers.map((t) => bytesField(5, t)),
    bytesField(11, floatValue('X', ['n', d])),
    bytesField(12, floatValue('output', ['n', d])),
    bytesField(12, floatValue('probs', [h, 'n', 'n'])),
  );

  return message( // ModelProto
    intField(1, 8), // ir_version
    stringField(2, 'multihead-bench'),
    bytesField(7, graph),
    bytesField(8, message(stringField(1, ''), intField(2, 17))), // opset_import: ai.onnx v17
  );
}
