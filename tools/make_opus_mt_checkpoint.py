"""Write a random checkpoint shaped as Helsinki-NLP/opus-mt-en-de, for the bench.

    /usr/bin/python3 tools/make_opus_mt_checkpoint.py [--out DIR]

It writes build/checkpoints/opus-mt-en-de/ (or DIR): config.json as the real repository's (d_model
512, 6 + 6 layers of 8 heads, feed-forward 2048, 58101 ids, the pad 58100 the decoder's start),
model.safetensors (random F32 weights, MarianMTModel's names, as tools/make_seq2seq_checkpoints.py
writes the marian fixture; 74 M parameters, 416 MB: the embeddings under each of the fixture's
names and its lm_head copy, where the real file keeps one, 298 MB), and the tokenizer files the real repository
has: the marian fixture's source.spm and target.spm, with a vocab.json padded to the 58101 ids
(the fixture's pieces, then unused filler pieces, then <pad> last). tools/export_seq2seq_onnx.py then
writes its ONNX graphs beside them (tools/bench/seq2seq.js runs both). Random weights: its
translations mean nothing; its sizes are what the bench measures. Never committed.
"""
import argparse
import json
import os
import shutil
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_seq2seq_checkpoints as fixtures  # noqa: E402
import seq2seq_models  # noqa: E402
from make_checkpoints import write_safetensors  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "seq2seq", "marian")
VOCAB = 58101
SIZES = {"d_model": 512, "encoder_layers": 6, "decoder_layers": 6, "num_hidden_layers": 6, "encoder_attention_heads": 8,
         "decoder_attention_heads": 8, "encoder_ffn_dim": 2048, "decoder_ffn_dim": 2048, "max_position_embeddings": 512,
         "vocab_size": VOCAB, "decoder_vocab_size": VOCAB, "pad_token_id": VOCAB - 1, "decoder_start_token_id": VOCAB - 1,
         "bad_words_ids": [[VOCAB - 1]]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "checkpoints", "opus-mt-en-de"))
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(FIXTURE, "config.json"), encoding="utf-8") as f:
        config = {**json.load(f), **SIZES}
    with open(os.path.join(out, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2, sort_keys=True)
    for name in ("source.spm", "target.spm", "tokenizer_config.json"):
        shutil.copyfile(os.path.join(FIXTURE, name), os.path.join(out, name))
    with open(os.path.join(FIXTURE, "vocab.json"), encoding="utf-8") as f:
        pieces = [piece for piece, _ in sorted(json.load(f).items(), key=lambda item: item[1]) if piece != "<pad>"]
    pieces += [f"\u2581filler{i}" for i in range(VOCAB - 1 - len(pieces))] + ["<pad>"]
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump({piece: i for i, piece in enumerate(pieces)}, f, ensure_ascii=False, indent=2)
    marian = next(ck for ck in fixtures.CHECKPOINTS if ck.name == "marian")
    weights = seq2seq_models.random_bart(config, seed=fixtures.SEED, dtype=torch.float32)
    write_safetensors(os.path.join(out, "model.safetensors"), fixtures.file_tensors(marian, config, weights))
    print(f"wrote {out}: {sum(t.numel() for t in weights.values()) / 1e6:.1f} M parameters")


if __name__ == "__main__":
    main()
