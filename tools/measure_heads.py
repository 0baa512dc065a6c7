"""Measure what every attention head of the shipped default model attends to.

    /usr/bin/python3 tools/measure_heads.py [--model-dir web/models/default] [--per-source 200]

Runs the SHIPPED files (fp16 weights read as float32, computed in float64) over the held-out
sentences of every source (the same fixed split the training used) and prints a Markdown table.
Every number is a mean over the query rows of real words only: the [CLS] row and the [SEP] row
are left out, because their "previous"/"next" tokens do not exist or are not words. Keys are not
restricted, so the previous token of the first word is [CLS] and the next token of the last word
is [SEP]. Means are pooled over all word rows of all sentences (longer sentences weigh more).

  prev     weight on key i-1 from query i
  next     weight on key i+1
  self     weight on key i
  first    weight on key 0, the [CLS] token
  sep      weight on the final [SEP] token
  same     total weight on OTHER occurrences of the same word (only rows whose word, not [UNK]
           and not punctuation, occurs again in the sentence); `same_base` is what uniform
           attention would give on those rows, for comparison
  entropy  entropy of the row in nats (uniform over n keys gives ln n)

What it deliberately does not do: no plots, no syntax parsing, no training.
"""
import argparse
import math

import torch

import default_model as dm

COLUMNS = ["prev", "next", "self", "first", "sep", "same", "same_base", "entropy"]


def head_stats(model, vocab, sentences):
    L, H = model.config.num_hidden_layers, model.config.num_attention_heads
    sums = torch.zeros(L, H, len(COLUMNS), dtype=torch.float64)
    rows = same_rows = 0
    max_len = model.config.max_position_embeddings
    for text in sentences:
        ids = dm.encode(text, vocab, max_len)
        n = len(ids)
        with torch.no_grad():
            _, attentions = model(torch.tensor([ids]))
        A = torch.stack([a[0] for a in attentions])  # (L, H, n, n)
        q = torch.arange(1, n - 1)  # word query rows
        W = A[:, :, 1 : n - 1, :]  # (L, H, n-2, n)
        sums[..., 0] += A[:, :, q, q - 1].sum(-1)  # pairs (i, i-1)
        sums[..., 1] += A[:, :, q, q + 1].sum(-1)
        sums[..., 2] += A[:, :, q, q].sum(-1)
        sums[..., 3] += W[..., 0].sum(-1)
        sums[..., 4] += W[..., n - 1].sum(-1)
        entropy = -(W * W.clamp_min(1e-30).log()).sum(-1)  # (L, H, n-2)
        sums[..., 7] += entropy.sum(-1)
        rows += n - 2
        words = dm.pre_tokenize(text)[: n - 2]
        for i in range(1, n - 1):
            tok = ids[i]
            if tok == dm.UNK or not words[i - 1].isalnum():
                continue
            others = [j for j in range(n) if j != i and ids[j] == tok]
            if others:
                sums[..., 5] += A[:, :, i, others].sum(-1)
                sums[..., 6] += len(others) / n
                same_rows += 1
    means = sums / rows
    means[..., 5:7] = sums[..., 5:7] / max(1, same_rows)
    return means, rows, same_rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model-dir", default=dm.MODEL_DIR)
    ap.add_argument("--per-source", type=int, default=dm.HELD_OUT_PER_SOURCE)
    args = ap.parse_args()
    torch.set_num_threads(2)
    model = dm.load_shipped_model(args.model_dir).bert
    vocab = dm.load_vocab(args.model_dir)
    sentences = dm.held_out_sentences(args.per_source)
    means, rows, same_rows = head_stats(model, vocab, sentences)
    print(f"{len(sentences)} held-out sentences, {rows} word query rows, "
          f"{same_rows} rows with a repeated word\n")
    print("| layer | head | " + " | ".join(COLUMNS) + " |")
    print("|---" * (2 + len(COLUMNS)) + "|")
    L, H, _ = means.shape
    for l in range(L):
        for h in range(H):
            print(f"| {l} | {h} | " + " | ".join(f"{v:.3f}" for v in means[l, h].tolist()) + " |")
    best_prev = divmod(int(means[..., 0].argmax()), H)
    best_next = divmod(int(means[..., 1].argmax()), H)
    p, nx = means[best_prev][0].item(), means[best_next][1].item()
    print(f"\nbest previous-token head: layer {best_prev[0]} head {best_prev[1]} = {p:.3f} "
          f"({'PASS' if p >= 0.6 else 'FAIL'} >= 0.6)")
    print(f"best next-token head:     layer {best_next[0]} head {best_next[1]} = {nx:.3f} "
          f"({'PASS' if nx >= 0.5 else 'FAIL'} >= 0.5)")
    lengths = [len(dm.encode(s, vocab, model.config.max_position_embeddings)) for s in sentences]
    uniform = sum((n - 2) * math.log(n) for n in lengths) / sum(n - 2 for n in lengths)
    print(f"uniform attention would give a mean entropy of {uniform:.3f} nats over these rows")


if __name__ == "__main__":
    main()
