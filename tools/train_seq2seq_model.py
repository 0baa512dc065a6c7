"""Train the package's encoder-decoder built-in model (a small BART that reverses a list of words)
and write it to web/models/reverse/.

    /usr/bin/python3 tools/train_seq2seq_model.py                         # into web/models/reverse/
    /usr/bin/python3 tools/train_seq2seq_model.py --out build/trial-reverse  # elsewhere

The task is one whose right cross-attention is known in advance: "red cat blue dog" -> "dog blue
cat red". Source [<s>, w_0 .. w_{n-1}, </s>] (as BART's tokenizer writes it), decoder input
[</s>, <s>, w_{n-1} .. w_0] (BART's decoder_start_token_id, then the forced <s>), labels
[<s>, w_{n-1} .. w_0, </s>]: the decoder position that writes w_{n-1-t} should look at source
position n - t, where that word is. Lengths 3-10 words, drawn uniformly from <unk> and WORDS with
repetition, so a head cannot find the word by its identity alone and must use positions. A fixed seeded set of
held-out sequences (held_out_sequences) is never drawn for training.

Every batch holds sequences of one length, so the batched forward below needs no padding or masks
and is the reference forward of tools/seq2seq_models.py (bart_encode/bart_decode) over a batch;
check_forward() compares the two in float64 before training and on the trained weights.

Writes config.json (BartConfig's field names, as facebook/bart-base's), tokenizer.json (Hugging
Face tokenizers format: WordLevel over the vocabulary, <s> $A </s>), tokenizer_config.json and
model.safetensors (F32, BartForConditionalGeneration's names: "model." prefix, final_logits_bias
without it, no lm_head.weight since the head is tied to model.shared.weight), and the run's figures
to build/training-data/reverse_summary.json for the model card. One seed, one thread: two runs on
the same machine write the same model files.

What it deliberately does not do: no dropout, no padding, no mixed precision, no resuming, no
measuring beyond a progress probe (measure_alignment.py measures the written files).

Shape letters: B batch, ns source tokens, nt target tokens, d d_model, H heads, k d_model / H,
V vocabulary size.
"""
import argparse
import json
import math
import os
import random
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seq2seq_models as s2s  # noqa: E402
from hf_models import layer_norm, linear  # noqa: E402
from make_checkpoints import write_safetensors  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL_DIR = os.path.join(ROOT, "web", "models", "reverse")
DATA_DIR = os.path.join(ROOT, "build", "training-data")

SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]  # BART's ids 0-3
BOS, PAD, EOS, UNK = 0, 1, 2, 3
# Short words a learner knows, grouped only for the reader; ids follow this order after SPECIALS.
WORDS = (
    "red blue green yellow black white brown pink gray orange "
    "cat dog bird fish cow pig horse duck frog bear lion mouse sheep goat "
    "one two three four five six seven eight nine ten "
    "sun moon star tree house car book ball box hat cup apple bread milk"
).split()
MIN_WORDS, MAX_WORDS = 3, 10

SEED = 2718  # weights and training batches
HELD_OUT_SEED = 31415  # the held-out sequences (measure_alignment.py regenerates them from it)
HELD_OUT = 300

# Sizes the brief fixes; BartConfig's names.
D_MODEL, LAYERS, HEADS, FFN, POSITIONS = 64, 2, 4, 128, 32
INIT_STD = 0.02  # BartConfig.init_std: every matrix and embedding N(0, 0.02), biases 0

STEPS, BATCH, LR, WARMUP, FINAL_LR = 3000, 64, 2e-3, 100, 0.1  # FINAL_LR: the cosine's end, as a share of LR
PROBE_EVERY = 500


# ---------------------------------------------------------------------------------------------
# The folder's JSON files.
# ---------------------------------------------------------------------------------------------
def config_json():
    """config.json with facebook/bart-base's field names (generation settings for summaries, such
    as its no_repeat_ngram_size 3, left out: they would forbid a repeated word)."""
    return {
        "activation_dropout": 0.0, "activation_function": "gelu", "add_bias_logits": False,
        "add_final_layer_norm": False, "architectures": ["BartForConditionalGeneration"],
        "attention_dropout": 0.0, "bos_token_id": BOS, "classifier_dropout": 0.0, "d_model": D_MODEL,
        "decoder_attention_heads": HEADS, "decoder_ffn_dim": FFN, "decoder_layerdrop": 0.0,
        "decoder_layers": LAYERS, "decoder_start_token_id": EOS, "dropout": 0.0,
        "encoder_attention_heads": HEADS, "encoder_ffn_dim": FFN, "encoder_layerdrop": 0.0,
        "encoder_layers": LAYERS, "eos_token_id": EOS, "forced_bos_token_id": BOS, "forced_eos_token_id": EOS,
        "init_std": INIT_STD, "is_encoder_decoder": True, "max_position_embeddings": POSITIONS,
        "model_type": "bart", "normalize_before": False, "normalize_embedding": True,
        "num_hidden_layers": LAYERS, "pad_token_id": PAD, "scale_embedding": False,
        "tie_word_embeddings": True, "torch_dtype": "float32", "use_cache": True,
        "vocab_size": len(SPECIALS) + len(WORDS),
    }


def tokenizer_json():
    """WordLevel over SPECIALS + WORDS; lowercase, split at whitespace and punctuation (an unknown
    word is <unk>); <s> $A </s> as BART's tokenizer writes a text (and <s> A </s> </s> B </s> for a
    pair, as RoBERTa's); the WordPiece decoder puts a space before every token but the first (no
    token starts with its "##")."""
    vocab = {w: i for i, w in enumerate(SPECIALS + WORDS)}
    added = [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, s in enumerate(SPECIALS)]
    special = lambda s, type_id=0: {"SpecialToken": {"id": s, "type_id": type_id}}
    sequence = lambda s, type_id: {"Sequence": {"id": s, "type_id": type_id}}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special("<s>"), sequence("A", 0), special("</s>")],
            "pair": [special("<s>"), sequence("A", 0), special("</s>"), special("</s>", 1), sequence("B", 1), special("</s>", 1)],
            "special_tokens": {s: {"id": s, "ids": [vocab[s]], "tokens": [s]} for s in ("<s>", "</s>")},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": False},
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "<unk>"},
    }


def tokenizer_config_json():
    """As BART's, with the class that reads tokenizer.json alone (BartTokenizer wants BPE files)."""
    return {"bos_token": "<s>", "eos_token": "</s>", "sep_token": "</s>", "cls_token": "<s>",
            "unk_token": "<unk>", "pad_token": "<pad>", "model_max_length": POSITIONS,
            "tokenizer_class": "PreTrainedTokenizerFast", "clean_up_tokenization_spaces": False}


# ---------------------------------------------------------------------------------------------
# Data.
# ---------------------------------------------------------------------------------------------
def random_sequence(rng, length=None):
    """A tuple of word ids (repetition allowed), `length` or MIN_WORDS..MAX_WORDS words, each drawn
    uniformly from <unk> and WORDS: a word typed on the page that the vocabulary lacks is <unk>,
    and the model should move it like any other word rather than guess at it."""
    n = length or rng.randint(MIN_WORDS, MAX_WORDS)
    return tuple(UNK + rng.randrange(1 + len(WORDS)) for _ in range(n))  # UNK is the id just before WORDS


def held_out_sequences():
    """HELD_OUT distinct sequences from HELD_OUT_SEED, lengths uniform over MIN_WORDS..MAX_WORDS."""
    rng, out = random.Random(HELD_OUT_SEED), []
    while len(out) < HELD_OUT:
        s = random_sequence(rng)
        if s not in out:
            out.append(s)
    return out


def example(words):
    """(source, decoder input, labels) id lists for one sequence of word ids."""
    reversed_words = list(words[::-1])
    return [BOS, *words, EOS], [EOS, BOS, *reversed_words], [BOS, *reversed_words, EOS]


def aligned_source(n):
    """For a sequence of n words: the decoder positions that write a word (1..n) and, for each,
    the source position of that word (decoder position p writes w_{n-p}, at source n + 1 - p)."""
    p = torch.arange(1, n + 1)
    return p, n + 1 - p


def training_batch(rng, held):
    """(source (B, n + 2), decoder input (B, n + 2), labels (B, n + 2)) for one length n."""
    n = rng.randint(MIN_WORDS, MAX_WORDS)
    rows = []
    while len(rows) < BATCH:
        s = random_sequence(rng, n)
        if s not in held:
            rows.append(example(s))
    return tuple(torch.tensor([r[i] for r in rows]) for i in range(3))


# ---------------------------------------------------------------------------------------------
# Weights: a dict named as seq2seq_models reads them (BartForConditionalGeneration's names
# without "model."), initialised as BartPretrainedModel._init_weights does.
# ---------------------------------------------------------------------------------------------
def initial_weights(config, seed=SEED):
    """float32 tensors; every one but final_logits_bias (a buffer in Hugging Face) is trained."""
    g = torch.Generator().manual_seed(seed)
    d, F_, V = config["d_model"], config["encoder_ffn_dim"], config["vocab_size"]
    normal = lambda *shape: torch.randn(*shape, generator=g) * INIT_STD
    w = {"shared.weight": normal(V, d), "final_logits_bias": torch.zeros(1, V)}
    w["shared.weight"][PAD] = 0  # nn.Embedding's padding_idx row, zeroed by _init_weights

    def lin(name, out_dim, in_dim):
        w[name + ".weight"], w[name + ".bias"] = normal(out_dim, in_dim), torch.zeros(out_dim)

    def norm(name):
        w[name + ".weight"], w[name + ".bias"] = torch.ones(d), torch.zeros(d)

    for stack in ("encoder", "decoder"):
        w[f"{stack}.embed_positions.weight"] = normal(config["max_position_embeddings"] + 2, d)
        norm(f"{stack}.layernorm_embedding")
        for l in range(config[f"{stack}_layers"]):
            p = f"{stack}.layers.{l}."
            for a in ["self_attn"] + (["encoder_attn"] if stack == "decoder" else []):
                for m in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    lin(f"{p}{a}.{m}", d, d)
                norm(f"{p}{a}_layer_norm")
            lin(p + "fc1", F_, d)
            lin(p + "fc2", d, F_)
            norm(p + "final_layer_norm")
    return w


# ---------------------------------------------------------------------------------------------
# Batched forward: seq2seq_models.bart_encode / bart_decode for B sequences of one length (same
# operations in the same order, a batch dimension in front), with autograd.
# ---------------------------------------------------------------------------------------------
def embed(config, w, stack, ids):
    """ids (B, n) -> (B, n, d): tokens + positions at n + 2, then layernorm_embedding."""
    n = ids.shape[1]
    x = w["shared.weight"][ids] + w[f"{stack}.embed_positions.weight"][torch.arange(n) + 2]
    return layer_norm(x, w, f"{stack}.layernorm_embedding", s2s.BART_EPS)


def attention(w, prefix, queries, keys, n_heads, causal):
    """queries (B, nq, d), keys (B, nk, d) -> output (B, nq, d), probabilities (B, H, nq, nk)."""
    B, nq, d = queries.shape
    k_width = d // n_heads
    heads = lambda t: t.reshape(B, t.shape[1], n_heads, k_width).transpose(1, 2)  # (B, H, n, k)
    q = heads(linear(queries, w, prefix + ".q_proj"))
    k, v = heads(linear(keys, w, prefix + ".k_proj")), heads(linear(keys, w, prefix + ".v_proj"))
    scores = (q @ k.transpose(2, 3)) * k_width ** -0.5  # (B, H, nq, nk)
    if causal:
        scores = scores.masked_fill(torch.ones(nq, keys.shape[1], dtype=torch.bool).triu(1), float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    context = (probs @ v).transpose(1, 2).reshape(B, nq, d)
    return linear(context, w, prefix + ".out_proj"), probs


def encode_batch(config, w, source):
    """source (B, ns) -> encoder output (B, ns, d)."""
    H = config["encoder_attention_heads"]
    x = embed(config, w, "encoder", source)
    for l in range(config["encoder_layers"]):
        p = f"encoder.layers.{l}."
        out, _ = attention(w, p + "self_attn", x, x, H, causal=False)
        x = layer_norm(x + out, w, p + "self_attn_layer_norm", s2s.BART_EPS)
        x = layer_norm(x + s2s.bart_feed_forward(config, w, p, x), w, p + "final_layer_norm", s2s.BART_EPS)
    return x


def decode_batch(config, w, target, memory):
    """target (B, nt), memory (B, ns, d) -> logits (B, nt, V), cross-attention (Ld, B, H, nt, ns)."""
    H = config["decoder_attention_heads"]
    x = embed(config, w, "decoder", target)
    crosses = []
    for l in range(config["decoder_layers"]):
        p = f"decoder.layers.{l}."
        out, _ = attention(w, p + "self_attn", x, x, H, causal=True)
        x = layer_norm(x + out, w, p + "self_attn_layer_norm", s2s.BART_EPS)
        out, cross = attention(w, p + "encoder_attn", x, memory, H, causal=False)
        x = layer_norm(x + out, w, p + "encoder_attn_layer_norm", s2s.BART_EPS)
        x = layer_norm(x + s2s.bart_feed_forward(config, w, p, x), w, p + "final_layer_norm", s2s.BART_EPS)
        crosses.append(cross)
    logits = x @ w["shared.weight"].T + w["final_logits_bias"].reshape(-1)
    return logits, torch.stack(crosses)


def check_forward(config, w, sequences):
    """Largest |batched - seq2seq_models| over logits and cross-attention, in float64, for each
    length among `sequences` (a batch per length)."""
    w64 = {k: v.detach().double() for k, v in w.items()}
    worst = 0.0
    by_length = {}
    for s in sequences:
        by_length.setdefault(len(s), []).append(s)
    for group in by_length.values():
        source, target, _ = (torch.tensor(t) for t in zip(*map(example, group)))
        with torch.no_grad():
            logits, cross = decode_batch(config, w64, target, encode_batch(config, w64, source))
        for b in range(len(group)):
            ref = s2s.decode(config, w64, target[b].tolist(), s2s.encode(config, w64, source[b].tolist()).hidden)
            worst = max(worst, float((ref.logits - logits[b]).abs().max()),
                        float((ref.cross_attention - cross[:, b]).abs().max()))
    return worst


# ---------------------------------------------------------------------------------------------
# Progress probe (measure_alignment.py measures the written files with the float64 reference).
# ---------------------------------------------------------------------------------------------
@torch.no_grad()
def probe(config, w, sequences):
    """(exact-match share of greedy reversals, best cross head's alignment share) over `sequences`,
    batched by length."""
    by_length = {}
    for s in sequences:
        by_length.setdefault(len(s), []).append(s)
    exact, hits, rows = 0, 0, 0
    for n, group in by_length.items():
        source, target, _ = (torch.tensor(t) for t in zip(*map(example, group)))
        memory = encode_batch(config, w, source)
        written = torch.tensor([[EOS, BOS]] * len(group))
        for _ in range(n + 1):  # n words and </s>
            logits, _ = decode_batch(config, w, written, memory)
            written = torch.cat([written, logits[:, -1].argmax(-1, keepdim=True)], 1)
        expected = torch.cat([target[:, 2:], torch.full((len(group), 1), EOS)], 1)
        exact += int((written[:, 2:] == expected).all(1).sum())
        _, cross = decode_batch(config, w, target, memory)  # (Ld, B, H, nt, ns)
        p, src = aligned_source(n)
        hits = hits + (cross[:, :, :, p].argmax(-1) == src).sum(dim=(1, 3))  # (Ld, H)
        rows += len(group) * n
    return exact / len(sequences), float(hits.max()) / rows


# ---------------------------------------------------------------------------------------------
# Writing the folder.
# ---------------------------------------------------------------------------------------------
def hf_tensors(w):
    """name -> (shape, dtype, make) for make_checkpoints.write_safetensors: "model." + the names
    here, final_logits_bias as it is; F32."""
    out = {}
    for name, t in w.items():
        stored = name if name == "final_logits_bias" else "model." + name
        out[stored] = (tuple(t.shape), torch.float32, lambda t=t: t.detach().to(torch.float32).contiguous())
    return out


def write_model_folder(out_dir, config, w):
    os.makedirs(out_dir, exist_ok=True)
    for name, content in (("config.json", config), ("tokenizer.json", tokenizer_json()),
                          ("tokenizer_config.json", tokenizer_config_json())):
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            json.dump(content, f, ensure_ascii=False, indent=1 if name == "tokenizer.json" else 2)
            f.write("\n")
    write_safetensors(os.path.join(out_dir, "model.safetensors"), hf_tensors(w))


def learning_rate(step):
    """Linear warm-up over WARMUP steps, then a cosine from LR down to FINAL_LR * LR."""
    if step < WARMUP:
        return LR * (step + 1) / WARMUP
    progress = (step - WARMUP) / max(1, STEPS - WARMUP)
    return LR * (FINAL_LR + (1 - FINAL_LR) * 0.5 * (1 + math.cos(math.pi * progress)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=MODEL_DIR)
    args = ap.parse_args()
    torch.set_num_threads(1)  # one thread: the machine is shared, and results do not depend on the count
    start = time.time()

    config = config_json()
    held = held_out_sequences()
    held_set = set(held)
    w = initial_weights(config)
    trained = [t for name, t in w.items() if name != "final_logits_bias"]
    for t in trained:
        t.requires_grad_(True)
    n_params = sum(t.numel() for t in w.values())
    init_diff = check_forward(config, w, held[:40])
    print(f"BART {D_MODEL}d, {LAYERS}+{LAYERS} layers, {HEADS} heads, ffn {FFN}, vocab {config['vocab_size']}: "
          f"{n_params} parameters; batched forward vs seq2seq_models at init: {init_diff:.2g}", flush=True)
    print(f"{len(held)} held-out sequences; {STEPS} steps of {BATCH} sequences", flush=True)

    # AdamW as the causal model trains: weight decay on matrices only.
    opt = torch.optim.AdamW([{"params": [t for t in trained if t.dim() >= 2], "weight_decay": 0.01},
                             {"params": [t for t in trained if t.dim() < 2], "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.98), eps=1e-8)
    rng = random.Random(SEED)
    evals, running = [], []
    for step in range(STEPS):
        for group in opt.param_groups:
            group["lr"] = learning_rate(step)
        source, target, labels = training_batch(rng, held_set)
        logits, _ = decode_batch(config, w, target, encode_batch(config, w, source))
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(trained, 1.0)
        opt.step()
        running.append(float(loss))
        if (step + 1) % 100 == 0:
            print(f"step {step + 1} loss {sum(running) / len(running):.4f} {time.time() - start:.0f}s", flush=True)
            running = []
        if (step + 1) % PROBE_EVERY == 0 or step + 1 == STEPS:
            exact, align = probe(config, w, held)
            evals.append({"step": step + 1, "loss": round(float(loss), 5), "exact_match": round(exact, 4),
                          "best_cross_head_alignment": round(align, 4)})
            print(f"step {step + 1}: held-out exact-match {exact:.3f}, best cross head alignment {align:.3f}", flush=True)

    final_diff = check_forward(config, w, held)
    elapsed = time.time() - start
    write_model_folder(args.out, config, w)
    size = os.path.getsize(os.path.join(args.out, "model.safetensors"))
    print(f"done: {STEPS} steps in {elapsed / 60:.1f} min; batched forward vs seq2seq_models on the trained "
          f"weights: {final_diff:.2g}; model.safetensors {size} bytes -> {args.out}", flush=True)
    summary = {"steps": STEPS, "batch": BATCH, "lr": LR, "warmup": WARMUP, "final_lr_share": FINAL_LR,
               "seed": SEED, "held_out_seed": HELD_OUT_SEED, "held_out": len(held), "threads": 1,
               "minutes": round(elapsed / 60, 2), "parameters": n_params, "safetensors_bytes": size,
               "forward_check": {"init": init_diff, "trained": final_diff}, "evaluations": evals,
               "sequences_seen": STEPS * BATCH, "words": len(WORDS), "lengths": [MIN_WORDS, MAX_WORDS]}
    os.makedirs(DATA_DIR, exist_ok=True)
    with open(os.path.join(DATA_DIR, "reverse_summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
