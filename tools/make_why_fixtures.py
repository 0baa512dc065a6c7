"""Write float64 references for three "why this token" tools: direct logit attribution, the logit
lens and activation patching.

    /usr/bin/python3 tools/make_why_fixtures.py

For every checkpoint of tools/make_checkpoints.py's CHECKPOINTS that has a language-model head
(all but bert-plain) it writes tests/fixtures/checkpoints/<name>/why.json, computed by
tools/hf_models.py's forwards in float64 from the weights as stored in that folder's
model.safetensors, on the ids of its cases/sentence/ids.i32. make_checkpoints.py deletes and
rewrites each checkpoint folder, why.json included: run this script after it. The inputs are fixed
(the committed fixtures; no randomness) and torch runs on one thread, so two runs write
byte-identical files. tests/fixtures/checkpoints/README.md describes the file's fields.

The definitions, which the engine implements the same way:

- Position p: the last for a causal model, 1 for a masked one. token, against: the clean run's
  first and second logit at p (ties to the lower id).
- Direct logit attribution at p: the residual stream is split into parts (the embeddings'
  output, each head's output times its rows of the output projection without the projection's
  bias, each MLP's whole output, and one part for every bias that is no head's or MLP's own), and
  every norm after them is applied to each part with its statistics frozen at the actual sum
  (a LayerNorm centres each part by its own mean and gives its beta to the biases part); the
  masked-LM transform maps each part by its dense weight, scales it by GELU's actual ratio
  gelu(z)/z and normalises it frozen. A part's contribution is its dot product with the
  unembedding row of token (minus against's); the LM head's output bias goes to the biases part.
  Gemma 3: each head's part also passes post_attention_layernorm frozen at the layer's whole
  attention output; the parts add up to the logit before the final softcap.
- Logit lens at p: the residual stream entering each layer and after the last, through the final
  norm and LM head (the BERT family: the masked-LM head), top 5 by probability.
- Activation patching: the token at q (p - 2 causal, p + 1 masked) replaced; the logit difference
  patch_token - patch_against at p of runs of the corrupted ids with one head's output (every
  position, before the output projection) or the residual stream entering one layer at one
  position taken from the clean run, as (LD - LD_corrupted) / (LD_clean - LD_corrupted).

The script asserts that the parts add up to the logit (1e-10), that the lens's last entry is the
model's own prediction, and that patching the residual stream entering layer 0 restores the clean
run exactly at q and changes nothing elsewhere (1e-12).

What it deliberately does not do: no other prompts or positions, no attribution through the
attention pattern (a head's part is its output as computed: direct effects only), no path
patching, no float32 run (the engine's tolerance is the test's business).
"""
import json
import math
import os
import struct
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_models  # noqa: E402
import make_checkpoints  # noqa: E402

LENS_TOP = 5
REPLACEMENT_STEP = 7         # the corrupted id is (clean id + 7) mod V, bumped past specials
ATTRIBUTION_TOLERANCE = 1e-10
PATCHING_TOLERANCE = 1e-12
MIN_PATCH_EFFECT = 1e-6      # LD_clean - LD_corrupted must be clearly non-zero to divide by it
MAX_FILE_BYTES = 16 << 20    # the largest fixture file read here is under 0.5 MB


# ---------------------------------------------------------------------------------------------
# Reading a checkpoint folder, with every read bounded and the whole input checked.
# ---------------------------------------------------------------------------------------------
def read_bounded(path):
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise ValueError(f"{path}: {size} bytes, more than the {MAX_FILE_BYTES} this script reads")
    with open(path, "rb") as f:
        return f.read()


# safetensors dtype -> (numpy dtype of the stored bytes, torch dtype they are)
STORED_DTYPES = {"F32": ("<f4", torch.float32), "F16": ("<f2", torch.float16), "BF16": ("<i2", torch.bfloat16),
                 "I64": ("<i8", torch.int64), "BOOL": ("?", torch.bool)}


def read_safetensors(path):
    """File name -> tensor as stored. The plain format: u64 little-endian header length N, N bytes
    of JSON, the data; refused unless the entries tile the data exactly."""
    data = read_bounded(path)
    if len(data) < 8:
        raise ValueError(f"{path}: {len(data)} bytes, too short for a safetensors header")
    (n,) = struct.unpack_from("<Q", data)
    if n > len(data) - 8:
        raise ValueError(f"{path}: a header of {n} bytes in a file of {len(data)}")
    header, body = json.loads(data[8:8 + n]), data[8 + n:]
    tensors, spans = {}, []
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry["dtype"] not in STORED_DTYPES:
            raise ValueError(f"{path}: {name} has dtype {entry['dtype']}, not one of {sorted(STORED_DTYPES)}")
        np_dtype, torch_dtype = STORED_DTYPES[entry["dtype"]]
        start, end = entry["data_offsets"]
        count = math.prod(entry["shape"])
        if not 0 <= start <= end <= len(body) or end - start != count * np.dtype(np_dtype).itemsize:
            raise ValueError(f"{path}: {name}'s offsets {start}..{end} do not hold its shape {entry['shape']}")
        t = torch.from_numpy(np.frombuffer(body[start:end], dtype=np_dtype).copy())
        tensors[name] = t.view(torch_dtype).reshape(entry["shape"])
        spans.append((start, end))
    covered = 0
    for start, end in sorted(spans):
        if start != covered:
            raise ValueError(f"{path}: the tensors leave a gap or overlap at byte {covered} of the data")
        covered = end
    if covered != len(body):
        raise ValueError(f"{path}: {len(body) - covered} bytes after the last tensor")
    return tensors


def stored_weights(ck, folder):
    """hf_models names -> float64 weights, through make_checkpoints' reading of the file layout
    (prefixes, legacy names, buffers left out), as its references are computed."""
    stored = read_safetensors(os.path.join(folder, "model.safetensors"))
    tensors = {name: (tuple(t.shape), t.dtype, lambda t=t: t) for name, t in stored.items()}
    return make_checkpoints.reference_weights(ck, tensors, torch.float64)


def read_ids(path, vocab_size):
    data = read_bounded(path)
    if len(data) % 4:
        raise ValueError(f"{path}: {len(data)} bytes, not a whole number of int32 ids")
    ids = np.frombuffer(data, dtype="<i4").tolist()
    if not ids or not all(0 <= i < vocab_size for i in ids):
        raise ValueError(f"{path}: ids must be 0..{vocab_size - 1}, and at least one")
    return ids


def special_ids(folder):
    """The ids of tokenizer.json's special added tokens ([CLS], <s>, <bos>, ...)."""
    tokenizer = json.loads(read_bounded(os.path.join(folder, "tokenizer.json")))
    return {t["id"] for t in tokenizer["added_tokens"] if t.get("special")}


# ---------------------------------------------------------------------------------------------
# Runs.
# ---------------------------------------------------------------------------------------------
class Recorder(hf_models.Probe):
    """Keeps what one run's forward shows, and replaces the residual stream entering layer l at
    position i by patches[(l, i)] (d)."""

    def __init__(self, patches=None):
        self.patches = patches or {}
        self.residuals = []  # L + 1 of (n, d): entering each layer, then after the last
        self.seen = {}       # (layer, name) -> the intermediate (see hf_models.Probe.see)

    def residual(self, l, x):
        for (layer, i), value in self.patches.items():
            if layer == l:
                x = x.clone()
                x[i] = value
        self.residuals.append(x)
        return x

    def see(self, l, name, t):
        self.seen[l, name] = t
        return t


class Model:
    """One checkpoint's config, float64 weights and stored dtype, and the facts every tool reads."""

    def __init__(self, ck, folder):
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
            self.config = json.load(f)
        self.family = self.config["model_type"]
        self.w = stored_weights(ck, folder)
        self.stored_dtype = make_checkpoints.STORAGE[ck.dtype]
        self.causal = self.family in make_checkpoints.CAUSAL_FAMILIES
        self.eps = hf_models.norm_eps(self.config)
        self.unembedding = hf_models.unembedding(self.config, self.w)  # (V, d) or None

    def run(self, ids, ablation=None, patches=None):
        recorder = Recorder(patches)
        trace = hf_models.forward(self.config, self.w, ids, ablation, self.stored_dtype, recorder)
        return trace, recorder

    def logits_before_cap(self, trace, p):
        """(V): the logits at p before Gemma's final softcap (the others have none)."""
        if self.config.get("final_logit_softcapping"):
            return trace.hidden[p] @ self.unembedding.T
        return trace.logits[p]

    def output_bias(self):
        """(V): the masked-LM head's output bias; zeros for the causal heads, which have none."""
        if self.family in hf_models.MLM_HEADS:
            return self.w[hf_models.MLM_HEADS[self.family][2]]
        return torch.zeros(self.unembedding.shape[0], dtype=torch.float64)


def ranked(logits):
    """Ids by decreasing logit, ties to the lower id (a stable sort keeps the ids' order)."""
    return torch.sort(logits, descending=True, stable=True).indices.tolist()


# ---------------------------------------------------------------------------------------------
# Direct logit attribution. Parts are rows of one (K, d) tensor: the embeddings, then every
# head layer by layer, then every MLP, then the biases.
# ---------------------------------------------------------------------------------------------
class Rows:
    def __init__(self, L, H):
        self.L, self.H = L, H
        self.embeddings, self.biases, self.count = 0, 1 + L * H + L, 2 + L * H + L

    def heads(self, l):
        return slice(1 + l * self.H, 1 + (l + 1) * self.H)

    def mlp(self, l):
        return 1 + self.L * self.H + l


def frozen_layer_norm(parts, z, w, name, eps, rows):
    """parts (K, d) through LayerNorm `name` with the variance of the actual input z (d): each part
    centred by its own mean, beta given to the biases part."""
    out = (parts - parts.mean(-1, keepdim=True)) * (w[name + ".weight"] / torch.sqrt(z.var(unbiased=False) + eps))
    out[rows.biases] += w[name + ".bias"]
    return out


def frozen_rms_norm(parts, z, scale, eps):
    """parts (K, d) times scale (d) / rms of the actual input z (d); no centring, no bias."""
    return parts * (scale / torch.sqrt(z.pow(2).mean() + eps))


def residual_parts(model, rec, p, rows):
    """(K, d): the residual stream at p after the last layer, split into parts; a post-norm
    block's two LayerNorms are applied to every part, frozen."""
    w, L, H = model.w, rows.L, rows.H
    names = hf_models.BLOCKS.get(model.family)
    parts = torch.zeros(rows.count, rec.residuals[0].shape[1], dtype=torch.float64)
    parts[rows.embeddings] = rec.residuals[0][p]
    for l in range(L):
        context = rec.seen[l, "context"][p]  # (H·k)
        k = context.shape[0] // H
        W, b = hf_models.output_projection(model.config, w, l)  # (H·k, d), (d) or None
        heads = torch.stack([context[h * k:(h + 1) * k] @ W[h * k:(h + 1) * k] for h in range(H)])  # (H, d)
        if model.family == "gemma3_text":  # post_attention_layernorm, frozen at the whole output
            scale = 1.0 + w[f"layers.{l}.post_attention_layernorm.weight"]
            heads = frozen_rms_norm(heads, rec.seen[l, "attention"][p], scale, model.eps)
        parts[rows.heads(l)] = heads
        if b is not None:
            parts[rows.biases] += b
        if names:
            block = f"{names['layers']}.{l}."
            parts = frozen_layer_norm(parts, rec.seen[l, "ln1_input"][p], w, block + names["ln1"], model.eps, rows)
        parts[rows.mlp(l)] = rec.seen[l, "mlp"][p]
        if names:
            parts = frozen_layer_norm(parts, rec.seen[l, "ln2_input"][p], w, block + names["ln2"], model.eps, rows)
        assert_close(parts.sum(0), rec.residuals[l + 1][p], ATTRIBUTION_TOLERANCE, f"the parts after layer {l}")
    return parts


def head_input_parts(model, parts, z, rows):
    """parts (K, d) of the residual stream z (d) after the last layer -> (K, d) parts of what the
    unembedding reads: through the final norm (pre-norm) or the masked-LM transform, frozen."""
    w = model.w
    if model.family in hf_models.MLM_HEADS:
        dense, norm, _ = hf_models.MLM_HEADS[model.family]
        parts = parts @ w[dense + ".weight"].T
        parts[rows.biases] += w[dense + ".bias"]
        y = hf_models.linear(z, w, dense)  # (d): the dense output of the actual sum
        g = hf_models.gelu_erf(y)
        nonzero = torch.where(y == 0, torch.ones_like(y), y)
        ratio = torch.where(y == 0, torch.full_like(y, 0.5), g / nonzero)  # gelu(y) / y; 1/2, its limit, at 0
        return frozen_layer_norm(parts * ratio, g, w, norm, model.eps, rows)
    kind, name = hf_models.FINAL_NORMS[model.family]
    if kind == "layer":
        return frozen_layer_norm(parts, z, w, name, model.eps, rows)
    scale = w[name + ".weight"] + (1.0 if kind == "gemma_rms" else 0.0)
    return frozen_rms_norm(parts, z, scale, model.eps)


def contributions(parts, direction, bias, logit, rows):
    """parts (K, d) . direction (d), the output bias term added to the biases' part; `logit` is the
    model's own value, which the parts must add up to."""
    c = parts @ direction  # (K)
    c[rows.biases] += bias
    total = float(c.sum())
    assert abs(total - logit) <= ATTRIBUTION_TOLERANCE, (total, logit)
    return {"heads": [c[rows.heads(l)].tolist() for l in range(rows.L)],
            "mlps": [float(c[rows.mlp(l)]) for l in range(rows.L)],
            "embeddings": float(c[rows.embeddings]), "biases": float(c[rows.biases]),
            "total": total, "logit": logit}


def assert_close(a, b, tolerance, what):
    diff = float((a - b).abs().max())
    assert diff <= tolerance, f"{what}: off by {diff:.1e}"


# ---------------------------------------------------------------------------------------------
# The three tools.
# ---------------------------------------------------------------------------------------------
def attribution(model, trace, rec, p, token, against):
    """(contributions to logit[token] - logit[against], contributions to logit[token]) at p."""
    L, H = trace.attention.shape[:2]
    rows = Rows(L, H)
    parts = head_input_parts(model, residual_parts(model, rec, p, rows), rec.residuals[L][p], rows)
    if model.family not in hf_models.MLM_HEADS:  # what the final norm gave the head
        assert_close(parts.sum(0), trace.hidden[p], ATTRIBUTION_TOLERANCE, "the parts after the final norm")
    U, bias, logits = model.unembedding, model.output_bias(), model.logits_before_cap(trace, p)
    difference = contributions(parts, U[token] - U[against], float(bias[token] - bias[against]),
                               float(logits[token] - logits[against]), rows)
    alone = contributions(parts, U[token], float(bias[token]), float(logits[token]), rows)
    return difference, alone


def lens(model, trace, rec, p):
    """L + 1 entries of the top LENS_TOP (id, probability) at p, the last the model's own."""
    entries = []
    for x in rec.residuals:
        _, logits = hf_models.readout(model.config, model.w, x[p:p + 1])
        probs = torch.softmax(logits[0], dim=-1)
        entries.append([{"id": i, "probability": float(probs[i])} for i in ranked(logits[0])[:LENS_TOP]])
    own = torch.softmax(trace.logits[p], dim=-1)
    assert [e["id"] for e in entries[-1]] == ranked(trace.logits[p])[:LENS_TOP]
    assert all(abs(e["probability"] - float(own[e["id"]])) <= PATCHING_TOLERANCE for e in entries[-1])
    return entries


def replacement(original, vocab_size, avoid):
    r = (original + REPLACEMENT_STEP) % vocab_size
    while r == original or r in avoid:
        r = (r + 1) % vocab_size
    return r


def patching(model, ids, clean, clean_rec, p, token, against, specials):
    """(corrupted ids, patch_against, the "patch" object)."""
    q = p - 2 if model.causal else p + 1
    assert 0 <= q < len(ids), (q, len(ids))
    corrupted = list(ids)
    corrupted[q] = replacement(ids[q], model.config["vocab_size"], specials)
    dirty, _ = model.run(corrupted)
    top = ranked(dirty.logits[p])[0]
    patch_against = top if top != token else against

    def ld(trace):  # after Gemma's softcap: the logits the model predicts with
        return float(trace.logits[p, token] - trace.logits[p, patch_against])

    ld_clean, ld_corrupted = ld(clean), ld(dirty)
    assert abs(ld_clean - ld_corrupted) > MIN_PATCH_EFFECT, (ld_clean, ld_corrupted)

    def restored(trace):
        return (ld(trace) - ld_corrupted) / (ld_clean - ld_corrupted)

    L, H = clean.attention.shape[:2]
    heads = []
    for l in range(L):
        context = clean_rec.seen[l, "context"]  # (n, H·k)
        k = context.shape[1] // H
        heads.append([restored(model.run(corrupted, ablation={(l, h): context[:, h * k:(h + 1) * k]})[0])
                      for h in range(H)])
    positions = [[restored(model.run(corrupted, patches={(l, i): clean_rec.residuals[l][i]})[0])
                  for i in range(len(ids))] for l in range(L)]
    for i, value in enumerate(positions[0]):
        assert abs(value - (1.0 if i == q else 0.0)) <= PATCHING_TOLERANCE, (i, q, value)
    return corrupted, patch_against, {"heads": heads, "positions": positions,
                                      "clean": ld_clean, "corrupted": ld_corrupted}


def why(model, ids, specials):
    clean, rec = model.run(ids)
    p = len(ids) - 1 if model.causal else 1
    token, against = ranked(clean.logits[p])[:2]
    difference, alone = attribution(model, clean, rec, p, token, against)
    corrupted, patch_against, patch = patching(model, ids, clean, rec, p, token, against, specials)
    return {"ids": ids, "position": p, "token": token, "against": against,
            "contributions": difference, "contributions_token": alone,
            "lens": lens(model, clean, rec, p),
            "corrupted": corrupted, "patch_token": token, "patch_against": patch_against, "patch": patch}


def write_json(path, fields):
    """One top-level field a line, each value compact; floats as Python's shortest round-trip
    decimal, so they read back as the same float64."""
    lines = [f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'), allow_nan=False)}" for k, v in fields.items()]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("{\n" + ",\n".join(lines) + "\n}\n")


def main():
    torch.set_num_threads(1)  # one summation order, so reruns are byte-identical
    for ck in make_checkpoints.CHECKPOINTS:
        folder = os.path.join(make_checkpoints.OUT_DIR, ck.name)
        model = Model(ck, folder)
        if model.unembedding is None:
            print(f"{ck.name}: no LM head, skipped")
            continue
        ids = read_ids(os.path.join(folder, "cases", "sentence", "ids.i32"), model.config["vocab_size"])
        fields = why(model, ids, special_ids(folder))
        write_json(os.path.join(folder, "why.json"), fields)
        attributed = max(abs(c["total"] - c["logit"]) for c in (fields["contributions"], fields["contributions_token"]))
        patch = fields["patch"]
        print(f"{ck.name}: p {fields['position']}, token {fields['token']} against {fields['against']}, "
              f"max |total - logit| {attributed:.1e}; patch {fields['patch_token']} - {fields['patch_against']}: "
              f"clean {patch['clean']:.4f}, corrupted {patch['corrupted']:.4f}")


if __name__ == "__main__":
    main()
