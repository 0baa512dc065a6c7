"""Train the package's causal built-in model (a small GPT-2 with induction heads) and write it to
web/models/causal/.

    /usr/bin/python3 tools/train_causal_model.py                        # into web/models/causal/
    /usr/bin/python3 tools/train_causal_model.py --out build/trial-causal  # elsewhere

Four stages (see STAGES), one fixed seed:

  1. previous-token: synthetic "rule" sequences of random words, in which a word fixes the word
     two places on (causal_model.rule_sequence). Only a head that reads the previous token can
     use the rule, so layer 0 learns previous-token heads within a few hundred steps.
  2. induction: synthetic copy sequences, random words with spans copied further on
     (causal_model.copy_sequence), scored only where a copied word follows. Layer 0's attention
     and the position embeddings are frozen, so the previous-token heads stay, and layer 1 is
     drawn afresh, because stage 1 taught it to push down words already in the context (in rule
     sequences the next word is never the current one), which is the opposite of copying. Layer 1
     then forms induction heads on top of layer 0's previous-token heads; the stage ends when the
     probe's copy loss ratio shows it (until_ratio).
  3. text: the default model's corpus in windows of 128 tokens (SOTU addresses in order, WordNet
     examples), some with a run of random words twice or a span of their own text repeated
     further on, mixed with copy sequences; everything trains, and the model learns the language.
  4. text-repeats: the same with most windows repeating a span of their own text, so that on
     everyday sentences the copied word beats what the words before it predict. [UNK] is never a
     target in any stage (stage_loss).

Stages 1 and 2 use 32-token windows, each starting at a random one of the 128 positions: a
circuit that needs two heads at once is slower to find the longer the window, since both start
out spreading their attention over it. In our trials it formed after 1,750-2,750 steps of stage
2 following a stage 1 on 32 tokens, and not in 3,000 following a stage 1 on 128. Starting the windows
anywhere teaches every position (a stage 1 on the first 32 left the previous-token heads at 0.3
over 100 tokens, and a later stage on 128 tokens did not mend it without breaking layer 1).

Everything is seeded, and stage 2's length follows from the seeded run, so two runs on the same machine (with the
same thread count) write the same files; --minutes only stops a run that would overrun the
budget (it says so, and the summary records it).

Writes config.json (GPT-2 field names), tokenizer.json and model.safetensors (fp16,
GPT2LMHeadModel names, lm_head tied to wte and left out) at the end of every stage, and the run's
figures to build/training-data/causal_summary.json for the model card.

What it deliberately does not do: no mixed precision, no resuming, no dropout, no measuring of
heads beyond a progress probe (measure_induction.py measures the shipped files).
"""
import argparse
import collections
import json
import math
import os
import random
import time

import torch
import torch.nn.functional as F

import causal_model as cm
import default_model as dm

VOCAB_SIZE = 6000  # including the 2 special tokens
N_POSITIONS = 128
N_LAYERS = 2
PROBE_SEED = 7  # the runs the progress lines probe (measure_induction.py uses others)
LAYER1_STD = 0.088  # stage 2 draws layer 1's matrices afresh from N(0, LAYER1_STD)

# data: "rule" | "copy" | "text"; copy_share: in "text", the share of copy sequences; a stage
# with until_ratio ends at the first evaluation whose second/first copy loss is at most that
# (the moment the induction circuit forms varies with the seed), or after `steps`. A stage
# with seq < N_POSITIONS starts each window at a random position, so short windows still teach
# every position.
# repeats: in "text", the shares of corpus windows with a random run twice and with a span of
# their own text copied further on (cm.training_sequence's random_repeat and span_repeat).
Stage = collections.namedtuple("Stage", "name steps seq batch lr data copy_share repeats until_ratio")
STAGES = [
    Stage("previous-token", steps=400, seq=32, batch=64, lr=1e-3, data="rule", copy_share=0, repeats=None, until_ratio=None),
    Stage("induction", steps=6000, seq=32, batch=64, lr=1e-3, data="copy", copy_share=1, repeats=None, until_ratio=0.6),
    Stage("text", steps=800, seq=128, batch=16, lr=1e-3, data="text", copy_share=0.25, repeats=(0.3, 0.2), until_ratio=None),
    # Copying a span of real text must beat what the words before predict: after "text" alone the
    # induction head attends to the right word in everyday sentences, but the word is ranked 16th
    # to 130th; this stage puts it first after rarer words ("the old" -> "bridge").
    Stage("text-repeats", steps=400, seq=128, batch=16, lr=1e-3, data="text", copy_share=0.1, repeats=(0.2, 0.6), until_ratio=None),
]
WARMUP = 50
COPY = dict(copies=3, min_length=3, max_length=6)  # copy spans in 32-token windows
COPY_LONG = dict(copies=3, min_length=5, max_length=30)  # and in the text stage's windows


@torch.no_grad()
def validation_loss(model, held):
    """Mean next-token loss over the held-out sentences, each as <|endoftext|> sentence, at every
    target but [UNK], which training never asks for (see stage_loss)."""
    model.eval()
    total, count = 0.0, 0
    for ids in held:
        x = torch.tensor([ids])
        hidden, _ = model(x)
        losses = cm.next_token_losses(model, hidden, x)[x[:, 1:] != cm.UNK]
        total += float(losses.sum())
        count += losses.numel()
    model.train()
    return total / count


def probe(model, sequences):
    """The best head's induction and previous-token scores, and the second/first copy loss ratio,
    on a few repeated random runs (as measure_induction.py measures, on other runs)."""
    model.eval()
    induction, prev, first, second = cm.copy_scores(model, sequences, (len(sequences[0]) - 1) // 2)
    model.train()
    return induction.max().item(), prev.max().item(), second / first


def redraw_layer(block, std):
    """Layer 1 as new: matrices from N(0, std), biases 0, LayerNorm gains 1."""
    for name, p in block.named_parameters():
        with torch.no_grad():
            if p.dim() == 2:
                p.normal_(0, std)
            elif name.endswith("ln_1.weight") or name.endswith("ln_2.weight"):
                p.fill_(1)
            else:
                p.zero_()


def frozen_in(stage, model):
    """The parameters a stage leaves as they are: in stage 2, layer 0's attention (with its
    LayerNorm) and the position embeddings, which hold the previous-token heads."""
    if stage.data == "copy":
        return [*model.wpe.parameters(), *model.h[0].ln_1.parameters(), *model.h[0].attn.parameters()]
    return []


def batch_for(stage, rng, streams, successor, vocab_size):
    """(ids (B, T), start (B,) or None, targets): start, the position of each window's first
    token; targets is None (score every position) or (rows, positions)."""
    seqs, rows, positions = [], [], []
    for b in range(stage.batch):
        if stage.data == "rule":
            seqs.append(cm.rule_sequence(rng, stage.seq, vocab_size, successor))
        elif stage.data == "copy" or rng.random() < stage.copy_share:
            ids, at = cm.copy_sequence(rng, stage.seq, vocab_size, **(COPY if stage.seq <= 32 else COPY_LONG))
            seqs.append(ids)
            rows += [b] * len(at)
            positions += at
        else:
            random_repeat, span_repeat = stage.repeats
            seqs.append(cm.training_sequence(rng, streams, stage.seq, vocab_size, random_repeat=random_repeat, span_repeat=span_repeat))
    targets = (torch.tensor(rows), torch.tensor(positions)) if stage.data == "copy" else None
    start = None
    if stage.seq < N_POSITIONS:
        start = torch.tensor([rng.randrange(N_POSITIONS - stage.seq + 1) for _ in seqs])
    return torch.tensor(seqs), start, targets


def stage_loss(model, ids, start, targets):
    """Mean next-token loss: everywhere but where the next token is [UNK], or only at the (rows,
    positions) given. [UNK] is never a target: it stands for 6.7% of the text's words, and a model
    taught to predict it puts it first after most words, above the word its induction head copies."""
    hidden, _ = model(ids, start=start)
    if targets is None:
        return cm.next_token_losses(model, hidden, ids)[ids[:, 1:] != cm.UNK].mean()
    rows, positions = targets
    return F.cross_entropy(model.logits(hidden[rows, positions]), ids[rows, positions + 1])


def export(model, config, words, out_dir):
    dm.write_model_folder(out_dir, config.to_hf(), cm.tokenizer_json(words), model.hf_state_dict())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=55, help="stop early past this wall time")
    ap.add_argument("--out", default=cm.MODEL_DIR)
    ap.add_argument("--eval-every", type=int, default=250)
    args = ap.parse_args()
    torch.set_num_threads(2)
    start = time.time()

    corpus = dm.load_corpus()
    words = dm.build_vocab(corpus, VOCAB_SIZE, cm.SPECIALS)
    vocab = {w: i for i, w in enumerate(words)}
    streams = cm.training_streams(vocab)
    held = [cm.encode(s, vocab, N_POSITIONS) for s in cm.held_out_sentences()]
    tokens = sum(len(s) for s in streams.values())
    unk = sum(i == cm.UNK for s in streams.values() for i in s) / tokens
    print(f"training text: {', '.join(f'{k} {len(v)}' for k, v in streams.items())} tokens; "
          f"{len(held)} held-out sentences; vocab {len(words)}; UNK rate {unk:.3f}", flush=True)

    config = cm.Config(len(words), n_layer=N_LAYERS, n_positions=N_POSITIONS)
    model = cm.initial_model(config)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"GPT2 parameters: {n_params} ({2 * n_params} bytes in fp16)", flush=True)
    rng = random.Random(cm.SEED)
    successor = cm.successor_map(random.Random(cm.SEED + 1), len(words))
    probes = cm.repeated_random_sequences(32, 50, len(words), PROBE_SEED)

    evals, stopped_early, done, tokens_seen = [], False, 0, 0
    for stage in STAGES:
        if stopped_early:
            break
        if stage.data == "copy":
            redraw_layer(model.h[1], LAYER1_STD)
        frozen = {id(p) for p in frozen_in(stage, model)}
        for p in model.parameters():  # no gradients kept for what the stage does not train
            p.requires_grad_(id(p) not in frozen)
        trained = [p for p in model.parameters() if p.requires_grad]
        # A new AdamW per stage: the moments of stage 1 describe a layer 1 that is gone.
        opt = torch.optim.AdamW([{"params": [p for p in trained if p.dim() >= 2], "weight_decay": 0.01},
                                 {"params": [p for p in trained if p.dim() < 2], "weight_decay": 0.0}],
                                lr=stage.lr, betas=(0.9, 0.98), eps=1e-8)
        print(f"stage {stage.name}: {stage.steps} steps of {stage.batch} x {stage.seq} tokens, "
              f"{len(frozen)} tensors frozen", flush=True)
        running, stage_start = [], time.time()
        for step in range(stage.steps):
            if time.time() - start > 60 * args.minutes:
                stopped_early = True
                print(f"stopping in stage {stage.name} at step {step}: past the {args.minutes}-minute budget", flush=True)
                break
            for g in opt.param_groups:
                g["lr"] = stage.lr * min(1.0, (step + 1) / WARMUP)
            ids, first_positions, targets = batch_for(stage, rng, streams, successor, len(words))
            loss = stage_loss(model, ids, first_positions, targets)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trained, 1.0)
            opt.step()
            running.append(float(loss))
            done += 1
            tokens_seen += ids.numel()
            if (step + 1) % 50 == 0:
                print(f"{stage.name} step {step + 1} loss {sum(running) / len(running):.3f} "
                      f"{(time.time() - stage_start) / (step + 1):.2f} s/step {time.time() - start:.0f}s", flush=True)
                running = []
            if (step + 1) % args.eval_every == 0 or step + 1 == stage.steps:
                val = validation_loss(model, held)
                induction, prev, ratio = probe(model, probes)
                evals.append({"stage": stage.name, "step": done, "validation_loss": round(val, 4),
                              "induction": round(induction, 3), "previous_token": round(prev, 3),
                              "copy_loss_ratio": round(ratio, 3)})
                print(f"{stage.name} step {step + 1} validation loss {val:.4f} (ppl {math.exp(val):.1f}); "
                      f"best induction head {induction:.3f}, best previous-token head {prev:.3f}, "
                      f"second/first copy loss {ratio:.3f}", flush=True)
                if stage.until_ratio is not None and ratio <= stage.until_ratio:
                    print(f"{stage.name}: the copy loss ratio is at most {stage.until_ratio}; next stage", flush=True)
                    break
        export(model, config, words, args.out)

    val = validation_loss(model, held)
    elapsed = time.time() - start
    print(f"done: {done} steps, {elapsed / 60:.1f} min, validation loss {val:.4f} "
          f"(ppl {math.exp(val):.1f})", flush=True)
    summary = {"steps": done, "planned_steps": sum(s.steps for s in STAGES), "stopped_early": stopped_early,
               "minutes": round(elapsed / 60, 1), "validation_loss": round(val, 4), "evaluations": evals,
               "parameters": n_params, "training_tokens": tokens, "tokens_seen": tokens_seen,
               "unk_rate": round(unk, 4), "stages": [s._asdict() for s in STAGES],
               "layer1_std": LAYER1_STD, "warmup": WARMUP, "copy": COPY, "copy_long": COPY_LONG}
    os.makedirs(dm.DATA_DIR, exist_ok=True)
    with open(os.path.join(dm.DATA_DIR, "causal_summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
