"""Write small random encoder-decoder checkpoints (T5, Flan-T5, BART, Marian) in the real Hub
layouts, with their tokenizer files and float64 references from tools/seq2seq_models.py.

    /usr/bin/python3 tools/make_seq2seq_checkpoints.py

It writes tests/fixtures/seq2seq/<name>/ for each checkpoint of CHECKPOINTS: config.json (the
architecture's own fields, as the real repository's config.json has them), the tokenizer files of
the real repository (TOKENIZERS), model.safetensors (random weights stored F32 or F16, under the
names, prefixes, duplicate embeddings and stray tensors of real files) and greedy.json, plus
cases/<case>/ with the reference of the weights AS STORED (after rounding), raw little-endian
row-major float32 or int32, no header:

    source.i32 (ns), target.i32 (nt): the encoder's and the decoder's input ids (start first);
    encoder_attention.f32 (L, H, ns, ns), encoder_inputs.f32 (L, ns, d), encoder_hidden.f32 (ns, d);
    decoder_attention.f32 (Ld, H, nt, nt), cross_attention.f32 (Ld, H, nt, ns),
    decoder_inputs.f32 (Ld, nt, d), cross_inputs.f32 (Ld, nt, d), decoder_hidden.f32 (nt, d),
    logits.f32 (nt, V); and, for the ablated case, ablation.u8 (L + 2·Ld, H): the encoder's
    layers, the decoder's, then the cross-attention's, 0 for a head left on, 1 zeroed, 2 its mean.

The ids come from text (CASES): the source is the text with the tokenizer's special tokens, the
target the decoder's input as Hugging Face makes it from a target text for training: its labels
(the text with the special tokens) shifted right behind config.json's decoder_start_token_id.
case.txt holds the texts (source_text, target_text) and the sizes. greedy.json holds the sentence
case's source, the start ids, the banned ids (Marian's pad) and the GREEDY_TOKENS ids the float64
reference writes greedily after the start (no stop at </s>), with the smallest margin between the
first and second logit it saw. t5-buckets.json holds the bucket of every key - query offset within
±1100 as Hugging Face's function computes it. Fixed seeds (the SentencePiece trainer's too, on one
thread): two runs write byte-identical files. It prints how far a float32 forward lands from float64.

What it deliberately does not do: no tokenizer of its own. T5's and Marian's ids are the
`sentencepiece` package's, BART's make_checkpoints.py's byte-level BPE (the roberta fixture's);
tokenizer.json is not read back here (a check with @huggingface/tokenizers is a Node matter).
"""
import json
import os
import shutil
import sys
from typing import Callable, NamedTuple

import numpy as np
import sentencepiece
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seq2seq_models  # noqa: E402
import sentencepiece_files  # noqa: E402
from make_checkpoints import CORPUS, STORAGE, tokenizer_for, write_safetensors  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "seq2seq")
SEED = 45
GREEDY_TOKENS = 32
BUCKET_RANGE = 1100  # past ±1000, the farthest offset the T5 bucket check names

T5_TASKS = {"translation_en_to_de": {"early_stopping": True, "max_length": 300, "num_beams": 4,
                                     "prefix": "translate English to German: "}}

# ---------------------------------------------------------------------------------------------
# Text. The English is make_checkpoints.py's CORPUS; GERMAN, written for these fixtures, is what
# Marian's target.spm is trained on (umlauts and ß among its characters).
# ---------------------------------------------------------------------------------------------
GERMAN = """
Der alte Mann wohnte mit seiner Katze und zwei Hunden am Fluss. Jeden Morgen ging er zum Wasser
und sah den Vögeln zu, die über die Bäume flogen. Die Kinder aus dem Dorf gingen zur Schule, und
sie winkten ihm zu, wenn sie vorbeikamen. Er winkte langsam zurück, weil seine Arme müde waren,
aber er lächelte immer. Die Katze saß auf der Matte neben der Tür und schaute auf die Straße.
Als der Regen kam, liefen die Hunde ins Haus und schliefen am Feuer. Der Mann kochte Tee und las
seine alten Bücher, und das Haus war warm und still. Am Abend ging die Sonne hinter den Hügeln
unter, und der Himmel wurde rot und golden. Die Vögel kamen zu ihren Nestern zurück, und der Fluss
war ruhig.
Hallo, sagte das Mädchen, das im nächsten Haus wohnte. Sie brachte Brot und Milch für die Katze.
Der Mann dankte ihr, und sie sprachen über das Wetter, über die Fische im Fluss und über das kleine
Boot, das an der Brücke festgebunden war. Morgen können wir mit dem Boot hinausfahren und Fische
suchen, sagte er. Das Mädchen lachte und sagte, dass sie nicht schwimmen könne, aber sie würde im
Boot sitzen und zuschauen. Sie gingen zusammen zur Brücke und sahen auf das Wasser. Die Welt war
grün und hell nach dem Regen. Ein kleiner Vogel landete auf dem Geländer und sang ein kurzes Lied.
Heute ist ein guter Tag, sagte er, und morgen wird auch ein guter Tag sein. Die Kinder sangen, als
sie nach Hause gingen, und ihre Stimmen trugen über das Wasser bis zu den Bäumen am anderen Ufer.
"""

# case: (English source, German target). The sentence is make_checkpoints.py's; it goes to T5
# behind its translation prefix, as T5's task_specific_params say. The long case (past T5's exact
# buckets, into the logarithmic ones) goes bare: the prefix's 22 pieces would take it past the 64
# positions of these configs' n_positions.
CASES = {
    "sentence": ("The children were walking slowly to the old river.", "Die Kinder gingen langsam zum alten Fluss."),
    "long": ("Every morning the old man walked to the river and watched the birds fly over the trees. "
             "The children from the village waved to him as they passed.",
             "Jeden Morgen ging der alte Mann zum Fluss."),
}
TASK = "translation_en_to_de"
LONG_SOURCE = 40  # the long case's fewest source tokens


def sentences(text):
    return [line.strip() for line in text.split("\n") if line.strip()]


# ---------------------------------------------------------------------------------------------
# Tokenizers: the files each real repository has, and the ids they give.
# ---------------------------------------------------------------------------------------------
class Tokenizer(NamedTuple):
    files: dict         # file name -> bytes (a SentencePiece model) or a dict (written as JSON)
    size: int           # it gives ids 0 .. size - 1
    encode: Callable    # source text -> ids, with the special tokens (the closing one last)
    labels: Callable    # target text -> the decoder's labels (transformers' text_target), </s> last


def t5_tokenizer():
    """T5's spiece.model (a unigram model with pad 0, </s> 1, <unk> 2 and no <s>, trained on CORPUS)
    and the tokenizer.json transformers' converter makes of it, with 3 sentinels where T5 has 100."""
    extra_ids = 3
    model = sentencepiece_files.train_unigram(sentences(CORPUS), 192, unk_id=2, bos_id=-1, eos_id=1, pad_id=0, seed=SEED)
    tok_json = sentencepiece_files.t5_tokenizer_json(sentencepiece_files.read_model(model), extra_ids)
    sentinels = [f"<extra_id_{i}>" for i in range(extra_ids)]
    config = {"additional_special_tokens": sentinels, "eos_token": "</s>", "extra_ids": extra_ids, "model_max_length": 512,
              "pad_token": "<pad>", "tokenizer_class": "T5Tokenizer", "unk_token": "<unk>"}
    sp = sentencepiece.SentencePieceProcessor(model_proto=model)
    encode = lambda text: sp.encode(text) + [sp.eos_id()]
    return Tokenizer({"spiece.model": model, "tokenizer.json": tok_json, "tokenizer_config.json": config},
                     len(tok_json["model"]["vocab"]), encode, encode)


def bart_tokenizer():
    """bart-base's tokenizer.json is roberta-base's: make_checkpoints.py's roberta fixture's."""
    tok, tok_json, encode = tokenizer_for("roberta")
    config = {"add_prefix_space": False, "bos_token": "<s>", "cls_token": "<s>", "eos_token": "</s>", "errors": "replace",
              "mask_token": "<mask>", "model_max_length": 1024, "pad_token": "<pad>", "sep_token": "</s>",
              "tokenizer_class": "BartTokenizer", "trim_offsets": True, "unk_token": "<unk>"}
    return Tokenizer({"tokenizer.json": tok_json, "tokenizer_config.json": config}, len(tok.vocab), encode, encode)


def marian_tokenizer():
    """opus-mt-en-de's files: source.spm (English, CORPUS) and target.spm (German, GERMAN), each a
    unigram model with spm_train's default specials (<unk> 0, <s> 1, </s> 2, no pad), as OPUS-MT
    trains them; vocab.json over both, whose ids the text is mapped through (a piece it lacks is
    <unk>), </s> closing; no tokenizer.json, as those repositories have none."""
    specials = {"unk_id": 0, "bos_id": 1, "eos_id": 2, "pad_id": -1, "seed": SEED}
    source = sentencepiece_files.train_unigram(sentences(CORPUS), 150, **specials)
    target = sentencepiece_files.train_unigram(sentences(GERMAN), 150, **specials)
    vocab = sentencepiece_files.marian_vocab(sentencepiece_files.read_model(source), sentencepiece_files.read_model(target))
    config = {"eos_token": "</s>", "model_max_length": 512, "pad_token": "<pad>", "separate_vocabs": False,
              "source_lang": "en", "sp_model_kwargs": {}, "target_lang": "de", "unk_token": "<unk>"}

    def through_vocab(model):
        sp = sentencepiece.SentencePieceProcessor(model_proto=model)
        return lambda text: [vocab.get(piece, vocab["<unk>"]) for piece in sp.encode(text, out_type=str)] + [vocab["</s>"]]
    return Tokenizer({"source.spm": source, "target.spm": target, "vocab.json": vocab, "tokenizer_config.json": config},
                     len(vocab), through_vocab(source), through_vocab(target))


TOKENIZERS = {"t5": t5_tokenizer, "bart": bart_tokenizer, "marian": marian_tokenizer}


def vocab_fields(model_type, size):
    """config.json's fields that follow from the tokenizer's size: T5 pads its embeddings to a
    multiple of 32 (32100 ids in 32128 rows; the rows past the tokenizer are never its ids); Marian's
    pad is its last id, and its decoder's start, and never written."""
    if model_type == "t5":
        return {"vocab_size": -(-size // 32) * 32}
    if model_type == "marian":
        pad = size - 1
        return {"vocab_size": size, "decoder_vocab_size": size, "pad_token_id": pad, "decoder_start_token_id": pad,
                "bad_words_ids": [[pad]]}
    return {"vocab_size": size}


def start_ids(config):
    """The decoder's start: decoder_start_token_id, and BART's forced_bos_token_id after it."""
    forced = config.get("forced_bos_token_id")
    return [config["decoder_start_token_id"]] + ([forced] if forced is not None else [])


def banned_ids(config):
    return [words[0] for words in config.get("bad_words_ids", [])]


class Checkpoint(NamedTuple):
    name: str
    what: str
    tokenizer: str        # a key of TOKENIZERS
    config: dict          # without the fields vocab_fields sets
    dtype: str
    prefix: str           # before every body name in the file ("model." for BART and Marian)
    embeddings: tuple     # the names the shared embeddings are stored under (the first is read)
    extra: tuple = ()     # tensors real files carry that the engine must skip: (name, shape as config.json's fields)


CHECKPOINTS = [
    Checkpoint("t5-small", "google-t5/t5-small: ReLU, tied head scaled by d_model^-0.5, the stray cross-attention bias", "t5",
               {"architectures": ["T5ForConditionalGeneration"], "d_ff": 64, "d_kv": 8, "d_model": 32,
                "decoder_start_token_id": 0, "dropout_rate": 0.1, "eos_token_id": 1, "initializer_factor": 1.0,
                "is_encoder_decoder": True, "layer_norm_epsilon": 1e-06, "model_type": "t5", "n_positions": 64,
                "num_heads": 4, "num_layers": 2, "num_decoder_layers": 3, "output_past": True, "pad_token_id": 0,
                "relative_attention_num_buckets": 32, "task_specific_params": T5_TASKS},
               "F32", "", ("shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight"),
               extra=(("decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight", ("relative_attention_num_buckets", "num_heads")),)),
    Checkpoint("flan-t5", "google/flan-t5-small: gated-GELU (wi_0, wi_1), an untied lm_head, 3 heads of 8 on d_model 32", "t5",
               {"architectures": ["T5ForConditionalGeneration"], "d_ff": 48, "d_kv": 8, "d_model": 32,
                "decoder_start_token_id": 0, "dense_act_fn": "gelu_new", "dropout_rate": 0.1, "eos_token_id": 1,
                "feed_forward_proj": "gated-gelu", "initializer_factor": 1.0, "is_encoder_decoder": True,
                "is_gated_act": True, "layer_norm_epsilon": 1e-06, "model_type": "t5", "n_positions": 64, "num_decoder_layers": 2,
                "num_heads": 3, "num_layers": 2, "output_past": True, "pad_token_id": 0, "relative_attention_max_distance": 128,
                "relative_attention_num_buckets": 32, "task_specific_params": T5_TASKS, "tie_word_embeddings": False,
                "torch_dtype": "float32", "transformers_version": "4.23.1", "use_cache": True},
               "F16", "", ("decoder.embed_tokens.weight",)),
    Checkpoint("bart", "facebook/bart-base (BartModel): learned positions at +2, layernorm_embedding, no final_logits_bias", "bart",
               {"activation_dropout": 0.1, "activation_function": "gelu", "add_bias_logits": False, "add_final_layer_norm": False,
                "architectures": ["BartModel"], "attention_dropout": 0.1, "bos_token_id": 0, "classif_dropout": 0.1,
                "classifier_dropout": 0.0, "d_model": 32, "decoder_attention_heads": 4, "decoder_ffn_dim": 64,
                "decoder_layerdrop": 0.0, "decoder_layers": 2, "decoder_start_token_id": 2, "dropout": 0.1,
                "early_stopping": True, "encoder_attention_heads": 4, "encoder_ffn_dim": 64, "encoder_layerdrop": 0.0,
                "encoder_layers": 2, "eos_token_id": 2, "forced_bos_token_id": 0, "forced_eos_token_id": 2, "gradient_checkpointing": False,
                "init_std": 0.02, "is_encoder_decoder": True, "max_position_embeddings": 64, "model_type": "bart",
                "no_repeat_ngram_size": 3, "normalize_before": False, "normalize_embedding": True, "num_beams": 4,
                "num_hidden_layers": 2, "pad_token_id": 1, "scale_embedding": False, "transformers_version": "4.12.0.dev0",
                "use_cache": True},
               "F32", "", ("shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight")),
    Checkpoint("marian", "Helsinki-NLP/opus-mt-en-de (MarianMTModel): sinusoidal positions, scaled embeddings, swish, final_logits_bias", "marian",
               {"activation_dropout": 0.0, "activation_function": "swish", "add_bias_logits": False, "add_final_layer_norm": False,
                "architectures": ["MarianMTModel"], "attention_dropout": 0.0, "bos_token_id": 0,
                "classif_dropout": 0.0, "d_model": 32, "decoder_attention_heads": 4, "decoder_ffn_dim": 64, "decoder_layerdrop": 0.0,
                "decoder_layers": 3, "dropout": 0.1,
                "encoder_attention_heads": 4, "encoder_ffn_dim": 64, "encoder_layerdrop": 0.0, "encoder_layers": 2,
                "eos_token_id": 0, "forced_eos_token_id": 0, "init_std": 0.02, "is_encoder_decoder": True, "max_length": 512,
                "max_position_embeddings": 64, "model_type": "marian", "normalize_before": False, "normalize_embedding": False,
                "num_beams": 4, "num_hidden_layers": 2, "scale_embedding": True,
                "share_encoder_decoder_embeddings": True, "static_position_embeddings": True, "transformers_version": "4.22.0.dev0",
                "use_cache": True},
               "F32", "model.", ("shared.weight",),
               extra=(("model.encoder.embed_positions.weight", ("max_position_embeddings", "d_model")),
                      ("lm_head.weight", ("vocab_size", "d_model")))),
]


def random_weights(config, seed):
    make = seq2seq_models.random_t5 if config["model_type"] == "t5" else seq2seq_models.random_bart
    w = make(config, seed)
    if config["model_type"] == "bart":
        del w["final_logits_bias"]  # BartModel's files have none: zeros
    return w


def file_tensors(ck, config, weights):
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
    for name, fields in ck.extra:
        shape = tuple(config[f] for f in fields)
        tensors[name] = (shape, dtype, lambda shape=shape: torch.randn(*shape, generator=g).to(dtype))
    return tensors


def stored(weights, ck, dtype):
    """The weights as the file stores them, as `dtype`: what the engine reads."""
    return {k: v.to(STORAGE[ck.dtype]).to(dtype) for k, v in weights.items()}


def layers(config):
    if config["model_type"] == "t5":
        return config["num_layers"], config.get("num_decoder_layers", config["num_layers"]), config["num_heads"]
    return config["encoder_layers"], config["decoder_layers"], config["encoder_attention_heads"]


def write_case(folder, texts, source, target, enc, dec, vocab_size, ablation=None, heads=None):
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
    source_text, target_text = texts
    lines = [f"source_text {source_text}", f"target_text {target_text}",
             f"n_source {len(source)}", f"n_target {len(target)}", f"vocab_size {vocab_size}"]
    for name, arr in files.items():
        arr.tofile(os.path.join(folder, name))
        lines.append(f"tensor {name} " + " ".join(str(s) for s in arr.shape))
    with open(os.path.join(folder, "case.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def largest_difference(a, b):
    return max(float((x.double() - y.double()).abs().max()) for x, y in zip(a, b))


def write_file(path, content, sort_keys=False):
    """bytes as they are; anything else as JSON, indented, its text unescaped ("▁", "ä")."""
    if isinstance(content, bytes):
        with open(path, "wb") as f:
            f.write(content)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(content, indent=2, ensure_ascii=False, sort_keys=sort_keys) + "\n")


def case_ids(config, tok, case):
    """((source text, target text), source ids, the decoder's input ids) of CASES[case]: the labels
    shifted right behind the start, their last token (the closing one) dropped, as transformers'
    shift_tokens_right does."""
    english, german = CASES[case]
    tasks = config.get("task_specific_params", {})
    prefix = tasks[TASK]["prefix"] if case == "sentence" and TASK in tasks else ""
    source = tok.encode(prefix + english)
    target = [config["decoder_start_token_id"]] + tok.labels(german)[:-1]
    limit = config.get("n_positions", config.get("max_position_embeddings"))
    assert len(source) <= limit and len(target) <= limit and len(start_ids(config)) + GREEDY_TOKENS <= limit, case
    assert case != "long" or len(source) >= LONG_SOURCE, (case, len(source))
    return (prefix + english, german), source, target


def write_checkpoint(ck, index, tok):
    folder = os.path.join(OUT_DIR, ck.name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    config = {**ck.config, **vocab_fields(ck.config["model_type"], tok.size)}
    write_file(os.path.join(folder, "config.json"), config, sort_keys=True)
    for name, content in tok.files.items():
        write_file(os.path.join(folder, name), content)
    weights = random_weights(config, SEED + index)
    write_safetensors(os.path.join(folder, "model.safetensors"), file_tensors(ck, config, weights))
    w64, w32 = stored(weights, ck, torch.float64), stored(weights, ck, torch.float32)
    L, Ld, H = layers(config)
    vocab = config["vocab_size"]
    cases = {case: case_ids(config, tok, case) for case in CASES}
    worst = 0.0
    for case, (texts, source, target) in cases.items():
        enc = seq2seq_models.encode(config, w64, source)
        dec = seq2seq_models.decode(config, w64, target, enc.hidden)
        write_case(os.path.join(folder, "cases", case), texts, source, target, enc, dec, vocab)
        enc32 = seq2seq_models.encode(config, w32, source)
        dec32 = seq2seq_models.decode(config, w32, target, enc32.hidden)
        worst = max(worst, largest_difference(enc32 + dec32, enc + dec))
    texts, source, target = cases["sentence"]
    ablation = {("encoder", L - 1, 0): "mean", ("decoder", 0, 1): "mean", ("cross", Ld - 1, H - 1): "mean", ("cross", 0, 0): "zero"}
    enc = seq2seq_models.encode(config, w64, source, ablation)
    dec = seq2seq_models.decode(config, w64, target, enc.hidden, ablation)
    write_case(os.path.join(folder, "cases", "ablated"), texts, source, target, enc, dec, vocab, ablation, (L, Ld, H))
    start, banned = start_ids(config), banned_ids(config)
    ids, margin = seq2seq_models.greedy(config, w64, source, start, GREEDY_TOKENS, banned)
    write_file(os.path.join(folder, "greedy.json"), {"source": source, "start": start, "banned": banned, "ids": ids,
                                                    "margin": round(margin, 6)})
    size = os.path.getsize(os.path.join(folder, "model.safetensors"))
    past = [i for i in ids if i >= tok.size]
    print(f"{ck.name:10s} {size:8d} B  vocab {tok.size} of {vocab}  sentence {len(source)} -> {len(target)}, long "
          f"{len(cases['long'][1])} -> {len(cases['long'][2])}  float32 vs float64 {worst:.2e}  greedy margin {margin:.4f}  "
          f"ids {ids[:8]}...{'  past the tokenizer: ' + str(past) if past else ''}")


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
    tokenizers = {kind: make() for kind, make in TOKENIZERS.items()}
    for i, ck in enumerate(CHECKPOINTS):
        write_checkpoint(ck, i, tokenizers[ck.tokenizer])
    write_buckets()


if __name__ == "__main__":
    main()
