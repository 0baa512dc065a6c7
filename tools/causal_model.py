"""Shared pieces of the causal-model tools: vocabulary and tokenizer, the sequences it learns and
is measured on (some of them repeat a span, so copying from context pays off), and a GPT-2 in
PyTorch whose state dict has Hugging Face's GPT-2 tensor names.

Used by train_causal_model.py and measure_induction.py, so that the two agree on the data split,
the token ids and the model. The corpus, the word pre-tokenizer and the
safetensors writer are the default model's (default_model.py); the held-out sentences are the
same 200 per source.

What it deliberately does not do: no subwords (a word-level vocabulary, as the default model's),
no KV cache or generation, no dropout on attention, no padding (every training sequence is full).

Shape letters: B batch, T tokens, d n_embd, H heads, k d_head (= d / H), V vocabulary size,
L layers.
"""
import json
import math
import os
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

import default_model as dm

MODEL_DIR = os.path.join(dm.ROOT, "web", "models", "causal")
EOT = "<|endoftext|>"  # GPT-2's document boundary; it also starts every sequence
SPECIALS = [EOT, "[UNK]"]
BOS, UNK = 0, 1
SEED = 4321



# ---------------------------------------------------------------------------------------------
# Tokenizer: the default model's word-level pipeline, with <|endoftext|> put before the text.
# ---------------------------------------------------------------------------------------------
def tokenizer_json(words):
    return dm.tokenizer_json(words, SPECIALS, before=(EOT,), after=())


def encode(text, vocab, max_len):
    """<|endoftext|> then the words, truncated to max_len tokens."""
    return ([BOS] + dm.word_ids(text, vocab, SPECIALS))[:max_len]


# ---------------------------------------------------------------------------------------------
# Data. Training text is one stream of ids per source: SOTU sentences in document order (so
# the model reads whole addresses), WordNet examples in a fixed shuffled order, each followed
# by <|endoftext|>. The held-out sentences of default_model.load_corpus() are left out of both.
# ---------------------------------------------------------------------------------------------
def training_streams(vocab):
    corpus = dm.load_corpus()
    held = {s for _, he in corpus.values() for s in he}
    sotu = [s for s in dm.sotu_sentences() if len(dm.pre_tokenize(s)) >= 3 and s not in held]
    streams = {"sotu": [i for s in sotu for i in dm.word_ids(s, vocab, SPECIALS)]}
    wordnet = corpus["wordnet"][0]  # already a fixed-seed shuffle, held-out removed
    streams["wordnet"] = [i for s in wordnet for i in dm.word_ids(s, vocab, SPECIALS) + [BOS]]
    return streams


def held_out_sentences(per_source=dm.HELD_OUT_PER_SOURCE):
    return dm.held_out_sentences(per_source)


def random_words(rng, length, vocab_size):
    """`length` distinct word ids, uniformly drawn (never a special token)."""
    return rng.sample(range(len(SPECIALS), vocab_size), length)


def training_sequence(rng, streams, T, vocab_size, random_repeat, span_repeat):
    """One sequence of T ids: <|endoftext|> then a window of one source's text, in which a run of
    random words appears twice in a row (with probability random_repeat), or a span of that text
    is repeated further on (span_repeat), or neither."""
    stream = streams["sotu" if rng.random() < 0.5 else "wordnet"]
    start = rng.randrange(len(stream) - T)
    text = stream[start : start + T - 1]
    kind = rng.random()
    if kind < span_repeat:
        length = rng.randint(3, min(30, (T - 1) // 2))
        src = rng.randint(0, T - 1 - 2 * length)
        at = rng.randint(src + length, T - 1 - length)
        text = text[:at] + text[src : src + length] + text[at:]
    elif kind < span_repeat + random_repeat:
        length = rng.randint(5, min(60, (T - 1) // 2))
        run = random_words(rng, length, vocab_size)
        at = rng.randint(0, T - 1 - 2 * length)
        text = text[:at] + run + run + text[at:]
    return [BOS] + text[: T - 1]


def successor_map(rng, vocab_size):
    """A fixed random permutation of the word ids (specials map to themselves): the rule of
    rule_sequence()."""
    words = list(range(len(SPECIALS), vocab_size))
    shuffled = words[:]
    rng.shuffle(shuffled)
    return list(range(len(SPECIALS))) + shuffled


def rule_sequence(rng, T, vocab_size, successor, keep=0.9):
    """<|endoftext|> then T - 1 random words in which, with probability `keep` at each place, the
    word is successor[the word two places back]. Only a head that looks at the previous token can
    read the word two back, so these sequences pay for a previous-token head directly; on
    random text it forms slowly, because it pays only once an induction head uses it."""
    words = [rng.randrange(len(SPECIALS), vocab_size) for _ in range(2)]
    while len(words) < T - 1:
        rule = rng.random() < keep
        words.append(successor[words[-2]] if rule else rng.randrange(len(SPECIALS), vocab_size))
    return [BOS] + words


def copy_sequence(rng, T, vocab_size, copies, min_length, max_length):
    """<|endoftext|> then T - 1 random words in which `copies` spans of min_length..max_length
    words are copied to a later place. Returns the ids and the positions t from which the next
    token ids[t + 1] is a copied word that only induction predicts (every word of a copy but its
    first; a later copy may overwrite an earlier one, which leaves a few targets wrong)."""
    words = [rng.randrange(len(SPECIALS), vocab_size) for _ in range(T - 1)]
    targets = []
    for _ in range(copies):
        length = rng.randint(min_length, min(max_length, (T - 1) // 2))
        src = rng.randint(0, T - 1 - 2 * length)
        dst = rng.randint(src + length, T - 1 - length)
        words[dst : dst + length] = words[src : src + length]
        targets += range(dst + 1, dst + length)  # word dst + j sits at position dst + j + 1
    return [BOS] + words, targets


def xorshift32(seed):
    """Marsaglia's xorshift32: a generator of 32-bit integers simple enough to write the same in
    JavaScript, so the page and tests can draw the very sequences measure_induction.py measures."""
    x = seed & 0xFFFFFFFF
    while True:
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        yield x


def repeated_random_sequences(count, length, vocab_size, seed):
    """<|endoftext|> r r for `count` runs r of `length` distinct words (never a special token),
    Olsson et al.'s repeated random tokens: token i of the second copy sits at 1 + length + i.
    Word ids are drawn as first + (x mod (vocab_size - first)) from xorshift32(seed), a repeat
    within a run drawn again."""
    draw = xorshift32(seed)
    first = len(SPECIALS)
    sequences = []
    for _ in range(count):
        run = []
        while len(run) < length:
            word = first + next(draw) % (vocab_size - first)
            if word not in run:
                run.append(word)
        sequences.append([BOS] + run + run)
    return sequences


# ---------------------------------------------------------------------------------------------
# Model: GPT-2 (pre-LayerNorm, tanh GELU, final ln_f, LM head tied to wte), batched for training.
# Conv1D weights are stored (in, out), as in Hugging Face's GPT-2, so state_dict() keys and
# shapes are the file's (with "transformer." in front).
# ---------------------------------------------------------------------------------------------
class Config:
    def __init__(self, vocab_size, n_embd=128, n_layer=4, n_head=4, n_positions=128):
        self.vocab_size = vocab_size
        self.n_embd = n_embd
        self.n_layer = n_layer
        self.n_head = n_head
        self.n_positions = n_positions

    def to_hf(self):
        return {
            "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2",
            "vocab_size": self.vocab_size, "n_embd": self.n_embd, "n_layer": self.n_layer,
            "n_head": self.n_head, "n_inner": None, "n_positions": self.n_positions,
            "n_ctx": self.n_positions, "activation_function": "gelu_new",
            "layer_norm_epsilon": 1e-05, "resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0,
            "initializer_range": 0.02, "scale_attn_weights": True,
            "scale_attn_by_inverse_layer_idx": False, "reorder_and_upcast_attn": False,
            "tie_word_embeddings": True, "bos_token_id": BOS, "eos_token_id": BOS,
            "torch_dtype": "float16",
        }

    @staticmethod
    def from_hf(c):
        return Config(c["vocab_size"], c["n_embd"], c["n_layer"], c["n_head"], c["n_positions"])


class Conv1D(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_in, n_out))  # (in, out)
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return x @ self.weight + self.bias


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n_head = c.n_head
        self.c_attn = Conv1D(c.n_embd, 3 * c.n_embd)  # Q | K | V
        self.c_proj = Conv1D(c.n_embd, c.n_embd)

    def forward(self, x, head_mask=None):  # x (B, T, d); head_mask (H,) multiplies each head
        B, T, d = x.shape
        H = self.n_head
        q, k, v = self.c_attn(x).split(d, dim=-1)
        heads = lambda t: t.view(B, T, H, d // H).transpose(1, 2)  # (B, H, T, k)
        q, k, v = heads(q), heads(k), heads(v)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // H)  # (B, H, T, T)
        future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        probs = scores.masked_fill(future, float("-inf")).softmax(-1)  # (B, H, T, T)
        out = probs @ v  # (B, H, T, k)
        if head_mask is not None:
            out = out * head_mask.view(1, H, 1, 1).to(out.dtype)
        return self.c_proj(out.transpose(1, 2).reshape(B, T, d)), probs


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_fc = Conv1D(c.n_embd, 4 * c.n_embd)
        self.c_proj = Conv1D(4 * c.n_embd, c.n_embd)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))  # gelu_new


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln_1 = nn.LayerNorm(c.n_embd, eps=1e-5)
        self.attn = Attention(c)
        self.ln_2 = nn.LayerNorm(c.n_embd, eps=1e-5)
        self.mlp = MLP(c)

    def forward(self, x, head_mask=None):
        a, probs = self.attn(self.ln_1(x), head_mask)
        x = x + a
        return x + self.mlp(self.ln_2(x)), probs


class GPT2(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.config = c
        self.wte = nn.Embedding(c.vocab_size, c.n_embd)  # (V, d), also the LM head
        self.wpe = nn.Embedding(c.n_positions, c.n_embd)  # (P, d)
        self.h = nn.ModuleList(Block(c) for _ in range(c.n_layer))
        self.ln_f = nn.LayerNorm(c.n_embd, eps=1e-5)
        for name, p in self.named_parameters():
            if name.endswith("weight") and p.dim() == 2:
                # GPT-2's initialisation: N(0, 0.02), residual projections scaled by 1/sqrt(2L).
                std = 0.02 / math.sqrt(2 * c.n_layer) if name.endswith("c_proj.weight") else 0.02
                nn.init.normal_(p, std=std)

    def forward(self, ids, head_mask=None, start=None):
        """ids (B, T); head_mask (L, H) or None; start (B,) or None: the position of each
        sequence's first token (training shows short windows at every position; 0 otherwise).
        Returns the final hidden states (B, T, d), after ln_f, and the attention probabilities of
        every layer, (L, B, H, T, T)."""
        T = ids.shape[1]
        positions = torch.arange(T, device=ids.device)[None]  # (1, T)
        if start is not None:
            positions = positions + start[:, None]  # (B, T)
        x = self.wte(ids) + self.wpe(positions)  # (B, T, d)
        attentions = []
        for l, block in enumerate(self.h):
            x, probs = block(x, None if head_mask is None else head_mask[l])
            attentions.append(probs)
        return self.ln_f(x), torch.stack(attentions)

    def logits(self, hidden):
        """The tied LM head: (..., d) -> (..., V)."""
        return hidden @ self.wte.weight.T

    def hf_state_dict(self):
        """The tensors as GPT2LMHeadModel saves them: "transformer." names, lm_head left out
        because it is tied to wte."""
        return {"transformer." + k: v for k, v in self.state_dict().items()}


def next_token_losses(model, hidden, ids):
    """Per-position cross-entropy of predicting ids[:, t + 1] from position t: (B, T - 1). The
    head runs only where there is a next token (the logits are the biggest tensor here)."""
    B, T = ids.shape
    logits = model.logits(hidden[:, :-1].reshape(B * (T - 1), -1))  # (B (T - 1), V)
    return F.cross_entropy(logits, ids[:, 1:].reshape(-1), reduction="none").view(B, T - 1)


def copy_scores(model, sequences, run_length):
    """Per-head induction and previous-token scores (L, H), and the first- and second-copy
    losses, over sequences <|endoftext|> r r (B, 1 + 2·run_length)."""
    ids = torch.tensor(sequences)  # (B, T)
    with torch.no_grad():
        hidden, att = model(ids)  # (B, T, d), (L, B, H, T, T)
        losses = next_token_losses(model, hidden, ids)  # (B, T - 1): loss t predicts t + 1
    i = torch.arange(run_length)
    induction = att[:, :, :, 1 + run_length + i, 2 + i].mean(dim=(1, 3))  # (L, H)
    t = torch.arange(1, ids.shape[1])
    prev = att[:, :, :, t, t - 1].mean(dim=(1, 3))  # (L, H)
    r = torch.arange(1, run_length)  # predicting r[1:]
    first = losses[:, r].mean().item()  # from positions 1 .. run_length - 1
    second = losses[:, run_length + r].mean().item()  # from positions run_length + 1 ..
    return induction, prev, first, second


def load_shipped_model(model_dir=MODEL_DIR, dtype=torch.float64):
    """The shipped model: fp16 weights -> float32 -> `dtype`, in eval mode."""
    with open(os.path.join(model_dir, "config.json")) as f:
        config = Config.from_hf(json.load(f))
    model = GPT2(config)
    tensors = dm.read_safetensors(os.path.join(model_dir, "model.safetensors"))
    model.load_state_dict({k.removeprefix("transformer."): v for k, v in tensors.items()})
    return model.to(dtype).eval()


def initial_model(config):
    """The model exactly as training starts it (same seed, same order of initialisation)."""
    torch.manual_seed(SEED)
    return GPT2(config)
