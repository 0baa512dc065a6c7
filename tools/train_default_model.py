"""Train the package's default model and write it to web/models/default/.

    /usr/bin/python3 tools/train_default_model.py                # full run, fixed seed
    /usr/bin/python3 tools/train_default_model.py --minutes 2 --out build/trial-model  # trial
    /usr/bin/python3 tools/train_default_model.py --head-only    # the MLM head alone, on the shipped model

The learning-rate schedule runs over a wall-time budget (default 40 minutes) or a step limit,
whichever ends first: the build machine is shared, so a fixed step count could take anywhere
from 20 to 80 minutes. Data order, masking and initialisation are seeded; the number of steps
reached (printed and saved in build/training-data/train_summary.json) depends on the machine.

Builds a lowercase word vocabulary (sources weighted equally), trains a small post-LN BERT with
masked language modelling on "[CLS] sentence [SEP]" sequences, reports the validation MLM loss on
the held-out sentences, and writes config.json, tokenizer.json and model.safetensors (fp16,
BertForMaskedLM's layout: the encoder under "bert.", the MLM head under "cls.predictions.", its
decoder tied to the word embeddings). The shipped files are rewritten at every evaluation, so an
interrupted run still leaves a usable model behind. At the end it reports the top-1 and top-5
accuracy of the head on held-out words, each masked on its own (mlm_accuracy).

--head-only trains the MLM head alone, with the same data, masking, seed and schedule, on the
shipped model's encoder, which stays as it is (frozen, its fp16 values): the first shipped model
was saved without its head, and this gives it one without changing a single attention weight.

What it deliberately does not do: no sentence pairs / next-sentence prediction, no subwords, no
mixed precision, no resuming. Fetched data lives in build/training-data/ and is never committed.
"""
import argparse
import json
import math
import os
import random
import time

import torch

import default_model as dm

VOCAB_SIZE = 6000  # including the 5 special tokens
MAX_LEN = 64  # positions, [CLS] and [SEP] included


def batches(seqs, batch_size, rng):
    """Length-bucketed batches: shuffle, sort within windows of 50 batches, shuffle the batches."""
    order = list(range(len(seqs)))
    rng.shuffle(order)
    window = batch_size * 50
    out = []
    for i in range(0, len(order), window):
        chunk = sorted(order[i : i + window], key=lambda j: len(seqs[j]))
        out.extend(chunk[k : k + batch_size] for k in range(0, len(chunk), batch_size))
    rng.shuffle(out)
    return out


def pad(rows):
    T = max(len(r) for r in rows)
    return torch.tensor([r + [dm.PAD] * (T - len(r)) for r in rows])  # (B, T)


def mask_tokens(ids, vocab_size, gen):
    """Standard BERT masking of 15% of the word tokens: 80% [MASK], 10% random word, 10% kept."""
    words = ids > dm.MASK  # (B, T) real words, specials and padding excluded
    chosen = (torch.rand(ids.shape, generator=gen) < 0.15) & words
    targets = torch.where(chosen, ids, torch.full_like(ids, -100))
    r = torch.rand(ids.shape, generator=gen)
    inputs = ids.clone()
    inputs[chosen & (r < 0.8)] = dm.MASK
    randomize = chosen & (r >= 0.8) & (r < 0.9)
    inputs[randomize] = torch.randint(len(dm.SPECIALS), vocab_size, ids.shape, generator=gen)[randomize]
    return inputs, targets


@torch.no_grad()
def validation_loss(model, seqs, vocab_size):
    model.eval()
    gen = torch.Generator().manual_seed(dm.SEED)  # same masks at every evaluation
    total, count = 0.0, 0
    for i in range(0, len(seqs), 100):
        inputs, targets = mask_tokens(pad(seqs[i : i + 100]), vocab_size, gen)
        n = int((targets != -100).sum())
        total += float(model(inputs, targets)) * n
        count += n
    model.train()
    return total / count


@torch.no_grad()
def mlm_accuracy(model, seqs, words):
    """Top-1 and top-5 accuracy of the MLM head on every word of `seqs` but [UNK], each replaced by
    [MASK] on its own, as a user asks the page. Returns {"all": (top1, top5, n), "words": ...};
    "words" leaves out the tokens with no letter or digit (punctuation, symbols)."""
    model.eval()
    is_word = [any(ch.isalnum() for ch in w) for w in words]
    hits = {"all": [0, 0, 0], "words": [0, 0, 0]}
    for s in seqs:
        positions = torch.tensor([i for i in range(1, len(s) - 1) if s[i] != dm.UNK])
        if len(positions) == 0:
            continue
        rows = torch.arange(len(positions))
        batch = torch.tensor([s] * len(positions))  # (P, T): row j masks positions[j]
        batch[rows, positions] = dm.MASK
        top = model.logits(batch)[rows, positions].topk(5, dim=-1).indices  # (P, 5)
        targets = torch.tensor(s)[positions]
        for j, target in enumerate(targets.tolist()):
            for kind in ("all", "words") if is_word[target] else ("all",):
                hits[kind][0] += int(top[j, 0] == target)
                hits[kind][1] += int(bool((top[j] == target).any()))
                hits[kind][2] += 1
    model.train()
    return {kind: (t1 / n, t5 / n, n) for kind, (t1, t5, n) in hits.items()}


def export(model, hf_config, words, out_dir):
    dm.write_model_folder(out_dir, hf_config, dm.tokenizer_json(words), model.hf_state_dict())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, help="step limit (default 20000; 3000 with --head-only)")
    ap.add_argument("--minutes", type=float, default=40, help="wall-time budget for training")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--head-only", action="store_true", help="train the MLM head alone on the shipped encoder")
    ap.add_argument("--out", default=dm.MODEL_DIR)
    args = ap.parse_args()
    steps = args.steps or (3000 if args.head_only else 20000)
    torch.manual_seed(dm.SEED)
    torch.set_num_threads(2)
    rng = random.Random(dm.SEED)
    gen = torch.Generator().manual_seed(dm.SEED)
    start = time.time()

    corpus = dm.load_corpus()
    words = dm.build_vocab(corpus, VOCAB_SIZE)
    vocab = {w: i for i, w in enumerate(words)}
    train = [dm.encode(s, vocab, MAX_LEN) for tr, _ in corpus.values() for s in tr]
    held = [dm.encode(s, vocab, MAX_LEN) for _, he in corpus.values() for s in he]
    unk = sum(t == dm.UNK for s in train for t in s) / sum(len(s) - 2 for s in train)
    print(f"{len(train)} training / {len(held)} held-out sentences, vocab {len(words)}, "
          f"UNK rate {unk:.3f}", flush=True)

    if args.head_only:
        assert dm.load_vocab() == vocab, "the shipped tokenizer's vocabulary is not the one this data builds"
        model = dm.load_shipped_model(dtype=torch.float32, head=False)  # a fresh head, initialised as in a full run
        for p in model.bert.parameters():
            p.requires_grad_(False)
        with open(os.path.join(dm.MODEL_DIR, "config.json")) as f:
            hf_config = {**json.load(f), "architectures": ["BertForMaskedLM"]}  # as the encoder was trained
    else:
        config = dm.Config(len(words), num_hidden_layers=args.layers, max_position_embeddings=MAX_LEN,
                           dropout=args.dropout)
        model = dm.MaskedLM(config)
        hf_config = config.to_hf()
    n_params = sum(p.numel() for p in model.bert.parameters())
    n_head = sum(p.numel() for p in model.head.parameters())
    print(f"BertModel parameters: {n_params}, MLM head {n_head} ({2 * (n_params + n_head)} bytes in fp16)", flush=True)
    trained = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    decay = [p for n, p in trained if p.dim() >= 2]
    no_decay = [p for n, p in trained if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.01},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.98), eps=1e-6)
    warmup = 150  # steps
    train_start = time.time()

    def progress(step):  # 0 -> 1 over the step limit or the time budget, whichever ends first
        return max(step / steps, (time.time() - train_start) / (60 * args.minutes))

    def lr_at(step, p):  # linear warmup, then cosine decay to 5% of the peak
        if step < warmup:
            return args.lr * (step + 1) / warmup
        return args.lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(1.0, p))))

    step, epoch, running, next_eval, done = 0, 0, [], 0.1, False
    while not done:
        epoch += 1
        for idx in batches(train, args.batch_size, rng):
            p = progress(step)
            done = p >= 1
            if done:
                break
            inputs, targets = mask_tokens(pad([train[j] for j in idx]), len(words), gen)
            for g in opt.param_groups:
                g["lr"] = lr_at(step, p)
            loss = model(inputs, targets)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_([p for _, p in trained], 1.0)
            opt.step()
            running.append(float(loss))
            step += 1
            if step % 50 == 0:
                print(f"step {step} epoch {epoch} loss {sum(running) / len(running):.3f} "
                      f"lr {lr_at(step, p):.2e} {time.time() - start:.0f}s", flush=True)
                running = []
            if p >= next_eval:
                next_eval += 0.1
                val = validation_loss(model, held, len(words))
                print(f"step {step} validation MLM loss {val:.4f} (ppl {math.exp(val):.1f})", flush=True)
                export(model, hf_config, words, args.out)

    val = validation_loss(model, held, len(words))
    export(model, hf_config, words, args.out)
    accuracy = mlm_accuracy(model, held, words)
    elapsed = time.time() - start
    print(f"done: {step} steps, {elapsed / 60:.1f} min, validation MLM loss {val:.4f}", flush=True)
    for kind, (top1, top5, n) in accuracy.items():
        print(f"held-out {kind}, each masked alone: top-1 {top1:.3f}, top-5 {top5:.3f} over {n} tokens", flush=True)
    summary = {"head_only": args.head_only, "steps": step, "minutes": round(elapsed / 60, 1),
               "validation_loss": round(val, 4), "parameters": n_params, "head_parameters": n_head,
               "train_sentences": len(train), "held_out": len(held), "unk_rate": round(unk, 4),
               "accuracy": {k: {"top1": round(a, 4), "top5": round(b, 4), "tokens": n} for k, (a, b, n) in accuracy.items()}}
    os.makedirs(dm.DATA_DIR, exist_ok=True)
    with open(os.path.join(dm.DATA_DIR, "train_summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
