"""Generate reference fixtures for multi-head attention from torch.nn.MultiheadAttention.

Writes tests/fixtures/attention/<case>/ with raw little-endian float32 tensors
(inputs, weights in our (in, out) convention, per-head attention weights, output)
and a case.txt description. Deterministic: fixed seeds, byte-identical reruns.
The reference is computed in float64 from the float32 inputs.

Run: /usr/bin/python3 tools/make_attention_fixtures.py
"""
import copy
import os

import numpy as np
import torch

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "attention")

# name, n_tokens, d_model, n_heads, causal, hidden keys (None = no key mask)
CASES = [
    ("n7_d12_h3", 7, 12, 3, False, None),
    ("n7_d12_h3_causal", 7, 12, 3, True, None),
    ("n7_d12_h3_keymask", 7, 12, 3, False, [2, 5]),
    ("n33_d64_h4", 33, 64, 4, False, None),
    ("n33_d64_h4_causal", 33, 64, 4, True, None),
]


def run(mha, x, attn_mask, key_padding_mask):
    with torch.no_grad():
        out, w = mha(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                     need_weights=True, average_attn_weights=False)
    return out[0], w[0]  # (n, d), (h, n, n)


def numpy_reference(x, t, n_heads, allowed):
    """Independent float64 check of our conventions: Q = X·W_q + b_q, etc."""
    n, d = x.shape
    dh = d // n_heads
    q, k, v = (x @ t["w" + c] + t["b" + c] for c in "qkv")
    out = np.zeros((n, d))
    for h in range(n_heads):
        s = slice(h * dh, (h + 1) * dh)
        scores = np.where(allowed, q[:, s] @ k[:, s].T / np.sqrt(dh), -np.inf)
        p = np.exp(scores - scores.max(axis=1, keepdims=True))
        out[:, s] = (p / p.sum(axis=1, keepdims=True)) @ v[:, s]
    return out @ t["wo"] + t["bo"]


def make_case(seed, name, n, d, h, causal, hidden):
    torch.manual_seed(seed)
    mha = torch.nn.MultiheadAttention(d, h, dropout=0.0, bias=True, batch_first=True).eval()
    with torch.no_grad():
        mha.in_proj_bias.copy_(0.1 * torch.randn(3 * d))
        mha.out_proj.bias.copy_(0.1 * torch.randn(d))
    x = torch.randn(1, n, d, dtype=torch.float32)

    attn_mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1) if causal else None
    key_mask = np.ones(n, dtype=np.uint8)
    if hidden:
        key_mask[hidden] = 0
    kpm = torch.from_numpy(key_mask == 0).unsqueeze(0) if hidden else None

    out32, w32 = run(mha, x, attn_mask, kpm)
    mha64 = copy.deepcopy(mha).double()  # exact copy of the float32 values
    out64, w64 = run(mha64, x.double(), attn_mask, kpm)
    diff = max((out32.double() - out64).abs().max().item(), (w32.double() - w64).abs().max().item())
    print(f"{name}: max |float32 - float64| = {diff:.3e}")
    assert diff < 1e-5, name

    W = mha.in_proj_weight.detach()
    B = mha.in_proj_bias.detach()
    t = {
        "x": x[0],
        "wq": W[0:d].T, "wk": W[d:2 * d].T, "wv": W[2 * d:].T, "wo": mha.out_proj.weight.detach().T,
        "bq": B[0:d], "bk": B[d:2 * d], "bv": B[2 * d:], "bo": mha.out_proj.bias.detach(),
        "weights": w64, "output": out64,
    }
    t = {k: v.numpy().astype("<f4") for k, v in t.items()}

    # Sanity checks: rows sum to 1, masked entries are exactly 0, conventions match.
    allowed = np.ones((n, n), dtype=bool)
    if causal:
        allowed &= np.tril(allowed)
    allowed &= key_mask.astype(bool)[None, :]
    assert allowed.any(axis=1).all(), "fully masked row"
    w = w64.numpy()
    assert np.allclose(w.sum(axis=2), 1.0, atol=1e-12)
    assert (w[:, ~allowed] == 0).all()
    ref = numpy_reference(t["x"].astype(np.float64), {k: v.astype(np.float64) for k, v in t.items()}, h, allowed)
    assert np.abs(ref - out64.numpy()).max() < 1e-10, "weight convention mismatch"

    folder = os.path.join(OUT_DIR, name)
    os.makedirs(folder, exist_ok=True)
    lines = [f"n_tokens {n}", f"d_model {d}", f"n_heads {h}",
             f"causal {int(causal)}", f"key_mask {int(bool(hidden))}"]
    for k, v in t.items():
        v.tofile(os.path.join(folder, k + ".f32"))
        lines.append("tensor " + " ".join([k] + [str(s) for s in v.shape]))
    if hidden:
        key_mask.tofile(os.path.join(folder, "key_mask.u8"))
    with open(os.path.join(folder, "case.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    for seed, case in enumerate(CASES, start=1):
        make_case(seed, *case)


if __name__ == "__main__":
    main()
