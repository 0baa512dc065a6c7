"""Measure the reverse built-in model: does it reverse, and does its cross-attention show where each
word comes from?

    /usr/bin/python3 tools/measure_alignment.py [--model-dir web/models/reverse] [--json FILE]

Runs the WRITTEN files (model.safetensors as stored, computed in float64 by tools/seq2seq_models.py)
on the held-out sequences of train_seq2seq_model.held_out_sequences() (regenerated from their seed;
training never draws them) and prints Markdown for the model card:

  exact-match  seq2seq_models.greedy from [</s>, <s>] for n + 1 steps: the n words reversed and
               then </s>, all right (greedy does not stop at </s>; the n + 1 steps are the answer's
               length). Also per length, and the smallest top-1 - top-2 logit margin seen.
  aligned      teacher-forced on the right decoder input [</s>, <s>, w_{n-1} .. w_0]: for each
               cross-attention head (layer, head), the share of the n decoder positions that write
               a word whose largest attention weight falls on that word in the source. Position p
               (1..n) writes w_{n-p}, which sits at source position n + 1 - p (<s> is source 0).
               "weight": the mean attention weight on that position. "at init": the same score of
               the same head at initialisation (the training's seed).
  read         the same share, with the word each position has just read as its input
               (decoder position p = 2..n + 1 reads w_{n+1-p}, at source n + 2 - p): a head that
               follows the word one step behind.
  layer mean   the heads of a layer averaged, then the same argmax score.
  chance       a head that attends to a random source position, 1 / (n + 2), or to a random word
               of the source, 1 / n, averaged over the same positions (a uniform head's argmax is
               a tie; its expected score is the same).
  zeroed       greedy exact-match again with the best head zeroed, and with every cross head
               aligned at ALIGNED_HEAD or more zeroed (its output set to 0 before the output
               projection, as Hugging Face's cross_attn_head_mask does): which heads the answer needs.

What it deliberately does not do: no training, no plots, no ablation beyond cross heads.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seq2seq_models as s2s  # noqa: E402
from make_checkpoints import read_safetensors_header  # noqa: E402
import train_seq2seq_model as tr  # noqa: E402


STORED = {"F32": "<f4", "F16": "<f2"}  # the dtypes a written file may hold
ALIGNED_HEAD = 0.9  # the alignment score that counts a cross head as an aligned head


def read_weights(path):
    """{name: float64 tensor} from a safetensors file of F32 or F16 tensors, checking that each
    tensor's bytes are where the header says and that they cover the data exactly."""
    header, start = read_safetensors_header(path)
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read()
    out, end = {}, 0
    for name, info in sorted(((k, v) for k, v in header.items() if k != "__metadata__"),
                             key=lambda kv: kv[1]["data_offsets"][0]):
        assert info["dtype"] in STORED, f"{name}: dtype {info['dtype']} (expected F32 or F16)"
        a, b = info["data_offsets"]
        count = int(np.prod(info["shape"], dtype=np.int64))
        assert a == end and b - a == count * np.dtype(STORED[info["dtype"]]).itemsize, f"{name}: offsets {a}, {b}"
        out[name] = torch.from_numpy(np.frombuffer(data[a:b], STORED[info["dtype"]]).reshape(info["shape"]).astype(np.float64))
        end = b
    assert end == len(data), f"{path}: {len(data) - end} bytes after the last tensor"
    return out


def load_folder(model_dir):
    """(config, weights in float64 named as seq2seq_models reads them: "model." stripped)."""
    with open(os.path.join(model_dir, "config.json")) as f:
        config = json.load(f)
    stored = read_weights(os.path.join(model_dir, "model.safetensors"))
    return config, {k.removeprefix("model."): v for k, v in stored.items()}


def zeroed_exact_match(config, w, held, heads):
    """Greedy exact-match share with the cross heads `heads` [(layer, head)] zeroed: the argmax
    chain of seq2seq_models.greedy, each step a whole decode with the ablation."""
    ablation = {("cross", l, h): "zero" for l, h in heads}
    exact = 0
    for s in held:
        source, target, labels = tr.example(s)
        memory = s2s.encode(config, w, source).hidden
        written = target[:2]
        for _ in range(len(s) + 1):
            written = written + [int(s2s.decode(config, w, written, memory, ablation).logits[-1].argmax())]
        exact += written[2:] == labels[1:]
    return exact / len(held)


def greedy_scores(config, w, held):
    """(exact-match share, {length: share}, smallest margin, failures as [source words, written])."""
    exact, by_length, margin, failures = 0, {}, float("inf"), []
    for s in held:
        source, _, labels = tr.example(s)
        written, m = s2s.greedy(config, w, source, [tr.EOS, tr.BOS], len(s) + 1)
        ok = written == labels[1:]
        exact += ok
        total, right = by_length.get(len(s), (0, 0))
        by_length[len(s)] = (total + 1, right + ok)
        margin = min(margin, m)
        if not ok:
            failures.append([list(s), written])
    shares = {n: right / total for n, (total, right) in sorted(by_length.items())}
    return exact / len(held), shares, margin, failures


def cross_scores(config, w, held):
    """Per head (Ld, H): argmax-on-aligned share, mean weight on aligned, argmax-on-read share; per
    layer (Ld): the argmax share of the heads' mean; and the two chance levels."""
    Ld, H = config["decoder_layers"], config["decoder_attention_heads"]
    aligned, weight, read = torch.zeros(Ld, H), torch.zeros(Ld, H), torch.zeros(Ld, H)
    layer_mean = torch.zeros(Ld)
    chance_position, chance_word, rows = 0.0, 0.0, 0
    for s in held:
        n = len(s)
        source, target, _ = tr.example(s)
        cross = s2s.decode(config, w, target, s2s.encode(config, w, source).hidden).cross_attention  # (Ld, H, nt, ns)
        p, src = tr.aligned_source(n)
        at = cross[:, :, p]  # (Ld, H, n, ns)
        aligned += (at.argmax(-1) == src).sum(-1)
        weight += at[:, :, torch.arange(n), src].sum(-1)
        read += (cross[:, :, p + 1].argmax(-1) == src + 1).sum(-1)
        layer_mean += (at.mean(1).argmax(-1) == src).sum(-1)
        chance_position += n / (n + 2)
        chance_word += 1.0
        rows += n
    return aligned / rows, weight / rows, read / rows, layer_mean / rows, chance_position / rows, chance_word / rows


def measure(model_dir):
    config, w = load_folder(model_dir)
    held = tr.held_out_sequences()
    exact, by_length, margin, failures = greedy_scores(config, w, held)
    aligned, weight, read, layer_mean, chance_position, chance_word = cross_scores(config, w, held)
    init = {k: v.double() for k, v in tr.initial_weights(config).items()}
    aligned0, _, _, layer_mean0, _, _ = cross_scores(config, init, held)
    Ld, H = aligned.shape
    best = divmod(int(aligned.argmax()), H)
    aligned_heads = [divmod(i, H) for i in range(Ld * H) if aligned.flatten()[i] >= ALIGNED_HEAD]
    zeroed = [{"heads": [list(best)], "exact_match": zeroed_exact_match(config, w, held, [best])},
              {"heads": [list(x) for x in aligned_heads], "exact_match": zeroed_exact_match(config, w, held, aligned_heads)}]
    heads = [{"layer": l, "head": h, "aligned": aligned[l, h].item(), "weight": weight[l, h].item(),
              "aligned_init": aligned0[l, h].item(), "read": read[l, h].item()}
             for l in range(Ld) for h in range(H)]
    return {
        "model_dir": os.path.relpath(os.path.abspath(model_dir), tr.ROOT), "sequences": len(held),
        "held_out_seed": tr.HELD_OUT_SEED, "word_positions": sum(len(s) for s in held),
        "exact_match": exact, "exact_match_by_length": by_length, "smallest_margin": margin, "failures": failures,
        "heads": heads,
        "best_head": {"layer": best[0], "head": best[1], "aligned": aligned[best].item(), "weight": weight[best].item()},
        "layer_mean": [{"layer": l, "aligned": layer_mean[l].item(), "aligned_init": layer_mean0[l].item()} for l in range(Ld)],
        "chance": {"random_source_position": chance_position, "random_source_word": chance_word},
        "zeroed": zeroed,
    }


def report(m):
    print(f"{m['sequences']} held-out sequences of 3-10 words (seed {m['held_out_seed']}), "
          f"{m['word_positions']} decoder positions that write a word; weights {m['model_dir']}, float64. "
          "Layers and heads count from 0.\n")
    lengths = ", ".join(f"{n}: {share:.3f}" for n, share in m["exact_match_by_length"].items())
    print(f"greedy exact-match: {m['exact_match']:.4f} (by length {lengths}); "
          f"smallest top-1 - top-2 logit margin {m['smallest_margin']:.3f}")
    for source, written in m["failures"][:5]:
        print(f"  wrong: {[(tr.SPECIALS + tr.WORDS)[i] for i in source]} -> {written}")
    print("\n| layer | head | aligned (argmax) | weight on aligned | aligned at init | read (argmax) |")
    print("|---|---|---|---|---|---|")
    for h in m["heads"]:
        print(f"| {h['layer']} | {h['head']} | {h['aligned']:.3f} | {h['weight']:.3f} | "
              f"{h['aligned_init']:.3f} | {h['read']:.3f} |")
    b = m["best_head"]
    print(f"\nbest head: layer {b['layer']} head {b['head']} = {b['aligned']:.4f} "
          f"({'PASS' if b['aligned'] >= 0.9 else 'FAIL'} >= 0.9), mean weight on the aligned word {b['weight']:.3f}")
    for row in m["layer_mean"]:
        print(f"layer {row['layer']}, heads averaged: {row['aligned']:.4f} (at init {row['aligned_init']:.3f})")
    c = m["chance"]
    print(f"chance: a random source position {c['random_source_position']:.3f}, "
          f"a random source word {c['random_source_word']:.3f}")
    for z in m["zeroed"]:
        heads = ", ".join(f"layer {l} head {h}" for l, h in z["heads"])
        print(f"greedy exact-match with {heads} zeroed: {z['exact_match']:.4f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model-dir", default=tr.MODEL_DIR)
    ap.add_argument("--json", default=os.path.join(tr.DATA_DIR, "reverse_alignment.json"))
    args = ap.parse_args()
    torch.set_num_threads(1)
    m = measure(args.model_dir)
    report(m)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(m, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
