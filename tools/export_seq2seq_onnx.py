"""Export a Marian checkpoint's encoder and decoder to ONNX, for the bench's onnxruntime-web peer.

    /usr/bin/python3 tools/export_seq2seq_onnx.py build/checkpoints/opus-mt-en-de [--force]

Reads the folder's config.json and model.safetensors (F32) and writes two graphs beside them, as a
browser translator runs a Marian model (an encoder graph once per source, a decoder graph once per
target token over its cache), with every attention out:

  encoder.onnx  ids (ns) int64 -> hidden (ns, d); attention.{l} (H, ns, ns) per encoder layer;
                cross_key.{l}, cross_value.{l} (H, ns, dh) per decoder layer: the cross-attention's
                keys and values, projected once from the encoder's output.
  decoder.onnx  token (1) int64, position (1) int64, past_key.{l}, past_value.{l} (H, t, dh) per
                decoder layer (t >= 0: the self-attention's cache), cross_key.{l}, cross_value.{l}
                -> logits (V); present_key.{l}, present_value.{l} (H, t + 1, dh); self.{l} (H, 1, t + 1)
                and cross.{l} (H, 1, ns), the new token's attention rows.

Float32, opset 17, written by torch (no `onnx` package). Before export the graphs' modules are
checked against tools/seq2seq_models.py's float64 decode of a short target, token by token.
What it deliberately does not do: no T5 or BART, no batching, no beam search, no ablation.
"""
import argparse
import json
import math
import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seq2seq_models as s2s  # noqa: E402
from export_onnx import read_weights  # noqa: E402

OPSET = 17
EPS = 1e-5  # BART's and Marian's LayerNorm


def reference_weights(path):
    """seq2seq_models' names (no model. prefix) -> float32 tensors."""
    weights = {}
    for name, tensor in read_weights(path).items():
        weights[name[len("model."):] if name.startswith("model.") else name] = tensor
    return weights


class Marian(torch.nn.Module):
    """The weights and the pieces both graphs share."""

    def __init__(self, config, w):
        super().__init__()
        self.config, self.w = config, w
        self.d, self.H = config["d_model"], config["decoder_attention_heads"]
        self.dh = self.d // self.H
        self.act = s2s.act_fn(config["activation_function"])
        self.positions = s2s.marian_positions(config["max_position_embeddings"], self.d)
        self.table = s2s.token_table(w, "decoder")

    def linear(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def norm(self, x, name):
        return torch.nn.functional.layer_norm(x, (self.d,), self.w[name + ".weight"], self.w[name + ".bias"], EPS)

    def heads(self, x):  # (n, d) -> (H, n, dh)
        return x.reshape(-1, self.H, self.dh).transpose(0, 1)

    def attend(self, q, k, v):  # q (H, nq, dh), k and v (H, nk, dh) -> (nq, d), probabilities (H, nq, nk)
        probs = torch.softmax((q @ k.transpose(1, 2)) / math.sqrt(self.dh), dim=-1)
        return (probs @ v).transpose(0, 1).reshape(-1, self.d), probs

    def feed_forward(self, x, p):
        return self.linear(self.act(self.linear(x, p + "fc1")), p + "fc2")

    def embed(self, ids, positions):
        return self.table[ids] * math.sqrt(self.d) + self.positions[positions]


class Encoder(Marian):
    def forward(self, ids):
        x = self.embed(ids, torch.arange(ids.shape[0]))
        attentions = []
        for l in range(self.config["encoder_layers"]):
            p = f"encoder.layers.{l}."
            a = p + "self_attn."
            out, probs = self.attend(self.heads(self.linear(x, a + "q_proj")), self.heads(self.linear(x, a + "k_proj")),
                                     self.heads(self.linear(x, a + "v_proj")))
            x = self.norm(x + self.linear(out, a + "out_proj"), p + "self_attn_layer_norm")
            x = self.norm(x + self.feed_forward(x, p), p + "final_layer_norm")
            attentions.append(probs)
        cross = []
        for l in range(self.config["decoder_layers"]):
            a = f"decoder.layers.{l}.encoder_attn."
            cross += [self.heads(self.linear(x, a + "k_proj")), self.heads(self.linear(x, a + "v_proj"))]
        return (x, *attentions, *cross)


class DecoderStep(Marian):
    def forward(self, token, position, *caches):
        L = self.config["decoder_layers"]
        past, cross = caches[:2 * L], caches[2 * L:]
        x = self.embed(token, position)  # (1, d)
        presents, rows, cross_rows = [], [], []
        for l in range(L):
            p = f"decoder.layers.{l}."
            a = p + "self_attn."
            k = torch.cat([past[2 * l], self.heads(self.linear(x, a + "k_proj"))], dim=1)
            v = torch.cat([past[2 * l + 1], self.heads(self.linear(x, a + "v_proj"))], dim=1)
            out, probs = self.attend(self.heads(self.linear(x, a + "q_proj")), k, v)
            x = self.norm(x + self.linear(out, a + "out_proj"), p + "self_attn_layer_norm")
            c = p + "encoder_attn."
            out, cross_probs = self.attend(self.heads(self.linear(x, c + "q_proj")), cross[2 * l], cross[2 * l + 1])
            x = self.norm(x + self.linear(out, c + "out_proj"), p + "encoder_attn_layer_norm")
            x = self.norm(x + self.feed_forward(x, p), p + "final_layer_norm")
            presents += [k, v]
            rows.append(probs)
            cross_rows.append(cross_probs)
        logits = (x @ self.w.get("lm_head.weight", self.table).T)[0]
        if "final_logits_bias" in self.w:
            logits = logits + self.w["final_logits_bias"].reshape(-1)
        return (logits, *presents, *rows, *cross_rows)


def check(config, w, encoder, step):
    """The graphs' modules token by token against the float64 decode of a short target."""
    w64 = {k: v.double() for k, v in w.items()}
    source, target = [5, 17, 9, 3, 0], [config["decoder_start_token_id"], 11, 4, 29]
    with torch.no_grad():
        enc = s2s.encode(config, w64, source)
        dec = s2s.decode(config, w64, target, enc.hidden)
        outputs = encoder(torch.tensor(source))
        L = config["decoder_layers"]
        cross = outputs[1 + config["encoder_layers"]:]
        past = [torch.zeros(step.H, 0, step.dh)] * (2 * L)
        worst = float((outputs[0].double() - enc.hidden).abs().max())
        for t, token in enumerate(target):
            out = step(torch.tensor([token]), torch.tensor([t]), *past, *cross)
            worst = max(worst, float((out[0].double() - dec.logits[t]).abs().max()) / float(dec.logits.abs().max()),
                        float((out[1 + 3 * L][:, 0].double() - dec.cross_attention[0][:, t]).abs().max()))
            past = list(out[1:1 + 2 * L])
    return worst


def export(folder, force=False):
    paths = [os.path.join(folder, name) for name in ("encoder.onnx", "decoder.onnx")]
    sources = [os.path.join(folder, name) for name in ("config.json", "model.safetensors")]
    if not force and all(os.path.exists(p) and os.path.getmtime(p) > max(map(os.path.getmtime, sources)) for p in paths):
        return paths
    with open(sources[0], encoding="utf-8") as f:
        config = json.load(f)
    assert config["model_type"] == "marian", f"a Marian checkpoint only, got {config['model_type']!r}"
    w = reference_weights(sources[1])
    if config.get("tie_word_embeddings", True):
        w.pop("lm_head.weight", None)  # a tied head is the token table: transformers ties a file's copy to it, unread
    encoder, step = Encoder(config, w).eval(), DecoderStep(config, w).eval()
    worst = check(config, w, encoder, step)
    print(f"export_seq2seq_onnx: float32 graphs vs the float64 reference: {worst:.2e} (logits relative to their largest)")
    assert worst < 1e-3, "the graphs' modules do not match the reference"
    L, Le, H, dh = config["decoder_layers"], config["encoder_layers"], step.H, step.dh
    cache = [f"{kind}_{part}.{l}" for l in range(L) for kind, part in (("past", "key"), ("past", "value"))]
    cross = [f"cross_{part}.{l}" for l in range(L) for part in ("key", "value")]
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # tracer warnings about Python values: the graphs have none that vary
        torch.onnx.export(encoder, (torch.arange(7),), paths[0], opset_version=OPSET, input_names=["ids"],
                          output_names=["hidden", *[f"attention.{l}" for l in range(Le)], *cross],
                          dynamic_axes={"ids": {0: "ns"}, "hidden": {0: "ns"}, **{f"attention.{l}": {1: "ns", 2: "ns"} for l in range(Le)},
                                        **{name: {1: "ns"} for name in cross}})
        past = [torch.zeros(H, 3, dh)] * (2 * L)
        memory = [torch.zeros(H, 7, dh)] * (2 * L)
        presents = [name.replace("past", "present") for name in cache]
        torch.onnx.export(step, (torch.tensor([1]), torch.tensor([3]), *past, *memory), paths[1], opset_version=OPSET,
                          input_names=["token", "position", *cache, *cross],
                          output_names=["logits", *presents, *[f"self.{l}" for l in range(L)], *[f"cross.{l}" for l in range(L)]],
                          dynamic_axes={**{name: {1: "t"} for name in cache}, **{name: {1: "ns"} for name in cross},
                                        **{name: {1: "t1"} for name in presents}, **{f"self.{l}": {2: "t1"} for l in range(L)},
                                        **{f"cross.{l}": {2: "ns"} for l in range(L)}})
    return paths


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--force", action="store_true")
    args = parser.parse_args()
    for path in export(args.folder, args.force):
        print(f"{path}: {os.path.getsize(path) / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
