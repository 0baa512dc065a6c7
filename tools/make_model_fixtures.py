"""Write whole-model parity fixtures for the shipped default model.

    /usr/bin/python3 tools/make_model_fixtures.py

Loads the SHIPPED files in web/models/default/ (fp16 weights converted to float32, then computed
in float64 with the PyTorch BERT of tools/default_model.py), runs a few sentences and writes
tests/fixtures/model/<case>/ with case.txt, ids.i32, attention.f32 (L, H, n, n) and hidden.f32
(n, d), all raw little-endian, row-major, no header. Also prints how far a float32 forward pass
lands from the float64 reference, as a guide for test tolerances.

What it deliberately does not do: no MLM head (it is not shipped), no batching or padding, no
tokenizer fixtures beyond the ids of these sentences.
"""
import os

import numpy as np
import torch

import default_model as dm

OUT_DIR = os.path.join(dm.ROOT, "tests", "fixtures", "model")

CASES = [
    ("cat_sat", "The cat sat on the mat because it was tired."),
    ("unknown_word", "Gloriously, the zyxomorph said: \"I'm not tired (yet)!\""),
    ("sotu", "The Congress must act now to protect the rights of our people."),
    ("wordnet", "she walked to the store"),
    ("numbers", "In 1999, the budget grew by 20 percent, and we spent $5 on it."),
]


def forward(model, ids, dtype):
    model = model.to(dtype)
    with torch.no_grad():
        hidden, attentions = model(torch.tensor([ids]))
    attention = torch.stack([a[0] for a in attentions])  # (L, H, n, n)
    return attention, hidden[0]  # (L, H, n, n), (n, d)


def write_case(name, text, ids, attention, hidden):
    folder = os.path.join(OUT_DIR, name)
    os.makedirs(folder, exist_ok=True)
    L, H, n, _ = attention.shape
    d = hidden.shape[1]
    files = {
        "ids.i32": np.asarray(ids, dtype="<i4"),
        "attention.f32": attention.numpy().astype("<f4"),
        "hidden.f32": hidden.numpy().astype("<f4"),
    }
    lines = [f"text {text}", f"n_tokens {n}", f"n_layers {L}", f"n_heads {H}", f"d_model {d}"]
    for fname, arr in files.items():
        arr.tofile(os.path.join(folder, fname))
        lines.append("tensor " + fname + " " + " ".join(str(s) for s in arr.shape))
    with open(os.path.join(folder, "case.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main():
    model = dm.load_shipped_model(dtype=torch.float64)
    vocab = dm.load_vocab()
    max_len = model.config.max_position_embeddings
    for name, text in CASES:
        ids = dm.encode(text, vocab, max_len)
        att64, hid64 = forward(model, ids, torch.float64)
        att32, hid32 = forward(model, ids, torch.float32)
        write_case(name, text, ids, att64, hid64)
        tokens = [w for w, i in sorted(vocab.items(), key=lambda kv: kv[1])]
        print(f"{name}: {len(ids)} tokens ({' '.join(tokens[i] for i in ids)})")
        print(f"  float32 vs float64: max |attention diff| {float((att32.double() - att64).abs().max()):.2e}, "
              f"max |hidden diff| {float((hid32.double() - hid64).abs().max()):.2e} "
              f"(hidden max |value| {float(hid64.abs().max()):.2f})")
    print(f"wrote {len(CASES)} cases to {os.path.relpath(OUT_DIR, dm.ROOT)}")


if __name__ == "__main__":
    main()
