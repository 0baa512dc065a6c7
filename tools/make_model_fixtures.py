"""Write whole-model parity fixtures for the two built-in models.

    /usr/bin/python3 tools/make_model_fixtures.py

Loads the SHIPPED files of web/models/default/ and web/models/causal/ (fp16 weights converted to
float32, then computed in float64), runs a few sentences and writes tests/fixtures/models/<model>/
<case>/ with case.txt, ids.i32, attention.f32 (L, H, n, n) and hidden.f32 (n, d), and for the
inputs.f32 (L, n, d) and logits.f32 (n, V); all raw little-endian, row-major, no header. Both
run tools/hf_models.py, written from the Hugging Face definitions (BertForMaskedLM with its MLM
head for the default model, GPT2LMHeadModel for the causal one), and the script checks that the
training's own modules (tools/default_model.py, tools/causal_model.py) compute the same. It also
prints how far a float32 forward pass lands from the float64 reference, as a guide for test
tolerances.

What it deliberately does not do: no batching or padding, no tokenizer fixtures beyond the ids of
these sentences.
"""
import json
import os

import numpy as np
import torch

import causal_model as cm
import default_model as dm
import hf_models

OUT_DIR = os.path.join(dm.ROOT, "tests", "fixtures", "models")

DEFAULT_CASES = [
    ("cat_sat", "The cat sat on the mat because it was tired."),
    ("unknown_word", "Gloriously, the zyxomorph said: \"I'm not tired (yet)!\""),
    ("sotu", "The Congress must act now to protect the rights of our people."),
    ("wordnet", "she walked to the store"),
    ("numbers", "In 1999, the budget grew by 20 percent, and we spent $5 on it."),
    ("masked", "The [MASK] must act now to protect the [MASK] of our people."),
]
CAUSAL_CASES = [
    ("induction", "Mary went to the garden and John went to the market. Later Mary went to the"),
    ("repeated_phrase", "The red car and the old bridge were in the picture. We saw the red car and the old"),
    ("unknown_word", "Gloriously, the zyxomorph said: \"I'm not tired (yet)!\""),
    ("sotu", "The Congress must act now to protect the rights of our people."),
    ("long", " ".join(["The nation must protect the rights of the people."] * 14)),  # past 128 tokens: truncated
]


def hf_forward(config, weights, ids, dtype):
    t = hf_models.forward(config, {k: v.to(dtype) for k, v in weights.items()}, ids)
    return {"attention": t.attention, "inputs": t.inputs, "hidden": t.hidden, "logits": t.logits}


def shipped(model_dir, prefix):
    """config.json and the shipped weights as float64 under hf_models' names (`prefix` dropped)."""
    with open(os.path.join(model_dir, "config.json")) as f:
        config = json.load(f)
    stored = dm.read_safetensors(os.path.join(model_dir, "model.safetensors"))
    return config, {k.removeprefix(prefix): v.double() for k, v in stored.items()}


def agree(name, *pairs):
    """Checks that the training's module computes what hf_models computes, to 1e-9."""
    worst = max(float((a - b).abs().max()) for a, b in pairs)
    assert worst < 1e-9, f"the training's {name} module and hf_models differ by {worst}"


def write_case(folder, text, ids, tensors, vocab_size=None):
    os.makedirs(folder, exist_ok=True)
    L, H, n, _ = tensors["attention"].shape
    files = {"ids.i32": np.asarray(ids, dtype="<i4")}
    files.update({f"{k}.f32": v.numpy().astype("<f4") for k, v in tensors.items()})
    lines = [f"text {text}", f"n_tokens {n}", f"n_layers {L}", f"n_heads {H}", f"d_model {tensors['hidden'].shape[1]}"]
    if vocab_size is not None:
        lines.append(f"vocab_size {vocab_size}")
    for fname, arr in files.items():
        arr.tofile(os.path.join(folder, fname))
        lines.append("tensor " + fname + " " + " ".join(str(s) for s in arr.shape))
    with open(os.path.join(folder, "case.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def report(name, ids, words, t64, t32):
    print(f"  {name}: {len(ids)} tokens ({' '.join(words[i] for i in ids)})")
    diffs = ", ".join(f"{k} {float((t32[k].double() - v).abs().max()):.2e}" for k, v in t64.items())
    print(f"    float32 vs float64 max |diff|: {diffs} (hidden max |value| {float(t64['hidden'].abs().max()):.2f})")


def default_fixtures():
    config, weights = shipped(dm.MODEL_DIR, "bert.")
    trained = dm.load_shipped_model(dtype=torch.float64)
    vocab = dm.load_vocab()
    words = [w for w, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    print("default model (BERT with its MLM head):")
    for name, text in DEFAULT_CASES:
        ids = dm.encode(text, vocab, config["max_position_embeddings"])
        t64, t32 = hf_forward(config, weights, ids, torch.float64), hf_forward(config, weights, ids, torch.float32)
        with torch.no_grad():
            hidden, att = trained.bert(torch.tensor([ids]))
            logits = trained.logits(torch.tensor([ids]))
        agree("BERT", (torch.stack([a[0] for a in att]), t64["attention"]), (hidden[0], t64["hidden"]), (logits[0], t64["logits"]))
        write_case(os.path.join(OUT_DIR, "default", name), text, ids, t64, config["vocab_size"])
        report(name, ids, words, t64, t32)


def causal_fixtures():
    config, weights = shipped(cm.MODEL_DIR, "transformer.")
    vocab = dm.load_vocab(cm.MODEL_DIR)
    words = [w for w, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    trained = cm.load_shipped_model(dtype=torch.float64)
    print("causal model (GPT-2):")
    for name, text in CAUSAL_CASES:
        ids = cm.encode(text, vocab, config["n_positions"])
        t64, t32 = hf_forward(config, weights, ids, torch.float64), hf_forward(config, weights, ids, torch.float32)
        with torch.no_grad():
            hidden, att = trained(torch.tensor([ids]))
        agree("GPT2", (att[:, 0], t64["attention"]), (hidden[0], t64["hidden"]))
        write_case(os.path.join(OUT_DIR, "causal", name), text, ids, t64, config["vocab_size"])
        report(name, ids, words, t64, t32)


def main():
    default_fixtures()
    causal_fixtures()
    print(f"wrote {len(DEFAULT_CASES) + len(CAUSAL_CASES)} cases to {os.path.relpath(OUT_DIR, dm.ROOT)}")


if __name__ == "__main__":
    main()
