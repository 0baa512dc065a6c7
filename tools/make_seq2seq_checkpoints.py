"""Write small random encoder-decoder checkpoints (T5, Flan-T5, BART, Marian) in the real Hub
layouts, with float64 references from tools/seq2seq_models.py.

    /usr/bin/python3 tools/make_seq2seq_checkpoints.py

It writes tests/fixtures/seq2seq/<name>/ for each checkpoint of CHECKPOINTS: config.json (the
architecture's own fields, as the real repository's config.json has them), model.safetensors
(random weights stored F32 or F16, under the names, prefixes, duplicate embeddings and stray
tensors of real files) and greedy.json, plus cases/<case>/ with the reference of the weights AS
STORED (after rounding), raw little-endian row-major float32 or int32, no header:

    source.i32 (ns), target.i32 (nt): the encoder's and the decoder's input ids (start first);
    encoder_attention.f32 (L, H, ns, ns), encoder_inputs.f32 (L, ns, d), encoder_hidden.f32 (ns, d);
    decoder_attention.f32 (Ld, H, nt, nt), cross_attention.f32 (Ld, H, nt, ns),
    decoder_inputs.f32 (Ld, nt, d), cross_inputs.f32 (Ld, nt, d), decoder_hidden.f32 (nt, d),
    logits.f32 (nt, V); and, for the ablated case, ablation.u8 (L + 2·Ld, H): the encoder's
    layers, the decoder's, then the cross-attention's, 0 for a head left on, 1 zeroed, 2 its mean.

case.txt lists the sizes. greedy.json holds a source, the start ids, the banned ids (Marian's pad)
and the GREEDY_TOKENS ids the float64 reference writes greedily after the start (no stop at </s>),
with the smallest margin between the first and second logit it saw. t5-buckets.json holds the
bucket of every key - query offset within ±1100 as Hugging Face's function computes it. Fixed seeds: two runs write
byte-identical files. It prints how far a float32 forward lands from float64.

The tokenizers of these folders are not written here yet: the ids are drawn at random.
"""
import json
import os
import shutil
import sys
from typing import NamedTuple

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seq2seq_models  # noqa: E402
from make_checkpoints import STORAGE, write_safetensors  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "seq2seq")
SEED = 45
GREEDY_TOKENS = 32
BUCKET_RANGE = 1100  # past ±1000, the farthest offset the T5 bucket check names
VOCAB = 96

T5_TASKS = {"translation_en_to_de": {"early_stopping": True, "max_length": 300, "num_beams": 4,
                                     "prefix": "translate English to German: "}}


class Checkpoint(NamedTuple):
    name: str
    what: str
    config: dict
    dtype: str
    prefix: str           # before every body name in the file ("model." for BART and Marian)
    embeddings: tuple     # the names the shared embeddings are stored under (the first is read)
    extra: tuple = ()     # tensors real files carry that the engine must skip: (name, shape)
    start: tuple = (0,)   # the decoder's start ids
    banned: tuple = ()    # ids never written (Marian's pad)


CHECKPOINTS = [
    Checkpoint("t5-small", "google-t5/t5-small: ReLU, tied head scaled by d_model^-0.5, the stray cross-attention bias",
               {"architectures": ["T5ForConditionalGeneration"], "d_ff": 64, "d_kv": 8, "d_model": 32,
                "decoder_start_token_id": 0, "dropout_rate": 0.1, "eos_token_id": 1, "initializer_factor": 1.0,
                "is_encoder_decoder": True, "layer_norm_epsilon": 1e-06, "model_type": "t5", "n_positions": 64,
                "num_heads": 4, "num_layers": 2, "num_decoder_layers": 3, "output_past": True, "pad_token_id": 0,
                "relative_attention_num_buckets": 32, "task_specific_params": T5_TASKS, "vocab_size": VOCAB},
               "F32", "", ("shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight"),
               extra=(("decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight", (32, 4)),)),
    Checkpoint("flan-t5", "google/flan-t5-small: gated-GELU (wi_0, wi_1), an untied lm_head, 3 heads of 8 on d_model 32",
               {"architectures": ["T5ForConditionalGeneration"], "d_ff": 48, "d_kv": 8, "d_model": 32,
                "decoder_start_token_id": 0, "dense_act_fn": "gelu_new", "dropout_rate": 0.1, "eos_token_id": 1,
                "feed_forward_proj": "gated-gelu", "initializer_factor": 1.0, "is_encoder_decoder": True,
                "is_gated_act": True, "layer_norm_epsilon": 1e-06, "model_type": "t5", "n_positions": 64, "num_decoder_layers": 2,
                "num_heads": 3, "num_layers": 2, "output_past": True, "pad_token_id": 0, "relative_attention_max_distance": 128,
                "relative_attention_num_buckets": 32, "task_specific_params": T5_TASKS, "tie_word_embeddings": False,
                "torch_dtype": "float32", "transformers_version": "4.23.1", "use_cache": True, "vocab_size": VOCAB},
               "F16", "", ("decoder.embed_tokens.weight",)),
    Checkpoint("bart", "facebook/bart-base (BartModel): learned positions at +2, layernorm_embedding, no final_logits_bias",
               {"activation_dropout": 0.1, "activation_function": "gelu", "add_bias_logits": False, "add_final_layer_norm": False,
                "architectures": ["BartModel"], "attention_dropout": 0.1, "bos_token_id": 0, "classif_dropout": 0.1,
                "classifier_dropout": 0.0, "d_model": 32, "decoder_attention_heads": 4, "decoder_ffn_dim": 64,
                "decoder_layerdrop": 0.0, "decoder_layers": 2, "decoder_start_token_id": 2, "dropout": 0.1,
                "early_stopping": True, "encoder_attention_heads": 4, "encoder_ffn_dim": 64, "encoder_layerdrop": 0.0,
                "encoder_layers": 2, "eos_token_id": 2, "forced_bos_token_id": 0, "forced_eos_token_id": 2, "gradient_checkpointing": False,
                "init_std": 0.02, "is_encoder_decoder": True, "max_position_embeddings": 64, "model_type": "bart",
                "no_repeat_ngram_size": 3, "normalize_before": False, "normalize_embedding": True, "num_beams": 4,
                "num_hidden_layers": 2, "pad_token_id": 1, "scale_embedding": False, "transformers_version": "4.12.0.dev0",
                "use_cache": True, "vocab_size": VOCAB},
               "F32", "", ("shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight"), start=(2, 0)),
    Checkpoint("marian", "Helsinki-NLP/opus-mt-en-de (MarianMTModel): sinusoidal positions, scaled embeddings, swish, final_logits_bias",
               {"activation_dropout": 0.0, "activation_function": "swish", "add_bias_logits": False, "add_final_layer_norm": False,
                "architectures": ["MarianMTModel"], "attention_dropout": 0.0, "bad_words_ids": [[VOCAB - 1]], "bos_token_id": 0,
                "classif_dropout": 0.0, "d_model": 32, "decoder_attention_heads": 4, "decoder_ffn_dim": 64, "decoder_layerdrop": 0.0,
                "decoder_layers": 3, "decoder_start_token_id": VOCAB - 1, "decoder_vocab_size": VOCAB, "dropout": 0.1,
                "encoder_attention_heads": 4, "encoder_ffn_dim": 64, "encoder_layerdrop": 0.0, "encoder_layers": 2,
                "eos_token_id": 0, "forced_eos_token_id": 0, "init_std": 0.02, "is_encoder_decoder": True, "max_length": 512,
                "max_position_embeddings": 64, "model_type": "marian", "normalize_before": False, "normalize_embedding": False,
                "num_beams": 4, "num_hidden_layers": 2, "pad_token_id": VOCAB - 1, "scale_embedding": True,
                "share_encoder_decoder_embeddings": True, "static_position_embeddings": True, "transformers_version": "4.22.0.dev0",
                "use_cache": True, "vocab_size": VOCAB},
               "F32", "model.", ("shared.weight",),
               extra=(("model.encoder.embed_positions.weight", (64, 32)), ("lm_head.weight", (VOCAB, 32))),
               start=(VOCAB - 1,), banned=(VOCAB - 1,)),
]


def random_weights(config, seed):
    make = seq2seq_models.random_t5 if config["model_type"] == "t5" else seq2seq_models.random_bart
    w = make(config, seed)
    if config["model_type"] == "bart":
        del w["final_logits_bias"]  # BartModel's files have none: zeros
    return w


def file_tensors(ck, weights):
    """File name -> (shape, dtype, make): the weights under their file names, the embeddings under
    each of ck.embeddings, and ck.extra as random tensors."""
    dtype = STORAGE[ck.dtype]
    tensors = {}
    for name, t in weights.items():
        if name == "shared.weight":
            for alias in ck.embeddings:
                tensors[ck.prefix + alias] = (tuple(t.shape), dtype, lambda t=t: t.to(dtype))
            continue
        file_name = name if name in ("final_logits_bias", "lm_head.weight") else ck.prefix + name
        tensors[file_name] = (tuple(t.shape), dtype, lambda t=t: t.to(dtype))
    g = torch.Generator().manual_seed(SEED + 1)
    for name, shape in ck.extra:
        tensors[name] = (shape, dtype, lambda shape=shape: torch.randn(*shape, generator=g).to(dtype))
    return tensors


def stored(weights, ck, dtype):
    """The weights as the file stores them, as `dtype`: what the engine reads."""
    return {k: v.to(STORAGE[ck.dtype]).to(dtype) for k, v in weights.items()}


def layers(config):
    if config["model_type"] == "t5":
        return config["num_layers"], config.get("num_decoder_layers", config["num_layers"]), config["num_heads"]
    return config["encoder_layers"], config["decoder_layers"], config["encoder_attention_heads"]


def write_case(folder, source, target, enc, dec, vocab_size, ablation=None, heads=None):
    os.makedirs(folder, exist_ok=True)
    f32 = lambda t: t.numpy().astype("<f4")
    files = {"source.i32": np.asarray(source, dtype="<i4"), "target.i32": np.asarray(target, dtype="<i4"),
             "encoder_attention.f32": f32(enc.attention), "encoder_inputs.f32": f32(enc.inputs),
             "encoder_hidden.f32": f32(enc.hidden), "decoder_attention.f32": f32(dec.attention),
             "cross_attention.f32": f32(dec.cross_attention), "decoder_inputs.f32": f32(dec.inputs),
             "cross_inputs.f32": f32(dec.cross_inputs), "decoder_hidden.f32": f32(dec.hidden), "logits.f32": f32(dec.logits)}
    if ablation:
        L, Ld, H = heads
        codes = np.zeros((L + 2 * Ld, H), dtype="u1")
        first = {"encoder": 0, "decoder": L, "cross": L + Ld}
        for (stack, layer, head), mode in ablation.items():
            codes[first[stack] + layer, head] = {"zero": 1, "mean": 2}[mode]
        files["ablation.u8"] = codes
    lines = [f"n_source {len(source)}", f"n_target {len(target)}", f"vocab_size {vocab_size}"]
    for name, arr in files.items():
        arr.tofile(os.path.join(folder, name))
        lines.append(f"tensor {name} " + " ".join(str(s) for s in arr.shape))
    with open(os.path.join(folder, "case.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def largest_difference(a, b):
    return max(float((x.double() - y.double()).abs().max()) for x, y in zip(a, b))


def write_checkpoint(ck, index):
    folder = os.path.join(OUT_DIR, ck.name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    config = ck.config
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(config, indent=2, sort_keys=True) + "\n")
    weights = random_weights(config, SEED + index)
    write_safetensors(os.path.join(folder, "model.safetensors"), file_tensors(ck, weights))
    w64, w32 = stored(weights, ck, torch.float64), stored(weights, ck, torch.float32)
    L, Ld, H = layers(config)
    rng = np.random.default_rng(SEED + index)
    draw = lambda n: [int(i) for i in rng.integers(3, VOCAB - 1, n)]
    eos = config["eos_token_id"]
    cases = {"sentence": (draw(11) + [eos], list(ck.start) + draw(6)),
             "long": (draw(47) + [eos], list(ck.start) + draw(20))}  # past T5's exact buckets, into the logarithmic ones
    worst = 0.0
    for case, (source, target) in cases.items():
        enc = seq2seq_models.encode(config, w64, source)
        dec = seq2seq_models.decode(config, w64, target, enc.hidden)
        write_case(os.path.join(folder, "cases", case), source, target, enc, dec, VOCAB)
        enc32 = seq2seq_models.encode(config, w32, source)
        dec32 = seq2seq_models.decode(config, w32, target, enc32.hidden)
        worst = max(worst, largest_difference(enc32 + dec32, enc + dec))
    source, target = cases["sentence"]
    ablation = {("encoder", L - 1, 0): "mean", ("decoder", 0, 1): "mean", ("cross", Ld - 1, H - 1): "mean", ("cross", 0, 0): "zero"}
    enc = seq2seq_models.encode(config, w64, source, ablation)
    dec = seq2seq_models.decode(config, w64, target, enc.hidden, ablation)
    write_case(os.path.join(folder, "cases", "ablated"), source, target, enc, dec, VOCAB, ablation, (L, Ld, H))
    ids, margin = seq2seq_models.greedy(config, w64, source, ck.start, GREEDY_TOKENS, ck.banned)
    with open(os.path.join(folder, "greedy.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps({"source": source, "start": list(ck.start), "banned": list(ck.banned), "ids": ids,
                            "margin": round(margin, 6)}, indent=2) + "\n")
    size = os.path.getsize(os.path.join(folder, "model.safetensors"))
    print(f"{ck.name:10s} {size:8d} B  float32 vs float64 {worst:.2e}  greedy margin {margin:.4f}  ids {ids[:8]}...")


def write_buckets():
    """t5-buckets.json: the bucket Hugging Face's function gives every key - query offset from
    -BUCKET_RANGE to BUCKET_RANGE, bidirectional and causal, for T5's 32 buckets and distance 128."""
    offsets = torch.arange(-BUCKET_RANGE, BUCKET_RANGE + 1)
    table = {"num_buckets": 32, "max_distance": 128, "first_offset": -BUCKET_RANGE}
    for name, bidirectional in (("bidirectional", True), ("causal", False)):
        table[name] = seq2seq_models.relative_position_bucket(offsets, bidirectional, 32, 128).tolist()
    with open(os.path.join(OUT_DIR, "t5-buckets.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(table) + "\n")


def main():
    for i, ck in enumerate(CHECKPOINTS):
        write_checkpoint(ck, i)
    write_buckets()


if __name__ == "__main__":
    main()
