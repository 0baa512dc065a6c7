"""Measure the causal built-in model's induction circuit on held-out data.

    /usr/bin/python3 tools/measure_induction.py [--model-dir web/models/causal] [--json FILE]

Runs the SHIPPED files (fp16 weights read as float32, computed in float64) on sequences the
training never saw, and prints Markdown for the model card:

  Repeated random words (Olsson et al., 2022, "In-context Learning and Induction Heads"): 200
  sequences <|endoftext|> r r, where r is 50 distinct words drawn uniformly from the vocabulary
  with a seed the training does not use. Token i of the second copy (position 51 + i) first
  occurred at position 1 + i, and the token after that is at 2 + i.

  induction  a head's mean attention from each token of the second copy to the token after that
             token's first occurrence (50 query rows per sequence)
  prev       mean attention from each token to the one before it (every row but the first),
             on the same sequences; prev_text the same over the held-out sentences
             (<|endoftext|> sentence, 400 sentences)
  *_init     the same score of the same head at initialisation (the training's seed), as the
             baseline

  In-context learning: the mean next-token loss on the tokens r[1:] of the first copy and on the
  same tokens in the second copy (r[0] of the second copy is left out: nothing before it says
  what comes next). Then the second-copy loss again with the best induction head zeroed, and
  with the best previous-token head of an earlier layer zeroed (zeroed: the head's output is set
  to 0 before the output projection, as Hugging Face's head_mask does).

  Copying in everyday text: each held-out sentence written twice, <|endoftext|> s s; how often
  the model ranks the actual next word first in the first copy and in the second.

What it deliberately does not do: no training, no plots, no syntactic roles.
"""
import argparse
import json

import torch

import causal_model as cm
import default_model as dm

MEASURE_SEED = 20220308  # the random words of the measurement; training draws from cm.SEED
RUNS, RUN_LENGTH = 200, 50


def text_prev(model, vocab, sentences):
    """Mean attention from each token to the one before it over the held-out sentences (L, H)."""
    sums, rows = 0, 0
    for s in sentences:
        ids = cm.encode(s, vocab, model.config.n_positions)
        if len(ids) < 2:
            continue
        with torch.no_grad():
            _, att = model(torch.tensor([ids]))  # (L, 1, H, n, n)
        t = torch.arange(1, len(ids))
        sums = sums + att[:, 0, :, t, t - 1].sum(-1)
        rows += len(ids) - 1
    return sums / rows


def second_copy_loss(model, sequences, run_length, zero):
    """The second-copy loss with head `zero` = (layer, head) switched off."""
    L, H = model.config.n_layer, model.config.n_head
    mask = torch.ones(L, H, dtype=torch.float64)
    mask[zero] = 0
    ids = torch.tensor(sequences)
    with torch.no_grad():
        hidden, _ = model(ids, head_mask=mask)
        losses = cm.next_token_losses(model, hidden, ids)
    return losses[:, run_length + torch.arange(1, run_length)].mean().item()


def text_copy(model, vocab, sentences):
    """Each held-out sentence written twice, <|endoftext|> s s: the share of tokens the model ranks
    first, in the first copy and in the second (every token but the copy's first; [UNK] targets
    left out), as a plain measure of copying in everyday text."""
    hits, counts = [0, 0], [0, 0]
    for s in sentences:
        words = cm.encode(s, vocab, model.config.n_positions)[1:]
        if len(words) < 3 or 1 + 2 * len(words) > model.config.n_positions:
            continue
        ids = torch.tensor([[cm.BOS] + words + words])
        with torch.no_grad():
            hidden, _ = model(ids)
            top = model.logits(hidden[0, :-1]).argmax(-1)  # the prediction after each position
        n = len(words)
        for copy, positions in enumerate((range(1, n), range(n + 1, 2 * n))):
            for p in positions:  # predicts ids[p + 1]
                if ids[0, p + 1] != cm.UNK:
                    hits[copy] += int(top[p] == ids[0, p + 1])
                    counts[copy] += 1
    return hits[0] / counts[0], hits[1] / counts[1], counts[1]


def measure(model_dir):
    model = cm.load_shipped_model(model_dir)
    init = cm.initial_model(model.config).to(torch.float64).eval()
    vocab = dm.load_vocab(model_dir)
    sequences = cm.repeated_random_sequences(RUNS, RUN_LENGTH, model.config.vocab_size, MEASURE_SEED)
    induction, prev, first, second = cm.copy_scores(model, sequences, RUN_LENGTH)
    induction0, prev0, first0, second0 = cm.copy_scores(init, sequences, RUN_LENGTH)
    sentences = cm.held_out_sentences()
    prev_text = text_prev(model, vocab, sentences)
    first_top1, second_top1, copied = text_copy(model, vocab, sentences)
    H = model.config.n_head
    best_induction = divmod(int(induction.argmax()), H)
    # The previous-token head the circuit needs sits below the induction head; with the best
    # induction head in layer 0 there is none, and the best previous-token head anywhere is shown.
    below = prev[: best_induction[0]] if best_induction[0] > 0 else prev
    best_prev = divmod(int(below.argmax()), H)
    heads = []
    for l in range(model.config.n_layer):
        for h in range(H):
            heads.append({"layer": l, "head": h, "induction": induction[l, h].item(),
                          "induction_init": induction0[l, h].item(), "prev": prev[l, h].item(),
                          "prev_init": prev0[l, h].item(), "prev_text": prev_text[l, h].item()})
    return {
        "runs": RUNS, "run_length": RUN_LENGTH, "seed": MEASURE_SEED, "sentences": len(sentences),
        "heads": heads,
        "first_copy_loss": first, "second_copy_loss": second, "ratio": second / first,
        "first_copy_loss_init": first0, "second_copy_loss_init": second0,
        "text_copy": {"first_top1": first_top1, "second_top1": second_top1, "tokens": copied},
        "best_induction": {"layer": best_induction[0], "head": best_induction[1],
                           "score": induction[best_induction].item(),
                           "second_copy_loss_zeroed": second_copy_loss(model, sequences, RUN_LENGTH, best_induction)},
        "best_prev": {"layer": best_prev[0], "head": best_prev[1], "score": prev[best_prev].item(),
                      "second_copy_loss_zeroed": second_copy_loss(model, sequences, RUN_LENGTH, best_prev)},
    }


def report(m):
    print(f"{m['runs']} sequences <|endoftext|> r r, r = {m['run_length']} random words (seed {m['seed']}); "
          f"prev_text over {m['sentences']} held-out sentences. Layers and heads count from 0.\n")
    cols = ["induction", "induction_init", "prev", "prev_init", "prev_text"]
    print("| layer | head | " + " | ".join(cols) + " |")
    print("|---" * (2 + len(cols)) + "|")
    for h in m["heads"]:
        print(f"| {h['layer']} | {h['head']} | " + " | ".join(f"{h[c]:.3f}" for c in cols) + " |")
    bi, bp = m["best_induction"], m["best_prev"]
    print(f"\nbest induction head: layer {bi['layer']} head {bi['head']} = {bi['score']:.3f} "
          f"({'PASS' if bi['score'] >= 0.5 else 'FAIL'} >= 0.5)")
    where = "below it" if bi["layer"] > 0 else "(none can be below a layer-0 induction head)"
    print(f"best previous-token head {where}: layer {bp['layer']} head {bp['head']} = {bp['score']:.3f} "
          f"({'PASS' if bp['score'] >= 0.6 and bp['layer'] < bi['layer'] else 'FAIL'} >= 0.6, in an earlier layer)")
    print(f"loss on the first copy {m['first_copy_loss']:.3f}, on the second {m['second_copy_loss']:.3f}: "
          f"ratio {m['ratio']:.3f} ({'PASS' if m['ratio'] <= 0.5 else 'FAIL'} <= 0.5); "
          f"at initialisation {m['first_copy_loss_init']:.3f} and {m['second_copy_loss_init']:.3f}")
    t = m["text_copy"]
    print(f"held-out sentences written twice: the next word ranked first {100 * t['first_top1']:.1f}% of the time "
          f"in the first copy, {100 * t['second_top1']:.1f}% in the second ({t['tokens']} tokens)")
    for name, b in (("induction", bi), ("previous-token", bp)):
        rise = b["second_copy_loss_zeroed"] - m["second_copy_loss"]
        print(f"zeroing the best {name} head (layer {b['layer']} head {b['head']}): second-copy loss "
              f"{m['second_copy_loss']:.3f} -> {b['second_copy_loss_zeroed']:.3f} (+{rise:.3f}, "
              f"x{b['second_copy_loss_zeroed'] / m['second_copy_loss']:.2f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model-dir", default=cm.MODEL_DIR)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    torch.set_num_threads(2)
    m = measure(args.model_dir)
    report(m)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(m, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
