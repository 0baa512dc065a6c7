"""Export tools/hf_models.py's forward pass of one checkpoint folder to ONNX, for the bench's peer.

    /usr/bin/python3 tools/export_onnx.py build/checkpoints/bert-base [--out FILE] [--force]

Reads the folder's config.json and model.safetensors (F32, or BF16 widened to F32 exactly) and
writes model.onnx beside them (or --out), unless it exists and is newer than both. The graph: input `ids` (n) int64, n
dynamic; outputs `attention.0` … `attention.{L-1}`, each layer's softmax probabilities (H, n, n),
and `hidden` (n, d), the final hidden states as the engine returns them (GPT-2: after ln_f; Llama:
after the final norm). One
output per layer, not one stacked tensor, so onnxruntime copies each layer's probabilities once,
as our engine does. Float32, opset 17 (LayerNormalization is one op there; onnxruntime-web 1.31
runs it). It prints how far onnxruntime would have to agree: the PyTorch float32 trace at one
length is checked against the float64 one before export.

What it deliberately does not do: no LM head (neither engine computes logits in the timed run),
no batching, masks or ablation, no DistilBERT nor the newer decoders but Llama, and no `onnx`
package: torch writes the protobuf.
"""
import argparse
import json
import os
import struct
import sys
import warnings

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_models  # noqa: E402

OPSET = 17
BASE_PREFIXES = ("bert.", "roberta.", "transformer.", "model.")  # a head class's base-model prefix
MODEL_TYPES = ("bert", "roberta", "gpt2", "llama")


def reference_name(name):
    """A file's tensor name -> hf_models' name (prefix stripped, legacy LayerNorm names)."""
    for prefix in BASE_PREFIXES:
        if name.startswith(prefix):
            name = name[len(prefix):]
            break
    return name.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")


def read_weights(path):
    """hf_models name -> float32 tensor, for every F32 or BF16 tensor of a safetensors file."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    weights = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] == "I64":  # position_ids: a buffer, not a weight
            continue
        start, end = info["data_offsets"]
        if info["dtype"] == "BF16":  # a bfloat16 is the upper half of its float32
            bits = np.frombuffer(data, dtype="<u2", count=(end - start) // 2, offset=start)
            array = (bits.astype("<u4") << 16).view("<f4")
        elif info["dtype"] == "F32":
            array = np.frombuffer(data, dtype="<f4", count=(end - start) // 4, offset=start)
        else:
            raise SystemExit(f"{path}: {name} is {info['dtype']}; only F32 and BF16 checkpoints are exported")
        weights[reference_name(name)] = torch.from_numpy(array.reshape(info["shape"]).copy())
    return weights


class Reference(torch.nn.Module):
    """hf_models' embeddings and blocks, as a module of token ids (n) -> (probs per layer..., hidden).

    The weights are plain tensors captured by the trace, so the exporter stores them as
    initializers (linear's transposes folded in). Positions come from the ids' length in the
    graph, so one export serves every length."""

    def __init__(self, config, weights):
        super().__init__()
        self.config, self.w = config, weights

    def forward(self, ids):  # ids (n) int64
        c, w = self.config, self.w
        positions = torch.arange(ids.shape[0])
        probs = []
        if c["model_type"] == "gpt2":
            x = hf_models.gpt2_embeddings(w, ids, positions)
            for l in range(c["n_layer"]):
                x, _, p = hf_models.gpt2_block(x, w, l, c)
                probs.append(p)
            x = hf_models.layer_norm(x, w, "ln_f", c["layer_norm_epsilon"])
        elif c["model_type"] == "llama":
            inv_freq = hf_models.llama_rope(c)
            x = w["embed_tokens.weight"][ids]
            for l in range(c["num_hidden_layers"]):
                x, _, p = hf_models.llama_block(x, w, l, c, inv_freq)
                probs.append(p)
            x = hf_models.rms_norm(x, w["norm.weight"], c["rms_norm_eps"])
        else:
            eps = c["layer_norm_eps"]
            if c["model_type"] == "roberta":
                positions = positions + c["pad_token_id"] + 1  # as hf_models.roberta_forward
            x = hf_models.bert_embeddings(w, ids, positions, eps)
            for l in range(c["num_hidden_layers"]):
                x, p = hf_models.post_ln_block(x, w, l, hf_models.BERT_BLOCK, c["num_attention_heads"], eps)
                probs.append(p)
        return (*probs, x)


def check_trace(config, weights, module, n):
    """Largest |difference| of the module (float32) from hf_models.forward in float64, at n tokens."""
    ids = torch.arange(n) % 1000 + 5
    with torch.no_grad():
        *probs, hidden = module(ids)
        ref = hf_models.forward(config, {k: v.double() for k, v in weights.items()}, ids.tolist())
    return (float((torch.stack(probs).double() - ref.attention).abs().max()),
            float((hidden.double() - ref.hidden).abs().max()))


def export(folder, out):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    if config["model_type"] not in MODEL_TYPES:
        raise SystemExit(f"{folder}: model_type {config['model_type']} is not exported ({', '.join(MODEL_TYPES)})")
    weights = read_weights(os.path.join(folder, "model.safetensors"))
    module = Reference(config, weights).eval()
    attention, hidden = check_trace(config, weights, module, 16)
    print(f"{folder}: float32 trace vs float64 reference at 16 tokens: attention {attention:.1e}, hidden {hidden:.1e}")
    layers = config.get("num_hidden_layers", config.get("n_layer"))
    names = [f"attention.{l}" for l in range(layers)] + ["hidden"]
    axes = {"ids": {0: "n"}, "hidden": {0: "n"}, **{a: {1: "n", 2: "n"} for a in names[:-1]}}
    tmp = out + ".tmp"  # a half-written file must never look up to date
    with torch.no_grad(), warnings.catch_warnings():
        # hf_models.attention turns the head width into a Python float for its scale; the width is
        # fixed per model, so the trace's constant is right at every length.
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        # Traced at 8 tokens; the length stays symbolic (dynamic_axes), checked by the bench at 128–1024.
        torch.onnx.export(module, (torch.arange(8) + 5,), tmp, input_names=["ids"], output_names=names,
                          dynamic_axes=axes, opset_version=OPSET, do_constant_folding=True)
    os.replace(tmp, out)
    print(f"wrote {out}: {os.path.getsize(out) / 1e6:.0f} MB, opset {OPSET}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", help="a checkpoint folder: config.json and model.safetensors")
    parser.add_argument("--out", help="the .onnx file (default FOLDER/model.onnx)")
    parser.add_argument("--force", action="store_true", help="export even when the file is up to date")
    args = parser.parse_args()
    out = args.out or os.path.join(args.folder, "model.onnx")
    sources = [os.path.join(args.folder, f) for f in ("config.json", "model.safetensors")]
    if not args.force and os.path.exists(out) and all(os.path.getmtime(out) > os.path.getmtime(s) for s in sources):
        print(f"{out} is up to date")
        return
    export(args.folder, out)


if __name__ == "__main__":
    main()
