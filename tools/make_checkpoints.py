"""Write small random Hugging Face checkpoints in the real Hub layouts, with float64 references.

    /usr/bin/python3 tools/make_checkpoints.py                 # the committed fixtures
    /usr/bin/python3 tools/make_checkpoints.py --size bert-base [--out DIR]
    /usr/bin/python3 tools/make_checkpoints.py --size gpt2 [--out DIR]

Without --size it writes tests/fixtures/checkpoints/<name>/ for the fifteen checkpoints of
CHECKPOINTS: config.json (the architecture's own field names), tokenizer.json (the Hugging Face
`tokenizers` JSON format, WordPiece, byte-level BPE (behind Qwen's or Llama 3's Split pattern for those
fixtures) or (Mistral, Gemma 3) SentencePiece BPE with
byte fallback, vocabularies built here from CORPUS; the
layout of current `tokenizers` versions), tokenizer.old.json (the same tokenizer in the older
layout that the Hub's bert-base-uncased, distilbert-base-uncased, roberta-base and gpt2 files
still have: no model "type", no byte_fallback, no ByteLevel use_regex) and
model.safetensors (random weights, stored F32, F16 or BF16, with the prefixes, legacy names,
buffers and left-out tied weights of real files), plus cases/<case>/ with the token ids and the
float64 reference of tools/hf_models.py computed from the weights AS STORED (after rounding):
case.txt, ids.i32, attention.f32 (L, H, n, n), inputs.f32 (L, n, d), hidden.f32 (n, d) and,
with an LM head, logits.f32 (n, V); average.f32 (L, n, n) and rollout.f32 (n, n) from
attention_summaries.py; raw little-endian, row-major, no header. The cases
ablated-zero and ablated-mean run the first sentence with two heads switched off (ABLATIONS) and
add ablation.u8 (L, H): 0 for a head left on, 1 zeroed, 2 replaced by its mean. It prints how far a
float32 forward lands from float64, as a guide for tolerances. A causal checkpoint with an LM
head also gets greedy.json: the first sentence's ids and the GREEDY_TOKENS ids the float64
reference writes after them greedily (to an eos_token_id, if it writes one first), each chosen
again from a whole run over the text so far, with the smallest margin between the first and
second logit it saw. Fixed seeds: two runs write byte-identical files.

With --size it writes one real-size random checkpoint (bert-base: BertForPreTraining layout
of bert-base-uncased, F32; gpt2: GPT2LMHeadModel layout of gpt2, F32; smollm2-135m, qwen2.5-0.5b and
gemma3-270m: those models' shapes and configs, BF16) to --out (default
build/checkpoints/<size>/), streaming one tensor at a time, with a tokenizer.json padded to
exactly vocab_size entries and no cases. Those are for manual and e2e size tests; never commit
them.

What it deliberately does not do: no trained weights, no tokenizer beyond what the case
sentences need (the Python encoders below handle these inputs exactly as the Hugging Face
tokenizers do; they are not a general reimplementation: no offsets, truncation or pairs), no
safetensors package (the writer is the plain format: 8-byte header length, JSON, data).
"""
import argparse
import collections
import json
import os
import re
import shutil
import struct
import sys
import unicodedata
import zlib
from typing import NamedTuple

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention_summaries  # noqa: E402
import hf_models  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "checkpoints")
SEED = 12

# ---------------------------------------------------------------------------------------------
# The text both vocabularies are built from. Plain English, so BPE merges and WordPiece words
# are ones a reader recognises in the fixtures.
# ---------------------------------------------------------------------------------------------
CORPUS = """
The old man lived by the river with his cat and two dogs. Every morning he would walk to the
water and watch the birds fly over the trees. The children from the village were walking to
school, and they waved to him as they passed. He waved back slowly, because his arms were
tired, but he always smiled. The cat sat on the mat near the door and watched the road. When
the rain came, the dogs ran inside and slept by the fire. The man made tea and read his old
books, and the house was warm and quiet. In the evening the sun went down behind the hills,
and the sky turned red and gold. The birds came back to their nests, and the river was calm.
Hello, said the girl who lived in the next house. She brought bread and milk for the cat. The
man thanked her and they talked about the weather, the fish in the river and the small boat
that was tied near the bridge. Tomorrow we can take the boat and look for fish, he said. The
girl laughed and said that she could not swim, but she would sit in the boat and watch. They
walked to the bridge together and looked at the water. The world was green and bright after
the rain. A small bird landed on the rail and sang a short song. The cat saw the bird and
jumped, but the bird flew away over the river. The man laughed, and the girl laughed with him.
Today is a good day, he said, and tomorrow will be a good day too. They walked back to the
house as the light turned soft and the first stars came out. The dogs were waiting at the
door, and the cat was asleep on the mat again. Nothing is faster than the quick brown fox,
said the man, and nothing is slower than an old dog that sleeps by the fire. The children
were singing as they walked home, and their voices carried over the water to the trees on the
other side of the river.
"""

# ---------------------------------------------------------------------------------------------
# WordPiece (bert, distilbert): BertNormalizer(lowercase) -> BertPreTokenizer -> greedy
# longest-match WordPiece -> [CLS] $A [SEP].
# ---------------------------------------------------------------------------------------------
WP_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WP_SUFFIXES = ["##s", "##ed", "##ing", "##ly", "##er", "##est", "##ness"]
WP_PUNCTUATION = list(".,!?;:'\"()-")
MAX_CHARS_PER_WORD = 100


def bert_normalize(text):
    """BertNormalizer(clean_text, handle_chinese_chars, strip_accents=None -> follows lowercase)."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch == "\0" or ch == "\ufffd" or (cat.startswith("C") and ch not in "\t\n\r"):
            continue
        out.append(" " if ch in "\t\n\r" or cat == "Zs" else ch)
    text = unicodedata.normalize("NFD", "".join(out).lower())  # no CJK in our inputs
    return "".join(ch for ch in text if unicodedata.category(ch) != "Mn")


def is_bert_punctuation(ch):
    o = ord(ch)
    return 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126 \
        or unicodedata.category(ch).startswith("P")


def bert_pre_tokenize(text):
    """Split on whitespace, then every punctuation character is a word of its own."""
    words = []
    for chunk in text.split():
        word = ""
        for ch in chunk:
            if is_bert_punctuation(ch):
                words += [word, ch] if word else [ch]
                word = ""
            else:
                word += ch
        if word:
            words.append(word)
    return words


def wordpiece(word, vocab):
    if len(word) > MAX_CHARS_PER_WORD:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                pieces.append(piece)
                start = end
                break
        else:
            return ["[UNK]"]  # one unmatched piece makes the whole word unknown
    return pieces


def build_wordpiece_vocab(pad_to=None):
    """Specials, punctuation, digits, letters, ## pieces, then the corpus words; a word that is a
    corpus word plus one of WP_SUFFIXES is left out so that it splits (walking -> walk ##ing)."""
    counts = collections.Counter(bert_pre_tokenize(bert_normalize(CORPUS)))
    words = set(counts)
    splits = lambda w: any(w.endswith(s[2:]) and len(w) - len(s[2:]) >= 3 and w[:-len(s[2:])] in words
                           for s in WP_SUFFIXES)
    stems = {w for w in words if not splits(w)}
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [str(i) for i in range(10)]
    tokens = WP_SPECIALS + WP_PUNCTUATION + letters + ["##" + c for c in letters] + WP_SUFFIXES
    tokens += sorted(w for w in stems if not is_bert_punctuation(w[0]))
    tokens = list(dict.fromkeys(tokens))  # "##s" is a letter and a suffix; ids must be dense
    tokens += [f"[unused{i}]" for i in range((pad_to or 0) - len(tokens))]
    return {t: i for i, t in enumerate(tokens)}


def split_added(text, added):
    """Split text on added tokens {content: lstrip}; returns [(is_added, piece)].

    An lstrip token (RoBERTa's <mask>) takes the whitespace before it with it.
    """
    if not added:
        return [(False, text)]
    pattern = "|".join(re.escape(t) for t in sorted(added, key=len, reverse=True))
    out, pos = [], 0
    for m in re.finditer(pattern, text):
        before = text[pos:m.start()]
        if added[m.group()]:
            before = before.rstrip()
        out += [(False, before), (True, m.group())]
        pos = m.end()
    return [p for p in out + [(False, text[pos:])] if p[0] or p[1]]


def encode_wordpiece(text, vocab):
    ids = []
    for is_added, piece in split_added(text, {t: False for t in WP_SPECIALS}):
        words = [piece] if is_added else bert_pre_tokenize(bert_normalize(piece))
        ids += [vocab[p] for w in words for p in ([w] if is_added else wordpiece(w, vocab))]
    return [vocab["[CLS]"]] + ids + [vocab["[SEP]"]]


def added_token(i, content, lstrip=False, normalized=False):
    return {"id": i, "content": content, "single_word": False, "lstrip": lstrip, "rstrip": False,
            "normalized": normalized, "special": True}


def wordpiece_tokenizer_json(vocab):
    cls, sep = vocab["[CLS]"], vocab["[SEP]"]
    special = lambda t, type_id: {"SpecialToken": {"id": t, "type_id": type_id}}
    sequence = lambda s, type_id: {"Sequence": {"id": s, "type_id": type_id}}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added_token(vocab[t], t) for t in WP_SPECIALS],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)],
            "pair": [special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0),
                     sequence("B", 1), special("[SEP]", 1)],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [cls], "tokens": ["[CLS]"]},
                               "[SEP]": {"id": "[SEP]", "ids": [sep], "tokens": ["[SEP]"]}},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": MAX_CHARS_PER_WORD, "vocab": vocab},
    }


# ---------------------------------------------------------------------------------------------
# Byte-level BPE (roberta, gpt2): GPT-2 regex split -> bytes as printable characters -> merges
# by rank. RoBERTa wraps in <s> ... </s>; GPT-2 adds nothing.
# ---------------------------------------------------------------------------------------------
# GPT-2's pattern is 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+ ;
# the standard library's re has no \p{..}: letters are [^\W\d_] and numbers \d here, the same
# classes for every input of this script (ASCII), not for all of Unicode.
GPT2_SPLIT = re.compile(
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+""")
# The Split patterns of Qwen2 to Qwen3 and of Llama 3, as their tokenizer.json files hold them (Llama
# 3 takes digits three at a time, Qwen one). SPLIT_RE is each for the standard library's re, as
# GPT2_SPLIT is: a letter is [^\W\d_], a number \d, and a character that is neither (nor CR, LF
# or space, where the pattern says so) (?:(?![...])[\W_]): the same classes for this script's texts.
SPLIT_PATTERNS = {
    "qwen": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    "llama3": r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
}
SPLIT_RE = {kind: re.compile(
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|(?:(?![\r\n])[\W_])?[^\W\d_]+|""" + digits +
    r"""| ?(?:(?!\s)[\W_])+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""") for kind, digits in (("qwen", r"\d"), ("llama3", r"\d{1,3}"))}
# Their special tokens, after the vocabulary as in the real files; Llama 3 starts each text with the first.
SPLIT_SPECIALS = {"qwen": ["<|endoftext|>", "<|im_start|>", "<|im_end|>"], "llama3": ["<|begin_of_text|>", "<|end_of_text|>"]}
N_MERGES = 200
ROBERTA_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]  # ids 0..3; <mask> is the last id
GPT2_EOT = "<|endoftext|>"


def byte_alphabet():
    """GPT-2's bytes_to_unicode: printable bytes stand for themselves, the others are shifted
    to 256 + i, so every byte is one visible character (space -> 'Ġ'). In vocabulary order."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars, extra = {b: chr(b) for b in printable}, 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + extra)
            extra += 1
    return [chars[b] for b in printable] + [chars[b] for b in range(256) if b not in printable], chars


def byte_words(text):
    _, chars = byte_alphabet()
    return ["".join(chars[b] for b in w.encode("utf-8")) for w in GPT2_SPLIT.findall(text)]


def train_bpe(n_merges, words=None):
    """Most frequent adjacent pair first; ties broken by the pair itself, so the result is fixed.
    `words` (each word's count) defaults to CORPUS's byte-level words."""
    words = {tuple(w): c for w, c in (words or collections.Counter(byte_words(CORPUS))).items()}
    merges = []
    for _ in range(n_merges):
        pairs = collections.Counter()
        for w, c in words.items():
            for pair in zip(w, w[1:]):
                pairs[pair] += c
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        words = {merge_pair(w, best): c for w, c in words.items()}
    return merges


def merge_pair(word, pair):
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def bpe(word, ranks):
    word = tuple(word)
    while len(word) > 1:
        pair = min(zip(word, word[1:]), key=lambda p: ranks.get(p, float("inf")))
        if pair not in ranks:
            break
        word = merge_pair(word, pair)
    return word


class Bpe(NamedTuple):
    kind: str      # "roberta" | "gpt2" | "qwen" | "llama3" (a Split pattern before the byte-level step)
    vocab: dict    # token -> id
    merges: list   # [(left, right)] in rank order

    @property
    def added(self):
        """{content: lstrip} of the added tokens, matched in the raw text before BPE."""
        if self.kind == "roberta":
            return {**{t: False for t in ROBERTA_SPECIALS}, "<mask>": True}
        if self.kind in SPLIT_SPECIALS:
            return {t: False for t in SPLIT_SPECIALS[self.kind]}
        return {GPT2_EOT: False}


def build_bpe(kind, pad_to=None):
    alphabet, _ = byte_alphabet()
    merges = train_bpe(N_MERGES)
    tokens = (ROBERTA_SPECIALS if kind == "roberta" else []) + alphabet + [a + b for a, b in merges]
    last = ["<mask>"] if kind == "roberta" else SPLIT_SPECIALS.get(kind, [GPT2_EOT])
    tokens += [f"unused{i}" for i in range((pad_to or 0) - len(tokens) - len(last))] + last
    assert len(set(tokens)) == len(tokens)  # merges of a trained BPE never repeat a token
    return Bpe(kind, {t: i for i, t in enumerate(tokens)}, merges)


def encode_bpe(text, tok):
    ranks = {m: i for i, m in enumerate(tok.merges)}
    _, chars = byte_alphabet()
    ids = []
    for is_added, piece in split_added(text, tok.added):
        if is_added:
            ids.append(tok.vocab[piece])
        elif tok.kind in SPLIT_PATTERNS:
            for w in SPLIT_RE[tok.kind].findall(piece):
                word = "".join(chars[b] for b in w.encode("utf-8"))
                # Llama 3's ignore_merges: a word that is a token is that token, whatever the merges say.
                ids += [tok.vocab[word]] if tok.kind == "llama3" and word in tok.vocab else [tok.vocab[t] for t in bpe(word, ranks)]
        else:
            ids += [tok.vocab[t] for w in byte_words(piece) for t in bpe(w, ranks)]
    if tok.kind == "roberta":
        ids = [tok.vocab["<s>"]] + ids + [tok.vocab["</s>"]]
    if tok.kind == "llama3":
        ids = [tok.vocab["<|begin_of_text|>"]] + ids
    return ids


def bpe_tokenizer_json(tok):
    v = tok.vocab
    if tok.kind == "roberta":
        added = [added_token(v[t], t, normalized=True) for t in ROBERTA_SPECIALS]
        added.append(added_token(v["<mask>"], "<mask>", lstrip=True))
        post = {"type": "RobertaProcessing", "sep": ["</s>", v["</s>"]], "cls": ["<s>", v["<s>"]],
                "trim_offsets": True, "add_prefix_space": False}
    elif tok.kind in SPLIT_PATTERNS:
        return split_bpe_tokenizer_json(tok)
    else:
        added = [added_token(v[GPT2_EOT], GPT2_EOT, normalized=True)]
        post = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                          "use_regex": True},
        "post_processor": post,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "vocab": v, "merges": [a + " " + b for a, b in tok.merges]},
    }


# ---------------------------------------------------------------------------------------------
# SentencePiece BPE with byte fallback, as Llama 2, TinyLlama and Mistral (kind "llama": a "▁"
# prepended, <s> first) and Gemma 3 (kind "gemma": no prefix, <bos> = 2 first) save it to
# tokenizer.json: spaces become "▁", no pre-tokenizer, so BPE runs over the whole text; a character
# outside the vocabulary becomes its UTF-8 bytes, <0xE2> <0x98> <0x95>; the BOS comes from a
# TemplateProcessing post-processor.
# ---------------------------------------------------------------------------------------------
SP_SPECIALS = {"llama": ["<unk>", "<s>", "</s>"], "gemma": ["<pad>", "<eos>", "<bos>", "<unk>"]}
SP_BOS = {"llama": "<s>", "gemma": "<bos>"}
SP_EOS = {"llama": "</s>", "gemma": "<eos>"}


class SentencePiece(NamedTuple):
    kind: str      # "llama" | "gemma"
    vocab: dict    # token -> id
    merges: list   # [(left, right)] in rank order


def sp_normalize(text, kind):
    text = text.replace(" ", "\u2581")
    return "\u2581" + text if kind == "llama" else text


def build_sentencepiece(kind, pad_to=None):
    """Specials, the 256 byte tokens, the corpus's characters, then merges trained on its words."""
    words = collections.Counter(sp_normalize(" " + w, "gemma") for w in CORPUS.split())
    alphabet = sorted({ch for w in words for ch in w})
    merges = train_bpe(N_MERGES, words)
    tokens = SP_SPECIALS[kind] + [f"<0x{b:02X}>" for b in range(256)] + alphabet + [a + b for a, b in merges]
    tokens += [f"<unused{i}>" for i in range((pad_to or 0) - len(tokens))]
    assert len(set(tokens)) == len(tokens)
    return SentencePiece(kind, {t: i for i, t in enumerate(tokens)}, merges)


def encode_sentencepiece(text, tok):
    symbols = []
    for ch in sp_normalize(text, tok.kind):
        symbols += [ch] if ch in tok.vocab else [f"<0x{b:02X}>" for b in ch.encode("utf-8")]
    ranks = {m: i for i, m in enumerate(tok.merges)}
    return [tok.vocab[SP_BOS[tok.kind]]] + [tok.vocab[t] for t in bpe(symbols, ranks)]


def sentencepiece_tokenizer_json(tok):
    v, bos = tok.vocab, SP_BOS[tok.kind]
    replace = {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}
    normalizer = replace if tok.kind == "gemma" else \
        {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"}, replace]}
    decoders = [{"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}]
    if tok.kind == "llama":
        decoders.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    special = lambda type_id: {"SpecialToken": {"id": bos, "type_id": type_id}}
    sequence = lambda s, type_id: {"Sequence": {"id": s, "type_id": type_id}}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added_token(v[t], t) for t in SP_SPECIALS[tok.kind]],
        "normalizer": normalizer,
        "pre_tokenizer": None,
        "post_processor": {"type": "TemplateProcessing", "single": [special(0), sequence("A", 0)],
                           "pair": [special(0), sequence("A", 0), special(1), sequence("B", 1)],
                           "special_tokens": {bos: {"id": bos, "ids": [v[bos]], "tokens": [bos]}}},
        "decoder": {"type": "Sequence", "decoders": decoders},
        # Gemma 3's file, written by a recent tokenizers, has merges as pairs; Llama 2's as strings.
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": v, "merges": [[a, b] if tok.kind == "gemma" else f"{a} {b}" for a, b in tok.merges]},
    }


def split_bpe_tokenizer_json(tok):
    """Qwen's and Llama 3's layout: NFC (Qwen), a Split with the family's pattern then ByteLevel
    without its own regex; Llama 3 adds <|begin_of_text|> through a TemplateProcessing and ignores
    merges for whole-token words."""
    v, byte_level = tok.vocab, {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}
    post = byte_level
    if tok.kind == "llama3":
        bos = "<|begin_of_text|>"
        special = lambda type_id: {"SpecialToken": {"id": bos, "type_id": type_id}}
        sequence = lambda s, type_id: {"Sequence": {"id": s, "type_id": type_id}}
        post = {"type": "Sequence", "processors": [
            {**byte_level, "trim_offsets": True},
            {"type": "TemplateProcessing", "single": [special(0), sequence("A", 0)],
             "pair": [special(0), sequence("A", 0), special(1), sequence("B", 1)],
             "special_tokens": {bos: {"id": bos, "ids": [v[bos]], "tokens": [bos]}}}]}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added_token(v[t], t) for t in SPLIT_SPECIALS[tok.kind]],
        "normalizer": {"type": "NFC"} if tok.kind == "qwen" else None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": SPLIT_PATTERNS[tok.kind]}, "behavior": "Isolated", "invert": False},
            {**byte_level, "trim_offsets": tok.kind == "llama3"}]},
        "post_processor": post,
        "decoder": {**byte_level, "trim_offsets": tok.kind == "llama3"},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "" if tok.kind == "qwen" else None,
                  "end_of_word_suffix": "" if tok.kind == "qwen" else None, "fuse_unk": False, "byte_fallback": False,
                  "ignore_merges": tok.kind == "llama3", "vocab": v, "merges": [a + " " + b for a, b in tok.merges]},
    }


def old_layout(tok_json):
    """The same tokenizer as the `tokenizers` versions before about 0.10 wrote it, as the Hub's
    files for bert-base-uncased, distilbert-base-uncased, roberta-base and gpt2 still are: the model
    has no "type" (readers infer it from the fields), a BPE model no byte_fallback, and ByteLevel
    steps no use_regex. Every other field is as in the current layout."""
    # A byte-fallback model keeps its flag (a file without it would encode otherwise); merges as strings.
    dropped = ("type", "ignore_merges") + (() if tok_json["model"].get("byte_fallback") else ("byte_fallback",))
    model = {k: v for k, v in tok_json["model"].items() if k not in dropped}
    if "merges" in model:
        model["merges"] = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    drop_regex = lambda step: step if not step or step["type"] != "ByteLevel" else \
        {k: v for k, v in step.items() if k != "use_regex"}
    return {**tok_json, **{part: drop_regex(tok_json[part]) for part in ("pre_tokenizer", "post_processor", "decoder")},
            "model": model}


# ---------------------------------------------------------------------------------------------
# Weights. Generated under the names of hf_models (base prefix stripped, weight/bias), each from
# its own seed so a tensor does not depend on the order of the others; the file layouts below
# rename them.
# ---------------------------------------------------------------------------------------------
class Dims(NamedTuple):
    d: int          # model width
    layers: int
    heads: int
    ff: int         # feed-forward width
    vocab: int
    positions: int  # rows of the position table (RoBERTa: max tokens + 2)
    kv_heads: int = 0  # rotary decoders: key/value heads
    head_dim: int = 0  # rotary decoders: the width of a head (not always d / heads)


ROTARY = ("llama", "qwen2", "mistral", "qwen3", "gemma3_text")  # llama_forward's families, and Gemma 3


def linear_shapes(name, n_out, n_in):
    return {name + ".weight": (n_out, n_in), name + ".bias": (n_out,)}


def norm_shapes(name, d):
    return {name + ".weight": (d,), name + ".bias": (d,)}


def model_shapes(family, dims, head):
    """hf_models name -> shape of every weight the forward pass reads, in module order."""
    d, f, v = dims.d, dims.ff, dims.vocab
    if family == "gpt_neox":
        s = {"embed_in.weight": (v, d)}
        for l in range(dims.layers):
            p = f"layers.{l}."
            s.update(norm_shapes(p + "input_layernorm", d))
            s.update(linear_shapes(p + "attention.query_key_value", 3 * d, d))  # rows head by head: q | k | v
            s.update(linear_shapes(p + "attention.dense", d, d))
            s.update(norm_shapes(p + "post_attention_layernorm", d))
            s.update(linear_shapes(p + "mlp.dense_h_to_4h", f, d))
            s.update(linear_shapes(p + "mlp.dense_4h_to_h", d, f))
        s.update(norm_shapes("final_layer_norm", d))
        if head:
            s["embed_out.weight"] = (v, d)
        return s
    if family in ROTARY:
        q, kv = dims.heads * dims.head_dim, dims.kv_heads * dims.head_dim
        s = {"embed_tokens.weight": (v, d)}
        for l in range(dims.layers):
            p = f"layers.{l}."
            s[p + "input_layernorm.weight"] = (d,)
            for name, width in (("q_proj", q), ("k_proj", kv), ("v_proj", kv)):
                s[p + f"self_attn.{name}.weight"] = (width, d)
                if family == "qwen2":
                    s[p + f"self_attn.{name}.bias"] = (width,)
            s[p + "self_attn.o_proj.weight"] = (d, q)
            if family in ("qwen3", "gemma3_text"):  # each head's queries and keys normalised
                s.update({p + "self_attn.q_norm.weight": (dims.head_dim,), p + "self_attn.k_norm.weight": (dims.head_dim,)})
            s[p + "post_attention_layernorm.weight"] = (d,)
            if family == "gemma3_text":
                s.update({p + "pre_feedforward_layernorm.weight": (d,), p + "post_feedforward_layernorm.weight": (d,)})
            s.update({p + "mlp.gate_proj.weight": (f, d), p + "mlp.up_proj.weight": (f, d), p + "mlp.down_proj.weight": (d, f)})
        s["norm.weight"] = (d,)
        if head:  # an untied head; a tied one is embed_tokens itself
            s["lm_head.weight"] = (v, d)
        return s
    if family == "gpt2":
        s = {"wte.weight": (v, d), "wpe.weight": (dims.positions, d)}
        for l in range(dims.layers):
            p = f"h.{l}."
            s.update(norm_shapes(p + "ln_1", d))
            s.update({p + "attn.c_attn.weight": (d, 3 * d), p + "attn.c_attn.bias": (3 * d,)})  # Conv1D (in, out)
            s.update({p + "attn.c_proj.weight": (d, d), p + "attn.c_proj.bias": (d,)})
            s.update(norm_shapes(p + "ln_2", d))
            s.update({p + "mlp.c_fc.weight": (d, f), p + "mlp.c_fc.bias": (f,)})
            s.update({p + "mlp.c_proj.weight": (f, d), p + "mlp.c_proj.bias": (d,)})
        s.update(norm_shapes("ln_f", d))
        return s  # the LM head is wte itself
    s = {"embeddings.word_embeddings.weight": (v, d), "embeddings.position_embeddings.weight": (dims.positions, d)}
    if family != "distilbert":
        s["embeddings.token_type_embeddings.weight"] = (2 if family == "bert" else 1, d)
    s.update(norm_shapes("embeddings.LayerNorm", d))
    block = hf_models.BLOCKS[family]
    for l in range(dims.layers):
        p = f"{block['layers']}.{l}."
        for role in "qkvo":
            s.update(linear_shapes(p + block[role], d, d))
        s.update(norm_shapes(p + block["ln1"], d))
        s.update(linear_shapes(p + block["ff1"], f, d))
        s.update(linear_shapes(p + block["ff2"], d, f))
        s.update(norm_shapes(p + block["ln2"], d))
    if head:
        dense, norm, bias = hf_models.MLM_HEADS[family]
        s.update(linear_shapes(dense, d, d))
        s.update(norm_shapes(norm, d))
        s[bias] = (v,)
    return s


def is_norm(name):
    return ("LayerNorm" in name or "layer_norm" in name or ".ln_" in name or name.startswith("ln_")
            or "layernorm" in name or name == "norm.weight" or "_norm.weight" in name)


def random_tensor(key, family, name, shape, d_head):
    """float64 values with the scales of a trained model: embeddings O(1), matrices ~1/sqrt(fan
    in), gammas near 1, so attention is visibly peaked rather than uniform."""
    g = torch.Generator().manual_seed(zlib.crc32(f"{SEED}/{key}/{name}".encode()))
    t = torch.randn(shape, generator=g, dtype=torch.float64)
    if "word_embeddings" in name or name in ("wte.weight", "embed_tokens.weight", "embed_in.weight"):
        return 0.7 * t
    if "position_embeddings" in name or "token_type" in name or name == "wpe.weight":
        return 0.3 * t
    if is_norm(name):  # Gemma's norms multiply by 1 + w: their stored weights sit near 0
        return 1.0 + 0.1 * t if name.endswith(".weight") and family != "gemma3_text" else 0.1 * t
    if len(shape) == 1:
        return 0.1 * t
    fan_in = shape[0] if family == "gpt2" else shape[1]  # Conv1D (in, out) vs Linear (out, in)
    t = t / fan_in ** 0.5
    # Larger query/key matrices sharpen the softmax; narrow heads (k = 3) need more of it to be
    # as peaked as k = 8 ones (the 1/4 power is empirical).
    qk_gain = 1.5 * (8 / d_head) ** 0.25
    if any(r in name for r in ("query", "key", "q_lin", "k_lin", "q_proj", "k_proj")):
        t = qk_gain * t
    if "c_attn" in name:
        t[:, :2 * shape[0]] *= qk_gain  # the Q | K column blocks
    # A smaller attention output keeps each token's own vector dominant in the residual stream;
    # at full scale 12 random layers average every token into the same vector and the deep
    # layers' attention turns uniform.
    if any(r in name for r in ("attention.output.dense", "out_lin", "attn.c_proj", "o_proj", "attention.dense")):
        t = 0.5 * t
    return t


# ---------------------------------------------------------------------------------------------
# File layouts: how a real checkpoint of each kind names, adds and leaves out tensors.
# ---------------------------------------------------------------------------------------------
class Layout(NamedTuple):
    prefix: str = ""                # base-model prefix: "bert.", "roberta.", "transformer.", ...
    legacy_norms: bool = False      # TF-converted BERT: LayerNorm.gamma / LayerNorm.beta
    position_ids: bool = False      # int64 buffer embeddings.position_ids (1, positions)
    pooler: bool = False            # pooler.dense.* (unused by the engine)
    seq_relationship: bool = False  # BertForPreTraining's next-sentence head cls.seq_relationship.*
    decoder_bias: bool = False      # the MLM bias saved as cls.predictions.decoder.bias
    attn_bias: bool = False         # GPT-2's causal-mask buffer h.N.attn.bias (1, 1, P, P) F32
    masked_bias: bool = False       # older GPT-2 files: h.N.attn.masked_bias, a scalar
    inv_freq: bool = False          # older Llama files: layers.N.self_attn.rotary_emb.inv_freq, F16 here
                                    # and deliberately wrong, as the engine must compute it from the config
    neox_buffers: bool = False      # Pythia's layers.N.attention.{bias (BOOL causal mask), masked_bias (0-d
                                    # F32), rotary_emb.inv_freq (F32, wrong as above)}


HEAD_PREFIXES = ("cls.", "lm_head.", "vocab_", "embed_out.")  # saved without the base-model prefix


def extra_tensors(family, dims, layout):
    """Buffers and unused heads a real file carries: hf_models name -> (shape, dtype, make)."""
    d, p = dims.d, dims.positions
    out = {}
    for name, shape in ({**(linear_shapes("pooler.dense", d, d) if layout.pooler else {}),
                         **(linear_shapes("cls.seq_relationship", 2, d) if layout.seq_relationship else {})}).items():
        out[name] = (shape, None, None)  # random, stored like the weights
    if layout.position_ids:
        out["embeddings.position_ids"] = ((1, p), torch.int64, lambda: torch.arange(p).view(1, p))
    for l in range(dims.layers if family == "gpt2" else 0):
        if layout.attn_bias:
            out[f"h.{l}.attn.bias"] = ((1, 1, p, p), torch.float32,
                                       lambda: torch.ones(p, p).tril().view(1, 1, p, p))
        if layout.masked_bias:
            out[f"h.{l}.attn.masked_bias"] = ((), torch.float32, lambda: torch.tensor(-1e4))
    for l in range(dims.layers if layout.neox_buffers else 0):
        out[f"layers.{l}.attention.bias"] = ((1, 1, p, p), torch.bool, lambda: torch.ones(p, p, dtype=torch.bool).tril().view(1, 1, p, p))
        out[f"layers.{l}.attention.masked_bias"] = ((), torch.float32, lambda: torch.tensor(-1e9))
        out[f"layers.{l}.attention.rotary_emb.inv_freq"] = ((4,), torch.float32, lambda: torch.full((4,), 0.5))
    for l in range(dims.layers if layout.inv_freq else 0):
        half = dims.head_dim // 2
        out[f"layers.{l}.self_attn.rotary_emb.inv_freq"] = ((half,), torch.float16, lambda: torch.full((half,), 0.5, dtype=torch.float16))
    return out


def file_name(name, layout):
    if not name.startswith(HEAD_PREFIXES):
        name = layout.prefix + name
    if layout.legacy_norms and "LayerNorm." in name:
        name = name.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta")
    if layout.decoder_bias and name == "cls.predictions.bias":
        name = "cls.predictions.decoder.bias"
    return name


STORAGE = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def checkpoint_tensors(key, family, dims, head, layout, dtype):
    """File name -> (shape, torch dtype, make) for every tensor of the file; make() returns the
    tensor as stored (weights rounded to `dtype`)."""
    storage = STORAGE[dtype]
    specs = {n: (s, None, None) for n, s in model_shapes(family, dims, head).items()}
    specs.update(extra_tensors(family, dims, layout))
    out = {}
    for name, (shape, buffer_dtype, make) in specs.items():
        if make is None:
            make = lambda name=name, shape=shape: random_tensor(key, family, name, shape,
                                                                 dims.head_dim or dims.d // dims.heads).to(storage)
        out[file_name(name, layout)] = (shape, buffer_dtype or storage, make)
    return out


# ---------------------------------------------------------------------------------------------
# safetensors: u64 little-endian header length N, N bytes of JSON (space-padded to a multiple
# of 8), then the tensors' bytes, here sorted by name.
# ---------------------------------------------------------------------------------------------
SAFETENSORS_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.int64: "I64",
                      torch.bool: "BOOL"}


def tensor_bytes(t):
    """Little-endian bytes, row-major (torch's in-memory layout on this little-endian machine)."""
    assert sys.byteorder == "little"
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)  # numpy has no bfloat16; the bits are what is stored
    return t.contiguous().numpy().tobytes()


def write_safetensors(path, tensors):
    """tensors: name -> (shape, dtype, make); each make() runs only when its bytes are written,
    so peak memory is one tensor, not the file."""
    names = sorted(tensors)
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name in names:
        shape, dtype, _ = tensors[name]
        size = int(np.prod(shape, dtype=np.int64)) * torch.tensor([], dtype=dtype).element_size()
        header[name] = {"dtype": SAFETENSORS_DTYPES[dtype], "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for name in names:
            data = tensor_bytes(tensors[name][2]())
            assert len(data) == header[name]["data_offsets"][1] - header[name]["data_offsets"][0], name
            f.write(data)


def read_safetensors_header(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n)), 8 + n


# ---------------------------------------------------------------------------------------------
# config.json with each architecture's own field names.
# ---------------------------------------------------------------------------------------------
def config_json(family, dims, arch, tok, recent, dtype):
    """`recent` adds what newer saves write (torch_dtype, transformers_version, GPT-2's n_inner)."""
    if family == "gpt2":
        eot = tok.vocab[GPT2_EOT]
        c = {"activation_function": "gelu_new", "architectures": [arch], "attn_pdrop": 0.1,
             "bos_token_id": eot, "embd_pdrop": 0.1, "eos_token_id": eot, "initializer_range": 0.02,
             "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": dims.positions,
             "n_embd": dims.d, "n_head": dims.heads, "n_layer": dims.layers,
             "n_positions": dims.positions, "resid_pdrop": 0.1, "vocab_size": dims.vocab}
        if recent:
            c["n_inner"] = None
    elif family == "gpt_neox":
        eot = tok.vocab[GPT2_EOT]
        c = {"architectures": [arch], "attention_dropout": 0.0, "bos_token_id": eot, "classifier_dropout": 0.1,
             "eos_token_id": eot, "hidden_act": "gelu", "hidden_dropout": 0.0, "hidden_size": dims.d,
             "initializer_range": 0.02, "intermediate_size": dims.ff, "layer_norm_eps": 1e-05,
             "max_position_embeddings": dims.positions, "model_type": "gpt_neox", "num_attention_heads": dims.heads,
             "num_hidden_layers": dims.layers, "rope_scaling": None, "rotary_emb_base": 10000, "rotary_pct": 0.25,
             "tie_word_embeddings": False, "use_cache": True, "use_parallel_residual": True, "vocab_size": dims.vocab}
    elif family in ROTARY:
        if family in SENTENCEPIECE:
            bos, eos = tok.vocab[SP_BOS[tok.kind]], tok.vocab[SP_EOS[tok.kind]]
        elif tok.kind in SPLIT_SPECIALS:
            bos, eos = tok.vocab[SPLIT_SPECIALS[tok.kind][0]], tok.vocab[SPLIT_SPECIALS[tok.kind][-1 if tok.kind == "llama3" else 0]]
        else:
            bos = eos = tok.vocab[GPT2_EOT]
        c = {"architectures": [arch], "attention_dropout": 0.0, "bos_token_id": bos, "eos_token_id": eos,
             "hidden_act": "silu", "hidden_size": dims.d, "initializer_range": 0.02, "intermediate_size": dims.ff,
             "max_position_embeddings": dims.positions, "model_type": family, "num_attention_heads": dims.heads,
             "num_hidden_layers": dims.layers, "num_key_value_heads": dims.kv_heads, "rms_norm_eps": 1e-05,
             "rope_scaling": None, "rope_theta": 10000.0, "use_cache": True, "vocab_size": dims.vocab}
        if family == "llama":
            c.update({"attention_bias": False, "head_dim": dims.head_dim, "mlp_bias": False, "pretraining_tp": 1})
        elif family == "mistral":
            c.update({"head_dim": dims.head_dim, "sliding_window": 4096})
        elif family == "qwen3":
            c.update({"attention_bias": False, "head_dim": dims.head_dim, "max_window_layers": dims.layers,
                      "rope_theta": 1000000.0, "sliding_window": None, "use_sliding_window": False})
        elif family == "gemma3_text":
            del c["hidden_act"]
            c.update({"attention_bias": False, "attn_logit_softcapping": None, "final_logit_softcapping": None,
                      "head_dim": dims.head_dim, "hidden_activation": "gelu_pytorch_tanh", "query_pre_attn_scalar": 256,
                      "rms_norm_eps": 1e-06, "rope_local_base_freq": 10000.0, "rope_theta": 1000000.0,
                      "sliding_window": 512, "sliding_window_pattern": 6, "use_bidirectional_attention": False})
        else:
            c.update({"max_window_layers": dims.layers, "sliding_window": dims.positions, "use_sliding_window": False})
    elif family == "distilbert":
        c = {"activation": "gelu", "architectures": [arch], "attention_dropout": 0.1, "dim": dims.d,
             "dropout": 0.1, "hidden_dim": dims.ff, "initializer_range": 0.02,
             "max_position_embeddings": dims.positions, "model_type": "distilbert",
             "n_heads": dims.heads, "n_layers": dims.layers, "pad_token_id": tok["[PAD]"],
             "qa_dropout": 0.1, "seq_classif_dropout": 0.2, "sinusoidal_pos_embds": False,
             "tie_weights_": True, "vocab_size": dims.vocab}
    else:
        roberta = family == "roberta"
        c = {"architectures": [arch], "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu",
             "hidden_dropout_prob": 0.1, "hidden_size": dims.d, "initializer_range": 0.02,
             "intermediate_size": dims.ff, "layer_norm_eps": 1e-05 if roberta else 1e-12,
             "max_position_embeddings": dims.positions, "model_type": family,
             "num_attention_heads": dims.heads, "num_hidden_layers": dims.layers,
             "pad_token_id": tok.vocab["<pad>"] if roberta else tok["[PAD]"],
             "position_embedding_type": "absolute", "type_vocab_size": 1 if roberta else 2,
             "vocab_size": dims.vocab}
        if roberta:
            c.update({"bos_token_id": tok.vocab["<s>"], "eos_token_id": tok.vocab["</s>"]})
    if recent:
        c.update({"torch_dtype": {"F32": "float32", "F16": "float16", "BF16": "bfloat16"}[dtype],
                  "transformers_version": "4.40.0"})
    return dict(sorted(c.items()))


# ---------------------------------------------------------------------------------------------
# The checkpoints.
# ---------------------------------------------------------------------------------------------
class Checkpoint(NamedTuple):
    name: str
    family: str
    arch: str       # config.json "architectures"
    d: int
    layers: int
    heads: int
    ff: int
    tokens: int     # max tokens (the position table has 2 more rows for RoBERTa)
    dtype: str
    head: bool
    layout: Layout
    recent: bool    # written by a recent transformers version (see config_json)
    cases: tuple    # ((case name, text), ...)
    kv_heads: int = 0   # rotary decoders: key/value heads
    head_dim: int = 0   # rotary decoders: a head's width
    config: dict = {}   # config.json fields set after config_json's (None removes one)
    tokenizer: str = ""  # a tokenizer other than the family's: "llama3"


SENTENCE = ("sentence", "The children were walking slowly to the old river.")
CHECKPOINTS = [
    Checkpoint("bert-legacy", "bert", "BertForPreTraining", 32, 2, 4, 128, 64, "F32", True,
               Layout("bert.", legacy_norms=True, pooler=True, seq_relationship=True), False,
               (SENTENCE, ("masked", "The cat sat on the [MASK] near the door."))),
    Checkpoint("bert-plain", "bert", "BertModel", 32, 2, 4, 128, 64, "F16", False,
               Layout("", position_ids=True, pooler=True), True,
               (SENTENCE, ("punctuation", "Hello, world! The birds can't fly today."))),
    Checkpoint("distilbert", "distilbert", "DistilBertForMaskedLM", 32, 2, 4, 128, 64, "F32", True,
               Layout("distilbert."), False,
               (SENTENCE, ("masked", "The cat sat on the [MASK] near the door."))),
    Checkpoint("roberta", "roberta", "RobertaForMaskedLM", 32, 2, 4, 128, 64, "BF16", True,
               Layout("roberta.", position_ids=True, pooler=True), True,
               (SENTENCE, ("masked", "The cat sat on the <mask> near the door."))),
    Checkpoint("gpt2-legacy", "gpt2", "GPT2LMHeadModel", 32, 2, 4, 128, 64, "F32", True,
               Layout("", attn_bias=True, masked_bias=True), False,
               (SENTENCE, ("repeated", "The old man saw the river, and the old man saw the river again."))),
    Checkpoint("gpt2-new", "gpt2", "GPT2LMHeadModel", 32, 2, 4, 128, 64, "F16", True,
               Layout("transformer."), True,
               (SENTENCE, ("repeated", "The old man saw the river, and the old man saw the river again."))),
    Checkpoint("bert-12x12", "bert", "BertForMaskedLM", 36, 12, 12, 36, 64, "F16", True,
               Layout("bert.", position_ids=True, decoder_bias=True), True,
               (SENTENCE, ("masked", "The cat sat on the [MASK] near the door."))),
]
REPEATED = ("repeated", "The old man saw the river, and the old man saw the river again.")
DIGITS = ("digits", "In 2024 they'll sell 365 boats, and THEY'LL sell 12345 more.")  # Split patterns differ on digits
FALLBACK = ("fallback", "Tea \u2615 by the caf\u00e9.")  # characters outside a SentencePiece vocabulary: bytes
# Rotary decoders: a SmolLM2-like Llama (grouped 3:1, tied head, BF16); one with a head_dim that
# is not hidden / heads, Llama 3's rope_scaling, an untied head and the inv_freq buffers of older
# files; a Qwen2.5-like one (q/k/v biases, F16, tied) whose RoPE is in v5's rope_parameters; and a
# Mistral whose sliding window of 5 keys the 12- and 22-token cases pass; a Qwen3 (q/k norms,
# head_dim 16 on width 32); a Gemma 3 in v4's layout (layers 0 and 1 slide over 4 keys by
# sliding_window_pattern 3, layer 2 is full; BF16, so √hidden is rounded to BF16; a
# query_pre_attn_scalar that is not head_dim) and one in v5's (layer_types, rope_parameters per
# layer type with linear scaling on the full layer, and both softcaps, which Gemma 2 had); a Pythia
# (GPT-NeoX: interleaved query_key_value, 8 of 32 dimensions rotating, parallel blocks, its buffers).
CHECKPOINTS += [
    Checkpoint("llama-smol", "llama", "LlamaForCausalLM", 48, 2, 6, 96, 64, "BF16", False,
               Layout("model."), True, (SENTENCE, REPEATED), kv_heads=2, head_dim=8,
               config={"tie_word_embeddings": True}),
    Checkpoint("llama3-scaled", "llama", "LlamaForCausalLM", 48, 2, 4, 96, 64, "F32", True,
               Layout("model.", inv_freq=True), False, (SENTENCE, REPEATED, DIGITS), kv_heads=2, head_dim=16,
               tokenizer="llama3",
               config={"tie_word_embeddings": False, "rope_theta": 500000.0,
                       "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                                        "original_max_position_embeddings": 8192, "rope_type": "llama3"}}),
    Checkpoint("qwen2", "qwen2", "Qwen2ForCausalLM", 32, 2, 4, 64, 64, "F16", False,
               Layout("model."), True, (SENTENCE, REPEATED, DIGITS), kv_heads=2, head_dim=8,
               # room for its chat template's default system message (76 tokens of this vocabulary)
               config={"tie_word_embeddings": True, "rope_theta": None, "rope_scaling": None, "max_position_embeddings": 128,
                       "rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"},
                       "torch_dtype": None, "dtype": "float16", "transformers_version": "5.0.0"}),
    Checkpoint("mistral", "mistral", "MistralForCausalLM", 32, 2, 4, 64, 64, "F32", True,
               Layout("model."), True, (SENTENCE, REPEATED, FALLBACK), kv_heads=2, head_dim=8,
               config={"tie_word_embeddings": False, "sliding_window": 5, "rope_theta": 1000000.0}),
    Checkpoint("qwen3", "qwen3", "Qwen3ForCausalLM", 32, 2, 4, 64, 64, "BF16", False,
               Layout("model."), True, (SENTENCE, REPEATED, DIGITS), kv_heads=2, head_dim=16,
               config={"tie_word_embeddings": True}),
    Checkpoint("gemma3", "gemma3_text", "Gemma3ForCausalLM", 32, 3, 4, 64, 64, "BF16", False,
               Layout("model."), True, (SENTENCE, REPEATED, FALLBACK), kv_heads=1, head_dim=16,
               config={"tie_word_embeddings": True, "sliding_window": 4, "sliding_window_pattern": 3,
                       "query_pre_attn_scalar": 24}),
    Checkpoint("gemma3-v5", "gemma3_text", "Gemma3ForCausalLM", 32, 2, 4, 64, 64, "F32", False,
               Layout("model."), True, (SENTENCE, REPEATED), kv_heads=2, head_dim=8,
               config={"tie_word_embeddings": True, "sliding_window": 3, "sliding_window_pattern": None,
                       "layer_types": ["sliding_attention", "full_attention"], "rope_theta": None,
                       "rope_local_base_freq": None, "rope_scaling": None,
                       "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
                                           "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}},
                       "attn_logit_softcapping": 3.0, "final_logit_softcapping": 5.0,
                       "torch_dtype": None, "dtype": "float32", "transformers_version": "5.0.0"}),
    Checkpoint("pythia", "gpt_neox", "GPTNeoXForCausalLM", 64, 2, 2, 128, 64, "F16", True,
               Layout("gpt_neox.", neox_buffers=True), True, (SENTENCE, REPEATED)),
]
REAL_SIZES = {
    "bert-base": Checkpoint("bert-base", "bert", "BertForPreTraining", 768, 12, 12, 3072, 512, "F32", True,
                            CHECKPOINTS[0].layout, False, ()),
    "gpt2": Checkpoint("gpt2", "gpt2", "GPT2LMHeadModel", 768, 12, 12, 3072, 1024, "F32", True,
                       CHECKPOINTS[4].layout, False, ()),
    # The LLMs' real shapes and configs, BF16 as the Hub has them: for the page at scale and the bench.
    "smollm2-135m": Checkpoint("smollm2-135m", "llama", "LlamaForCausalLM", 576, 30, 9, 1536, 8192, "BF16", False,
                               Layout("model."), True, (), kv_heads=3, head_dim=64,
                               config={"tie_word_embeddings": True, "rope_theta": 100000.0}),
    "qwen2.5-0.5b": Checkpoint("qwen2.5-0.5b", "qwen2", "Qwen2ForCausalLM", 896, 24, 14, 4864, 32768, "BF16", False,
                               Layout("model."), True, (), kv_heads=2, head_dim=64,
                               config={"tie_word_embeddings": True, "rope_theta": 1000000.0}),
    "gemma3-270m": Checkpoint("gemma3-270m", "gemma3_text", "Gemma3ForCausalLM", 640, 18, 4, 2048, 32768, "BF16", False,
                              Layout("model."), True, (), kv_heads=1, head_dim=256,
                              config={"tie_word_embeddings": True, "sliding_window": 512, "sliding_window_pattern": 6,
                                      "query_pre_attn_scalar": 256}),
}
REAL_VOCAB = {"bert": 30522, "gpt2": 50257, "llama": 49152, "qwen2": 151936, "gemma3_text": 262144}


# The families whose real tokenizer is SentencePiece BPE (the others here are byte-level BPE).
SENTENCEPIECE = {"mistral": "llama", "gemma3_text": "gemma"}


def tokenizer_for(family, pad_to=None, kind=""):
    """(tokenizer, tokenizer.json dict, encode(text) -> ids); `kind` names a byte-level BPE other
    than the family's own (Llama 3's, in a llama checkpoint)."""
    kind = kind or {"qwen2": "qwen", "qwen3": "qwen"}.get(family, "")
    if kind in SPLIT_PATTERNS:
        tok = build_bpe(kind, pad_to)
        return tok, bpe_tokenizer_json(tok), lambda text: encode_bpe(text, tok)
    if family in SENTENCEPIECE:
        tok = build_sentencepiece(SENTENCEPIECE[family], pad_to)
        return tok, sentencepiece_tokenizer_json(tok), lambda text: encode_sentencepiece(text, tok)
    if family in ("bert", "distilbert"):
        vocab = build_wordpiece_vocab(pad_to)
        return vocab, wordpiece_tokenizer_json(vocab), lambda text: encode_wordpiece(text, vocab)
    tok = build_bpe(family, pad_to)
    return tok, bpe_tokenizer_json(tok), lambda text: encode_bpe(text, tok)


def token_strings(tok, ids):
    vocab = tok if isinstance(tok, dict) else tok.vocab
    names = {i: t for t, i in vocab.items()}
    return [names[i] for i in ids]


def write_checkpoint(ck, folder, pad_vocab_to=None):
    """config.json, tokenizer.json and model.safetensors; returns (config, tokenizer, encode,
    tensors)."""
    shutil.rmtree(folder, ignore_errors=True)  # no stale cases from an earlier run
    tok, tok_json, encode = tokenizer_for(ck.family, pad_vocab_to, ck.tokenizer)
    vocab_size = len(tok if isinstance(tok, dict) else tok.vocab)
    assert pad_vocab_to is None or vocab_size == pad_vocab_to
    positions = ck.tokens + (2 if ck.family == "roberta" else 0)
    dims = Dims(ck.d, ck.layers, ck.heads, ck.ff, vocab_size, positions, ck.kv_heads, ck.head_dim)
    config = config_json(ck.family, dims, ck.arch, tok, ck.recent, ck.dtype)
    config = dict(sorted({**config, **ck.config}.items()))
    config = {k: v for k, v in config.items() if v is not None or ck.config.get(k, 0) is not None}
    tensors = checkpoint_tensors(ck.name, ck.family, dims, ck.head, ck.layout, ck.dtype)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(config, indent=2) + "\n")
    for name, layout in (("tokenizer.json", tok_json), ("tokenizer.old.json", old_layout(tok_json))):
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(json.dumps(layout, indent=2, ensure_ascii=False) + "\n")
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    return config, tok, encode, tensors


def reference_weights(ck, tensors, dtype):
    """hf_models names -> the stored weights as `dtype`, read back through the file layout."""
    dims = Dims(ck.d, ck.layers, ck.heads, ck.ff, 0, 0, ck.kv_heads, ck.head_dim)  # only the names matter here
    names = {file_name(n, ck.layout): n for n in model_shapes(ck.family, dims, ck.head)}
    return {names[f]: make().to(dtype) for f, (_, _, make) in tensors.items() if f in names}


# Cases of SENTENCE run again with heads switched off, zero or mean (see hf_models.py), to check
# the engine's ablation against PyTorch's: the second head of the first layer and the last head of
# the last, so a later layer sees an ablated one's effect.
ABLATIONS = (("ablated-zero", "zero"), ("ablated-mean", "mean"))
ABLATION_CODES = {"zero": 1, "mean": 2}  # as ablation.u8 stores them; 0 = the head is on


def ablated_heads(ck, mode):
    return {(0, 1): mode, (ck.layers - 1, ck.heads - 1): mode}


def write_case(folder, text, ids, trace, vocab_size, ablation=None):
    os.makedirs(folder, exist_ok=True)
    L, H, n, _ = trace.attention.shape
    files = {"ids.i32": np.asarray(ids, dtype="<i4"),
             "attention.f32": trace.attention.numpy().astype("<f4"),
             "inputs.f32": trace.inputs.numpy().astype("<f4"),
             "hidden.f32": trace.hidden.numpy().astype("<f4")}
    if trace.logits is not None:
        files["logits.f32"] = trace.logits.numpy().astype("<f4")
    files["average.f32"] = attention_summaries.average_heads(trace.attention.numpy()).astype("<f4")
    files["rollout.f32"] = attention_summaries.rollout(trace.attention.numpy()).astype("<f4")
    if ablation:
        codes = np.zeros((L, H), dtype="u1")
        for (layer, head), mode in ablation.items():
            codes[layer, head] = ABLATION_CODES[mode]
        files["ablation.u8"] = codes
    lines = [f"text {text}", f"n_tokens {n}", f"n_layers {L}", f"n_heads {H}",
             f"d_model {trace.hidden.shape[1]}", f"vocab_size {vocab_size}"]
    for fname, arr in files.items():
        arr.tofile(os.path.join(folder, fname))
        lines.append(f"tensor {fname} " + " ".join(str(s) for s in arr.shape))
    with open(os.path.join(folder, "case.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


# Chat templates, written here in the layouts of the real ones (tokenizer_config.json's
# chat_template, bos_token and eos_token; generation_config.json's eos_token_id): qwen2's is
# ChatML with Qwen2.5's default system message, inserted when the messages start without one;
# llama3-scaled's and gemma3's start with the BOS text, as Llama 3's and Gemma 3's do, while their
# tokenizers add a BOS too: rendered text is tokenized without special tokens, or it would have two.
CHATML = ("{% if messages[0]['role'] != 'system' %}{{ '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. "
          "You are a helpful assistant.<|im_end|>\\n' }}{% endif %}{% for message in messages %}{{ '<|im_start|>' + "
          "message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}"
          "{{ '<|im_start|>assistant\\n' }}{% endif %}")
BOS_FIRST = ("{{ bos_token }}{% for message in messages %}{{ message['role'] + ': ' + message['content'] + '\\n' }}"
             "{% endfor %}{% if add_generation_prompt %}{{ 'assistant:' }}{% endif %}")
CHAT = {  # checkpoint: (chat_template, bos_token, eos_token, generation_config's eos tokens)
    "qwen2": (CHATML, None, "<|im_end|>", ["<|im_end|>", "<|endoftext|>"]),
    "llama3-scaled": (BOS_FIRST, "<|begin_of_text|>", "<|end_of_text|>", ["<|end_of_text|>"]),
    "gemma3": (BOS_FIRST, "<bos>", "<eos>", ["<eos>"]),
}


def write_chat_files(folder, name, tok_json):
    """tokenizer_config.json and generation_config.json of a CHAT checkpoint."""
    template, bos, eos, stops = CHAT[name]
    ids = {t["content"]: t["id"] for t in tok_json["added_tokens"]}
    files = {
        "tokenizer_config.json": {"bos_token": bos, "chat_template": template, "eos_token": eos, "model_max_length": 64,
                                  "tokenizer_class": "PreTrainedTokenizerFast"},
        "generation_config.json": {"eos_token_id": [ids[t] for t in stops], **({"bos_token_id": ids[bos]} if bos else {})},
    }
    for file, content in files.items():
        with open(os.path.join(folder, file), "w", encoding="utf-8") as f:
            f.write(json.dumps(content, indent=2) + "\n")
    return files["generation_config.json"]["eos_token_id"]


GREEDY_TOKENS = 32
CAUSAL_FAMILIES = ("gpt2", "llama", "mistral", "qwen2", "qwen3", "gpt_neox", "gemma3_text")


def write_greedy(path, config, w64, ids, dtype, eos):
    """greedy.json: `ids` and what the float64 reference writes after them, greedily, to an id of `eos`."""
    text, out, margin = list(ids), [], float("inf")
    for _ in range(GREEDY_TOKENS):
        logits = hf_models.forward(config, w64, text, None, dtype).logits[-1]
        top = torch.topk(logits, 2)
        margin = min(margin, float(top.values[0] - top.values[1]))
        out.append(int(top.indices[0]))
        text.append(out[-1])
        if out[-1] in eos:
            break
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"prompt": list(ids), "output": out, "smallestMargin": margin}) + "\n")
    return out, margin


def max_diff(a, b):
    return float((a.double() - b).abs().max())


def write_fixtures():
    for ck in CHECKPOINTS:
        folder = os.path.join(OUT_DIR, ck.name)
        config, tok, encode, tensors = write_checkpoint(ck, folder)
        header, data_start = read_safetensors_header(os.path.join(folder, "model.safetensors"))
        size = os.path.getsize(os.path.join(folder, "model.safetensors"))
        assert size == data_start + max(v["data_offsets"][1] for k, v in header.items() if k != "__metadata__")
        w64, w32 = reference_weights(ck, tensors, torch.float64), reference_weights(ck, tensors, torch.float32)
        print(f"{ck.name}: {ck.family} {ck.dtype}, {len(header) - 1} tensors, model.safetensors {size} bytes")
        cases = [(case, text, None) for case, text in ck.cases]
        cases += [(case, SENTENCE[1], ablated_heads(ck, mode)) for case, mode in ABLATIONS]
        for case, text, ablation in cases:
            ids = encode(text)
            t64, t32 = (hf_models.forward(config, w, ids, ablation, STORAGE[ck.dtype]) for w in (w64, w32))
            write_case(os.path.join(folder, "cases", case), text, ids, t64, config["vocab_size"], ablation)
            print(f"  {case}: {len(ids)} tokens {' '.join(token_strings(tok, ids))}")
            line = (f"    float32 vs float64: attention {max_diff(t32.attention, t64.attention):.1e}, "
                    f"inputs {max_diff(t32.inputs, t64.inputs):.1e}, hidden {max_diff(t32.hidden, t64.hidden):.1e}")
            if t64.logits is not None:
                line += (f", logits {max_diff(t32.logits, t64.logits):.1e} "
                         f"(max |logit| {float(t64.logits.abs().max()):.1f})")
            print(line + f"; max attention weight {float(t64.attention.max()):.2f}")
        eos = [config["eos_token_id"]] if isinstance(config.get("eos_token_id"), int) else config.get("eos_token_id") or []
        if ck.name in CHAT:
            with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
                eos = write_chat_files(folder, ck.name, json.load(f))
        if t64.logits is not None and ck.family in CAUSAL_FAMILIES:
            out, margin = write_greedy(os.path.join(folder, "greedy.json"), config, w64, encode(SENTENCE[1]), STORAGE[ck.dtype], eos)
            print(f"  greedy: {len(out)} tokens written, smallest margin between the first two logits {margin:.1e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", choices=sorted(REAL_SIZES), help="write one real-size random checkpoint")
    parser.add_argument("--out", help="folder for --size (default build/checkpoints/<size>/)")
    args = parser.parse_args()
    if args.size is None:
        write_fixtures()
        return
    ck = REAL_SIZES[args.size]
    folder = args.out or os.path.join(ROOT, "build", "checkpoints", args.size)
    write_checkpoint(ck, folder, pad_vocab_to=REAL_VOCAB[ck.family])
    size = os.path.getsize(os.path.join(folder, "model.safetensors"))
    print(f"wrote {folder}: model.safetensors {size / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
