"""PyTorch reference forward passes of Hugging Face encoder-decoder architectures, for parity fixtures.

T5 (T5ForConditionalGeneration: t5-small's ReLU feed-forward and flan-t5's gated-GELU one), BART
(BartForConditionalGeneration, facebook/bart-base) and Marian (MarianMTModel, Helsinki-NLP/opus-mt-*),
written from the Hugging Face definitions (modeling_t5.py, modeling_bart.py, modeling_marian.py) as
plain functions over a state dict, in whatever dtype the weights are (float64 for references,
float32 to estimate an engine's rounding). The companion of hf_models.py, whose pieces it reuses.

A state dict here uses the names of the *ForConditionalGeneration model with the base-model prefix
("model.") stripped: `shared.weight`, `encoder.block.0.layer.0.SelfAttention.q.weight`,
`decoder.layers.3.encoder_attn.k_proj.bias`, `final_logits_bias`, `lm_head.weight`, ... Tied
weights may be left out (`encoder.embed_tokens.weight`, `decoder.embed_tokens.weight`, and
`lm_head.weight` when the head is tied); Marian's sinusoidal positions are never read from it.

`config` is the parsed config.json with each architecture's own field names, model_type first.

Functions
---------
relative_position_bucket(relative_position, bidirectional, num_buckets, max_distance)
    T5Attention._relative_position_bucket: relative_position (LongTensor) is key position - query
    position; bidirectional stacks give half the buckets to positive offsets, causal ones map every
    positive offset to bucket 0; offsets below num_buckets/4 (bidirectional) or /2 (causal) get a
    bucket each, larger ones a logarithmic bucket, capped at the last. The logarithm is computed in
    float32 (relative_position.float()) exactly as Hugging Face does, then truncated to long, so
    boundary offsets land where they land in the real model. Returns a LongTensor.

encode(config, w, source_ids, ablation=None) -> EncoderTrace(attention, inputs, hidden)
    The encoder stack. attention (L, H, ns, ns): softmax probabilities; inputs (L, ns, d): what each
    layer's self-attention reads (T5: after the block's layer.0.layer_norm; BART/Marian: the block
    input, as their blocks are post-LN); hidden (ns, d): the encoder output the decoder's cross-
    attention reads (T5: after encoder.final_layer_norm; BART/Marian: the last block's output).

decode(config, w, target_ids, memory, ablation=None) -> DecoderTrace(attention, cross_attention,
        inputs, cross_inputs, hidden, logits)
    The decoder stack over target_ids as given (decoder_start_token_id first: T5 and Marian start
    with pad, BART with </s>; nothing is shifted here) and the LM head. attention (Ld, H, nt, nt):
    causal self-attention probabilities; cross_attention (Ld, H, nt, ns); inputs (Ld, nt, d): what
    each self-attention reads (T5: after layer.0.layer_norm; BART/Marian: the block input);
    cross_inputs (Ld, nt, d): what each cross-attention's queries are projected from (T5: after
    layer.1.layer_norm; BART/Marian: the self-attention sub-layer's output, after
    self_attn_layer_norm); hidden (nt, d): final decoder states (T5: after decoder.final_layer_norm,
    before the tied head's d_model**-0.5 rescaling); logits (nt, V).

greedy(config, w, source_ids, start_ids, steps, banned=()) -> (ids, margin)
    `steps` ids written greedily after start_ids: each step decodes start_ids + the ids written so
    far from scratch (no KV cache), sets the `banned` ids' logits at the last position to -inf (as
    generate()'s bad_words_ids does for Marian's pad) and takes torch.argmax (the first maximum on a
    tie, as greedy search does). margin is the smallest gap between the best and second-best logit
    over the steps, a measure of how safely an engine's rounding reproduces the same ids. It does
    not stop at </s> and applies none of generate()'s other processors (num_beams, no_repeat_ngram_size,
    forced_bos/eos_token_id, min_length, length penalty): the plain argmax chain.

Ablation: {(stack, layer, head): "zero" | "mean" | tensor}, stack "encoder", "decoder" (self-
attention) or "cross" (cross-attention). A head's output is its attention-weighted values, before the
output projection. "zero" makes it zeros (what a 0 in head_mask / decoder_head_mask /
cross_attn_head_mask does); "mean" replaces it by its mean over every position in the encoder and, in
the decoder's self- and cross-attention, by the running mean over target positions 0..t at position
t, so no position reads a later target token; a tensor (n, k) replaces it outright (activation
patching). The traces keep the probabilities as computed, whatever the mode.

Hugging Face behaviours followed
--------------------------------
T5: no embedding scale and no absolute positions; pre-norm blocks with T5LayerNorm (x / sqrt(mean(x^2)
    + eps) * w: no mean, no bias, eps layer_norm_epsilon); attention scores q.k without any
    1/sqrt(d_kv) (the scale is folded into the initialisation), plus the relative position bias
    that block 0 of each stack owns (relative_attention_bias.weight, (num_buckets, H)) and every
    block of that stack reuses: bidirectional buckets in the encoder, causal buckets in the decoder's
    self-attention, no bias in cross-attention; inner width num_heads * d_kv (need not be d_model);
    feed-forward wo(act(wi(x))) or, for "gated-*" feed_forward_proj, wo(act(wi_0(x)) * wi_1(x)), where
    "gated-gelu" means gelu_new (the tanh approximation) as T5Config maps it; final_layer_norm after
    each stack; decoder depth num_decoder_layers (default num_layers); the head tied to shared (the
    default, tie_word_embeddings absent or true) multiplies the decoder output by d_model**-0.5 first,
    an untied one is lm_head.weight unscaled.
BART: token embeddings times sqrt(d_model) only when scale_embedding is true (false for bart-base),
    plus learned positions read at position + 2 (BartLearnedPositionalEmbedding's offset), then
    layernorm_embedding; post-LN blocks (x = LN(x + attn(x)); x = LN(x + fc2(act(fc1(x))))), biases
    everywhere, scores scaled by head_dim**-0.5, nn.LayerNorm eps 1e-5; activation_function ("gelu" is
    the erf GELU); logits = hidden @ shared.T (or lm_head.weight) + final_logits_bias. No final
    encoder/decoder LayerNorm (the legacy normalize_before / add_final_layer_norm config fields are
    ignored by BartModel, as here).
Marian: BART's blocks without layernorm_embedding; token embeddings times sqrt(d_model) when
    scale_embedding (true for opus-mt); sinusoidal positions as MarianSinusoidalPositionalEmbedding
    builds them: angle(pos, j) = pos / 10000^(2*(j//2)/d), sin of the even j in the first half of the
    width, cos of the odd j in the second (not interleaved), computed in float64 and stored as float32
    (torch.FloatTensor), so the float32 rounding is kept here in every dtype; positions from 0;
    activation "swish" = SiLU; final_logits_bias added to the logits.

Deliberate differences: no batching, padding or attention masks, no dropout, no KV cache. Hugging
Face runs T5's softmax (scores.float()) and T5LayerNorm's variance in float32 even for float64
weights; here both run in the weights' dtype, so a float64 run is a float64 reference. HF masks the
future with finfo.min added to the scores (T5: to the position bias); here with -inf; both give
probabilities of exactly 0.

Shape letters: ns source tokens, nt target tokens, d model width, H heads, k head width, V vocabulary
size, L encoder layers, Ld decoder layers.
"""
import math
import os
import sys
from typing import NamedTuple

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hf_models import ablate, gelu_erf, gelu_tanh, layer_norm, linear, rms_norm  # noqa: E402


class EncoderTrace(NamedTuple):
    attention: torch.Tensor  # (L, H, ns, ns) self-attention probabilities
    inputs: torch.Tensor     # (L, ns, d) what each layer's self-attention reads
    hidden: torch.Tensor     # (ns, d) the encoder output the cross-attention reads


class DecoderTrace(NamedTuple):
    attention: torch.Tensor        # (Ld, H, nt, nt) causal self-attention probabilities
    cross_attention: torch.Tensor  # (Ld, H, nt, ns) cross-attention probabilities
    inputs: torch.Tensor           # (Ld, nt, d) what each self-attention reads
    cross_inputs: torch.Tensor     # (Ld, nt, d) what each cross-attention's queries come from
    hidden: torch.Tensor           # (nt, d) final decoder states
    logits: torch.Tensor           # (nt, V)


STACKS = ("encoder", "decoder", "cross")
BART_EPS = 1e-5  # nn.LayerNorm's default; BART and Marian configs have no eps field

ACTIVATIONS = {  # transformers.activations.ACT2FN, the names these configs use
    "relu": torch.relu,
    "gelu": gelu_erf,
    "gelu_new": gelu_tanh,
    "gelu_pytorch_tanh": gelu_tanh,
    "swish": torch.nn.functional.silu,
    "silu": torch.nn.functional.silu,
    "tanh": torch.tanh,
}


# ---------------------------------------------------------------------------------------------
# Pieces both families share.
# ---------------------------------------------------------------------------------------------
def layer_modes(ablation, stack, layer, n_heads):
    """The ablation modes of one attention's heads, [None | "zero" | "mean" | tensor] * H."""
    for key in ablation or {}:
        assert len(key) == 3 and key[0] in STACKS, f"ablation keys are (stack, layer, head): {key!r}"
    return [(ablation or {}).get((stack, layer, h)) for h in range(n_heads)]


def multi_head(q, k, v, n_heads, scale, bias=None, causal=False, modes=None, running_mean=False):
    """Attention of nq queries over nk keys, split into heads: q (nq, H·k), k and v (nk, H·k); scores
    times `scale`, plus `bias` (H, nq, nk) when given; a causal mask hides key j > query i. modes as
    ablate()'s; running_mean makes "mean" a running mean over the query positions (the decoder's).
    Returns the heads' outputs concatenated (nq, H·k) and the probabilities (H, nq, nk)."""
    nq, nk = q.shape[0], k.shape[0]
    width = q.shape[1] // n_heads
    heads = lambda t: t.reshape(t.shape[0], n_heads, width).transpose(0, 1)  # (n, H·k) -> (H, n, k)
    q, k, v = heads(q), heads(k), heads(v)
    scores = (q @ k.transpose(1, 2)) * scale  # (H, nq, nk)
    if bias is not None:
        scores = scores + bias
    if causal:
        scores = scores.masked_fill(torch.ones(nq, nk, dtype=torch.bool).triu(1), float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    context = probs @ v  # (H, nq, k)
    if modes is not None:
        context = ablate(context, modes, running_mean)
    return context.transpose(0, 1).reshape(nq, n_heads * width), probs


def act_fn(name):
    assert name in ACTIVATIONS, f"unsupported activation {name!r}"
    return ACTIVATIONS[name]


# ---------------------------------------------------------------------------------------------
# T5 (modeling_t5.py). Weights named as T5ForConditionalGeneration's (it has no prefix to strip).
# ---------------------------------------------------------------------------------------------
def relative_position_bucket(relative_position, bidirectional, num_buckets, max_distance):
    """T5Attention._relative_position_bucket, its float32 logarithm included; relative_position a
    LongTensor of key position - query position. Returns a LongTensor of the same shape."""
    relative_position = torch.as_tensor(relative_position, dtype=torch.long)
    buckets = torch.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        buckets = buckets + (relative_position > 0).to(torch.long) * num_buckets
        distance = relative_position.abs()
    else:  # causal: a key after the query (positive offset) counts as distance 0
        distance = -torch.min(relative_position, torch.zeros_like(relative_position))
    max_exact = num_buckets // 2
    is_small = distance < max_exact
    # the other half of the buckets: logarithmically wider bins up to max_distance, in float32
    # (log(0) = -inf where distance is 0, discarded by the where below, as in Hugging Face)
    large = max_exact + (torch.log(distance.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(is_small, distance, large)


def t5_position_bias(config, w, stack, nq, nk, bidirectional):
    """(H, nq, nk): block 0's relative_attention_bias looked up at the buckets of key - query."""
    relative = torch.arange(nk)[None, :] - torch.arange(nq)[:, None]  # (nq, nk)
    buckets = relative_position_bucket(relative, bidirectional, config.get("relative_attention_num_buckets", 32),
                                       config.get("relative_attention_max_distance", 128))
    table = w[f"{stack}.block.0.layer.0.SelfAttention.relative_attention_bias.weight"]  # (buckets, H)
    return table[buckets].permute(2, 0, 1)


def t5_eps(config):
    return config.get("layer_norm_epsilon", 1e-6)


def t5_feed_forward(config, w, prefix, x):
    """T5DenseActDense or T5DenseGatedActDense: prefix is the block's `layer.N.DenseReluDense`."""
    proj = config.get("feed_forward_proj", "relu")
    parts = proj.split("-")
    gated = parts[0] == "gated"
    name = "gelu_new" if proj == "gated-gelu" else parts[-1]  # T5Config's backwards-compatible mapping
    act = act_fn(name)
    if gated:
        h = act(x @ w[prefix + ".wi_0.weight"].T) * (x @ w[prefix + ".wi_1.weight"].T)  # (n, F)
    else:
        h = act(x @ w[prefix + ".wi.weight"].T)
    return h @ w[prefix + ".wo.weight"].T  # (n, d)


def t5_attention(w, prefix, queries, keys, n_heads, bias, causal, modes, running_mean):
    """One T5Attention: prefix is `...layer.N.SelfAttention` or `...EncDecAttention`; no score scale."""
    context, probs = multi_head(queries @ w[prefix + ".q.weight"].T, keys @ w[prefix + ".k.weight"].T,
                                keys @ w[prefix + ".v.weight"].T, n_heads, 1.0, bias, causal, modes, running_mean)
    return context @ w[prefix + ".o.weight"].T, probs


def t5_encode(config, w, ids, ablation):
    H, eps = config["num_heads"], t5_eps(config)
    x = w["shared.weight"][torch.tensor(ids)]  # (ns, d): no scale, no positions
    n = x.shape[0]
    bias = t5_position_bias(config, w, "encoder", n, n, bidirectional=True)
    attentions, inputs = [], []
    for l in range(config["num_layers"]):
        p = f"encoder.block.{l}.layer."
        a = rms_norm(x, w[p + "0.layer_norm.weight"], eps)
        out, probs = t5_attention(w, p + "0.SelfAttention", a, a, H, bias, False,
                                  layer_modes(ablation, "encoder", l, H), False)
        x = x + out
        x = x + t5_feed_forward(config, w, p + "1.DenseReluDense", rms_norm(x, w[p + "1.layer_norm.weight"], eps))
        inputs.append(a)
        attentions.append(probs)
    hidden = rms_norm(x, w["encoder.final_layer_norm.weight"], eps)
    return EncoderTrace(torch.stack(attentions), torch.stack(inputs), hidden)


def t5_decode(config, w, ids, memory, ablation):
    H, eps = config["num_heads"], t5_eps(config)
    x = w["shared.weight"][torch.tensor(ids)]  # (nt, d)
    n = x.shape[0]
    bias = t5_position_bias(config, w, "decoder", n, n, bidirectional=False)
    attentions, crosses, inputs, cross_inputs = [], [], [], []
    for l in range(config.get("num_decoder_layers") or config["num_layers"]):
        p = f"decoder.block.{l}.layer."
        a = rms_norm(x, w[p + "0.layer_norm.weight"], eps)
        out, probs = t5_attention(w, p + "0.SelfAttention", a, a, H, bias, True,
                                  layer_modes(ablation, "decoder", l, H), True)
        x = x + out
        c = rms_norm(x, w[p + "1.layer_norm.weight"], eps)
        out, cross = t5_attention(w, p + "1.EncDecAttention", c, memory, H, None, False,
                                  layer_modes(ablation, "cross", l, H), True)
        x = x + out
        x = x + t5_feed_forward(config, w, p + "2.DenseReluDense", rms_norm(x, w[p + "2.layer_norm.weight"], eps))
        inputs.append(a)
        cross_inputs.append(c)
        attentions.append(probs)
        crosses.append(cross)
    hidden = rms_norm(x, w["decoder.final_layer_norm.weight"], eps)
    if config.get("tie_word_embeddings", True):
        logits = (hidden * config["d_model"] ** -0.5) @ w["shared.weight"].T
    else:
        logits = hidden @ w["lm_head.weight"].T
    return DecoderTrace(torch.stack(attentions), torch.stack(crosses), torch.stack(inputs),
                        torch.stack(cross_inputs), hidden, logits)


# ---------------------------------------------------------------------------------------------
# BART (modeling_bart.py) and Marian (modeling_marian.py): the same post-LN blocks; they differ in
# their embeddings. Weights named as BartForConditionalGeneration's / MarianMTModel's without "model.".
# ---------------------------------------------------------------------------------------------
def marian_positions(n_pos, dim):
    """MarianSinusoidalPositionalEmbedding.create_weight: (n_pos, dim), sin(angle) of the even j in
    the first ceil(dim/2) columns, cos(angle) of the odd j in the rest, angle = pos / 10000^(2(j//2)/dim),
    computed in float64 (numpy) and rounded to float32 as the module stores it."""
    j = np.arange(dim)
    angle = np.arange(n_pos)[:, None] / np.power(10000, 2 * (j // 2) / dim)[None, :]  # (n_pos, dim)
    out = np.concatenate([np.sin(angle[:, 0::2]), np.cos(angle[:, 1::2])], axis=1)
    return torch.from_numpy(out.astype(np.float32))


def token_table(w, stack):
    """The stack's token embeddings: its own embed_tokens if the state dict has one (Marian with
    share_encoder_decoder_embeddings false), else shared."""
    return w.get(f"{stack}.embed_tokens.weight", w.get("shared.weight"))


def bart_embeddings(config, w, stack, ids):
    """Token embeddings (times sqrt(d_model) if scale_embedding) + positions; BART then applies
    layernorm_embedding. Returns (n, d)."""
    ids = torch.tensor(ids)
    n = len(ids)
    assert n <= config.get("max_position_embeddings", 1024), "longer than max_position_embeddings"
    scale = math.sqrt(config["d_model"]) if config.get("scale_embedding", False) else 1.0
    x = token_table(w, stack)[ids] * scale
    if config["model_type"] == "marian":
        return x + marian_positions(n, config["d_model"]).to(x.dtype)
    x = x + w[f"{stack}.embed_positions.weight"][torch.arange(n) + 2]  # BartLearnedPositionalEmbedding's offset
    return layer_norm(x, w, f"{stack}.layernorm_embedding", BART_EPS)


def bart_attention(w, prefix, queries, keys, n_heads, causal, modes, running_mean):
    """One BartAttention / MarianAttention (q, k, v, out projections with biases; head_dim^-1/2)."""
    q = linear(queries, w, prefix + ".q_proj")
    scale = (q.shape[1] // n_heads) ** -0.5
    context, probs = multi_head(q, linear(keys, w, prefix + ".k_proj"), linear(keys, w, prefix + ".v_proj"),
                                n_heads, scale, None, causal, modes, running_mean)
    return linear(context, w, prefix + ".out_proj"), probs


def bart_feed_forward(config, w, prefix, x):
    return linear(act_fn(config.get("activation_function", "gelu"))(linear(x, w, prefix + "fc1")), w, prefix + "fc2")


def bart_encode(config, w, ids, ablation):
    H = config["encoder_attention_heads"]
    x = bart_embeddings(config, w, "encoder", ids)
    attentions, inputs = [], []
    for l in range(config["encoder_layers"]):
        p = f"encoder.layers.{l}."
        inputs.append(x)
        out, probs = bart_attention(w, p + "self_attn", x, x, H, False, layer_modes(ablation, "encoder", l, H), False)
        x = layer_norm(x + out, w, p + "self_attn_layer_norm", BART_EPS)
        x = layer_norm(x + bart_feed_forward(config, w, p, x), w, p + "final_layer_norm", BART_EPS)
        attentions.append(probs)
    return EncoderTrace(torch.stack(attentions), torch.stack(inputs), x)


def bart_decode(config, w, ids, memory, ablation):
    H = config["decoder_attention_heads"]
    x = bart_embeddings(config, w, "decoder", ids)
    attentions, crosses, inputs, cross_inputs = [], [], [], []
    for l in range(config["decoder_layers"]):
        p = f"decoder.layers.{l}."
        inputs.append(x)
        out, probs = bart_attention(w, p + "self_attn", x, x, H, True, layer_modes(ablation, "decoder", l, H), True)
        x = layer_norm(x + out, w, p + "self_attn_layer_norm", BART_EPS)
        cross_inputs.append(x)
        out, cross = bart_attention(w, p + "encoder_attn", x, memory, H, False,
                                    layer_modes(ablation, "cross", l, H), True)
        x = layer_norm(x + out, w, p + "encoder_attn_layer_norm", BART_EPS)
        x = layer_norm(x + bart_feed_forward(config, w, p, x), w, p + "final_layer_norm", BART_EPS)
        attentions.append(probs)
        crosses.append(cross)
    head = w.get("lm_head.weight", token_table(w, "decoder"))
    logits = x @ head.T
    if "final_logits_bias" in w:
        logits = logits + w["final_logits_bias"].reshape(-1)
    return DecoderTrace(torch.stack(attentions), torch.stack(crosses), torch.stack(inputs),
                        torch.stack(cross_inputs), x, logits)


# ---------------------------------------------------------------------------------------------
# The interface.
# ---------------------------------------------------------------------------------------------
ENCODERS = {"t5": t5_encode, "bart": bart_encode, "marian": bart_encode}
DECODERS = {"t5": t5_decode, "bart": bart_decode, "marian": bart_decode}


def encode(config, w, source_ids, ablation=None):
    """The encoder over source_ids (a list of ids, </s> included as the tokenizer appends it)."""
    with torch.no_grad():
        return ENCODERS[config["model_type"]](config, w, list(source_ids), ablation)


def decode(config, w, target_ids, memory, ablation=None):
    """The decoder over target_ids as given (start token(s) first) reading memory (ns, d), the
    encoder's EncoderTrace.hidden, and the LM head."""
    with torch.no_grad():
        return DECODERS[config["model_type"]](config, w, list(target_ids), memory, ablation)


def greedy(config, w, source_ids, start_ids, steps, banned=()):
    """(ids, margin): `steps` argmax ids written after start_ids, each from a whole decode of
    start_ids + the ids so far, `banned` ids at -inf; margin the smallest top-1 - top-2 logit gap."""
    memory = encode(config, w, source_ids).hidden
    ids, written, margin = list(start_ids), [], math.inf
    for _ in range(steps):
        last = decode(config, w, ids, memory).logits[-1].clone()  # (V,)
        if len(banned):
            last[torch.tensor(list(banned))] = float("-inf")
        top = torch.topk(last, 2).values
        margin = min(margin, float(top[0] - top[1]))
        token = int(torch.argmax(last))
        written.append(token)
        ids.append(token)
    return written, margin


# ---------------------------------------------------------------------------------------------
# Self-check: tiny random models of each architecture.
# ---------------------------------------------------------------------------------------------
def random_t5(config, seed=0, dtype=torch.float64):
    """Random weights for a T5 config (its d_model, d_kv, num_heads, d_ff, layers, buckets,
    feed_forward_proj, tie_word_embeddings), named as T5ForConditionalGeneration's."""
    g = torch.Generator().manual_seed(seed)
    r = lambda *shape, s=0.4: (torch.randn(*shape, generator=g, dtype=torch.float64) * s).to(dtype)
    d, F, V, H = config["d_model"], config["d_ff"], config["vocab_size"], config["num_heads"]
    inner = H * config["d_kv"]
    gated = config.get("feed_forward_proj", "relu").startswith("gated-")
    layers = {"encoder": config["num_layers"], "decoder": config.get("num_decoder_layers", config["num_layers"])}
    w = {"shared.weight": r(V, d, s=1.0)}
    for stack, count in layers.items():
        w[f"{stack}.block.0.layer.0.SelfAttention.relative_attention_bias.weight"] = r(config.get("relative_attention_num_buckets", 32), H, s=1.0)
        w[f"{stack}.final_layer_norm.weight"] = 1 + r(d, s=0.1)
        for l in range(count):
            p = f"{stack}.block.{l}.layer."
            attns = ["0.SelfAttention"] + (["1.EncDecAttention"] if stack == "decoder" else [])
            for i, a in enumerate(attns):
                for m in "qkv":
                    w[f"{p}{a}.{m}.weight"] = r(inner, d, s=d ** -0.5)
                w[f"{p}{a}.o.weight"] = r(d, inner, s=inner ** -0.5)
                w[f"{p}{i}.layer_norm.weight"] = 1 + r(d, s=0.1)
            f = len(attns)
            w[f"{p}{f}.layer_norm.weight"] = 1 + r(d, s=0.1)
            for m in (("wi_0", "wi_1") if gated else ("wi",)):
                w[f"{p}{f}.DenseReluDense.{m}.weight"] = r(F, d, s=d ** -0.5)
            w[f"{p}{f}.DenseReluDense.wo.weight"] = r(d, F, s=F ** -0.5)
    if not config.get("tie_word_embeddings", True):
        w["lm_head.weight"] = r(V, d, s=1.0)
    return w


def random_bart(config, seed=0, dtype=torch.float64):
    """Random weights for a BART or Marian config (learned positions and layernorm_embedding for
    BART), named as *ForConditionalGeneration's without the model. prefix."""
    marian = config["model_type"] == "marian"
    d, F, V = config["d_model"], config["encoder_ffn_dim"], config["vocab_size"]
    g = torch.Generator().manual_seed(seed)
    r = lambda *shape, s=0.4: (torch.randn(*shape, generator=g, dtype=torch.float64) * s).to(dtype)
    lin = lambda name, o, i: w.update({name + ".weight": r(o, i, s=i ** -0.5), name + ".bias": r(o, s=0.1)})
    norm = lambda name: w.update({name + ".weight": 1 + r(d, s=0.1), name + ".bias": r(d, s=0.1)})
    w = {"shared.weight": r(V, d, s=0.3 if marian else 1.0), "final_logits_bias": r(1, V, s=0.5)}
    for stack in ("encoder", "decoder"):
        if not marian:
            w[f"{stack}.embed_positions.weight"] = r(config["max_position_embeddings"] + 2, d, s=1.0)
            norm(f"{stack}.layernorm_embedding")
        for l in range(config[f"{stack}_layers"]):
            p = f"{stack}.layers.{l}."
            for a in ["self_attn"] + (["encoder_attn"] if stack == "decoder" else []):
                for m in "qkv":
                    lin(f"{p}{a}.{m}_proj", d, d)
                lin(f"{p}{a}.out_proj", d, d)
                norm(f"{p}{a}_layer_norm")
            lin(p + "fc1", F, d)
            lin(p + "fc2", d, F)
            norm(p + "final_layer_norm")
    return w


def tiny_t5(gated, seed=0):
    """A random T5 (gated: flan-t5's gated-gelu with an untied lm_head) in float64."""
    config = {"model_type": "t5", "d_model": 16, "d_kv": 6, "d_ff": 24, "num_layers": 2, "num_decoder_layers": 3,
              "num_heads": 3, "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128,
              "layer_norm_epsilon": 1e-6, "feed_forward_proj": "gated-gelu" if gated else "relu",
              "tie_word_embeddings": not gated, "vocab_size": 40}
    return config, random_t5(config, seed)


def tiny_bart(marian, seed=0):
    """A random BART (learned positions, layernorm_embedding, erf GELU) or Marian (sinusoidal
    positions, scaled embeddings, swish) in float64."""
    d, F, V, H = 16, 24, 40, 4
    config = {"model_type": "marian" if marian else "bart", "d_model": d, "encoder_layers": 2, "decoder_layers": 3,
              "encoder_attention_heads": H, "decoder_attention_heads": H, "encoder_ffn_dim": F,
              "decoder_ffn_dim": F, "max_position_embeddings": 32,
              "activation_function": "swish" if marian else "gelu", "scale_embedding": marian, "vocab_size": V}
    return config, random_bart(config, seed)


def torch_reference(config, w, src, tgt):
    """BART/Marian through torch.nn.TransformerEncoderLayer / TransformerDecoderLayer (post-LN,
    norm_first=False), loaded with the same weights: an independent check of the block order."""
    d, H = config["d_model"], config["encoder_attention_heads"]
    act = {"gelu": "gelu", "swish": torch.nn.functional.silu}[config["activation_function"]]

    def load_mha(mha, p):
        mha.in_proj_weight.copy_(torch.cat([w[p + f".{m}_proj.weight"] for m in "qkv"]))
        mha.in_proj_bias.copy_(torch.cat([w[p + f".{m}_proj.bias"] for m in "qkv"]))
        mha.out_proj.weight.copy_(w[p + ".out_proj.weight"])
        mha.out_proj.bias.copy_(w[p + ".out_proj.bias"])

    def load_ln(ln, p):
        ln.weight.copy_(w[p + ".weight"])
        ln.bias.copy_(w[p + ".bias"])

    with torch.no_grad():
        x = bart_embeddings(config, w, "encoder", src)[None]
        for l in range(config["encoder_layers"]):
            p = f"encoder.layers.{l}."
            layer = torch.nn.TransformerEncoderLayer(d, H, config["encoder_ffn_dim"], 0.0, act, BART_EPS,
                                                     batch_first=True).double().eval()
            load_mha(layer.self_attn, p + "self_attn")
            layer.linear1.weight.copy_(w[p + "fc1.weight"]), layer.linear1.bias.copy_(w[p + "fc1.bias"])
            layer.linear2.weight.copy_(w[p + "fc2.weight"]), layer.linear2.bias.copy_(w[p + "fc2.bias"])
            load_ln(layer.norm1, p + "self_attn_layer_norm"), load_ln(layer.norm2, p + "final_layer_norm")
            x = layer(x)
        memory = x
        y = bart_embeddings(config, w, "decoder", tgt)[None]
        n = y.shape[1]
        future = torch.ones(n, n, dtype=torch.bool).triu(1)
        mask = torch.zeros(n, n, dtype=torch.float64).masked_fill(future, float("-inf"))
        for l in range(config["decoder_layers"]):
            p = f"decoder.layers.{l}."
            layer = torch.nn.TransformerDecoderLayer(d, H, config["decoder_ffn_dim"], 0.0, act, BART_EPS,
                                                     batch_first=True).double().eval()
            load_mha(layer.self_attn, p + "self_attn"), load_mha(layer.multihead_attn, p + "encoder_attn")
            layer.linear1.weight.copy_(w[p + "fc1.weight"]), layer.linear1.bias.copy_(w[p + "fc1.bias"])
            layer.linear2.weight.copy_(w[p + "fc2.weight"]), layer.linear2.bias.copy_(w[p + "fc2.bias"])
            load_ln(layer.norm1, p + "self_attn_layer_norm"), load_ln(layer.norm2, p + "encoder_attn_layer_norm")
            load_ln(layer.norm3, p + "final_layer_norm")
            y = layer(y, memory, tgt_mask=mask)
        return memory[0], y[0] @ w["shared.weight"].T + w["final_logits_bias"][0]


def mesh_tf_bucket(rp, bidirectional, num_buckets, max_distance):
    """The bucket of one offset in exact (float64) arithmetic, Mesh TensorFlow's definition."""
    ret, n = 0, -rp
    if bidirectional:
        num_buckets //= 2
        ret += num_buckets if n < 0 else 0
        n = abs(n)
    else:
        n = max(n, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return ret + n
    large = max_exact + int(math.log(n / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact))
    return ret + min(large, num_buckets - 1)


def self_check():
    torch.manual_seed(0)
    failures = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    # relative_position_bucket
    offsets = [1, 7, 8, 15, 16, 100, 127, 128, 1000]
    signed = [s * o for o in offsets for s in (1, -1)]
    for bidirectional in (True, False):
        got = relative_position_bucket(torch.tensor(signed), bidirectional, 32, 128)
        print(f"relative_position_bucket(bidirectional={bidirectional}, 32 buckets, max 128):")
        print("  " + ", ".join(f"{rp:+d}->{int(b)}" for rp, b in zip(signed, got)))
        check(got.dtype == torch.long, "buckets are a LongTensor")
        exact = [mesh_tf_bucket(rp, bidirectional, 32, 128) for rp in signed]
        differ = [(rp, int(b), e) for rp, b, e in zip(signed, got, exact) if int(b) != e]
        print(f"  offsets where float32 and exact arithmetic differ: {differ or 'none'}")
        full = relative_position_bucket(torch.arange(-300, 301), bidirectional, 32, 128)
        check(bool((full >= 0).all() and (full < 32).all()), "every bucket within [0, 32)")
    causal = relative_position_bucket(torch.arange(0, 50), False, 32, 128)
    check(bool((causal == 0).all()), "causal buckets put every future key in bucket 0")

    # Marian positions
    pos = marian_positions(4, 512)
    print(f"marian positions row 1: {pos[1, 0]:.6f}, {pos[1, 1]:.6f}; row 1 col 256 (cos): {pos[1, 256]:.6f}")
    check(abs(pos[1, 0] - 0.841471) < 1e-6 and abs(pos[1, 1] - 0.821856) < 1e-6,
          "marian positions row 1 begins 0.841471, 0.821856 at d 512")
    check(bool((pos[0, :256] == 0).all() and (pos[0, 256:] == 1).all()), "marian position 0 is sin 0 | cos 1")

    models = {"t5 (relu, tied)": tiny_t5(False), "t5 (gated-gelu, untied)": tiny_t5(True),
              "bart": tiny_bart(False), "marian": tiny_bart(True)}
    src, tgt = [5, 9, 3, 17, 22, 8, 1], [0, 14, 6, 30, 2]
    for name, (config, w) in models.items():
        print(f"-- {name}")
        enc = encode(config, w, src)
        dec = decode(config, w, tgt, enc.hidden)
        L = config.get("num_layers", config.get("encoder_layers"))
        Ld = config.get("num_decoder_layers", config.get("decoder_layers"))
        H = config.get("num_heads", config.get("encoder_attention_heads"))
        d, ns, nt, V = config["d_model"], len(src), len(tgt), config["vocab_size"]
        check(enc.attention.shape == (L, H, ns, ns) and enc.inputs.shape == (L, ns, d)
              and enc.hidden.shape == (ns, d), "encoder trace shapes")
        check(dec.attention.shape == (Ld, H, nt, nt) and dec.cross_attention.shape == (Ld, H, nt, ns)
              and dec.inputs.shape == (Ld, nt, d) and dec.cross_inputs.shape == (Ld, nt, d)
              and dec.hidden.shape == (nt, d) and dec.logits.shape == (nt, V), "decoder trace shapes")
        sums = [t.sum(-1) for t in (enc.attention, dec.attention, dec.cross_attention)]
        check(all(float((s - 1).abs().max()) < 1e-12 for s in sums), "probabilities sum to 1")
        check(float(dec.attention.triu(1).abs().max()) == 0.0, "decoder self-attention is causal")
        # a target prefix decodes to the same states: no position reads a later target token
        short = decode(config, w, tgt[:3], enc.hidden)
        check(float((short.logits - dec.logits[:3]).abs().max()) < 1e-12, "a prefix's logits match the full decode's")
        # float32 against float64
        w32 = {k: v.float() for k, v in w.items()}
        enc32 = encode(config, w32, src)
        dec32 = decode(config, w32, tgt, enc32.hidden)
        diff = max(float((a.double() - b).abs().max())
                   for a, b in zip(list(enc32) + list(dec32), list(enc) + list(dec)))
        print(f"   largest |float32 - float64| over every trace field: {diff:.3g}")
        check(diff < 1e-4, "float32 within 1e-4 of float64")
        # ablation
        zero_all = {("encoder", 0, h): "zero" for h in range(H)}
        e0 = encode(config, w, src, zero_all)
        check(torch.equal(e0.attention[0], enc.attention[0]), "ablation keeps the ablated layer's probabilities")
        check(not torch.allclose(e0.hidden, enc.hidden), "zeroing a layer's heads changes the output")
        # zeroing every head of a layer = an output projection fed zeros (its bias kept, as head_mask does)
        o = ("encoder.block.0.layer.0.SelfAttention.o.weight" if config["model_type"] == "t5"
             else "encoder.layers.0.self_attn.out_proj.weight")
        no_o = encode(config, {**w, o: torch.zeros_like(w[o])}, src)
        check(float((no_o.hidden - e0.hidden).abs().max()) < 1e-12,
              "'zero' on every head = zero output projection input")
        for stack in ("decoder", "cross"):
            abl = {(stack, l, h): "mean" for l in range(Ld) for h in range(H)}
            full = decode(config, w, tgt, enc.hidden, abl)
            part = decode(config, w, tgt[:3], enc.hidden, abl)
            check(float((part.logits - full.logits[:3]).abs().max()) < 1e-12,
                  f"'mean' in {stack} is a running mean (no position reads a later target token)")
            check(not torch.allclose(full.logits, dec.logits), f"'mean' in {stack} changes the logits")
        abl = {("encoder", 1, 0): "mean"}
        ctx_check = encode(config, w, src, abl)
        check(not torch.allclose(ctx_check.hidden, enc.hidden), "'mean' in the encoder changes the output")
        # greedy: consistent with decode, banned ids never written
        ids, margin = greedy(config, w, src, tgt[:1], 4)
        again = decode(config, w, tgt[:1] + ids[:-1], enc.hidden)
        check(ids == [int(t) for t in again.logits.argmax(-1)], "greedy ids are the argmax chain")
        banned_ids, _ = greedy(config, w, src, tgt[:1], 4, banned=ids[:1])
        check(ids[0] not in banned_ids, "banned ids are never written")
        print(f"   greedy ids {ids}, margin {margin:.4f}")
        if config["model_type"] != "t5":
            memory, logits = torch_reference(config, w, src, tgt)
            err = max(float((memory - enc.hidden).abs().max()), float((logits - dec.logits).abs().max()))
            check(err < 1e-10, f"matches torch.nn.Transformer{{Encoder,Decoder}}Layer (post-LN), {err:.2g}")
    # T5 specifics: the bias is block 0's, reused by every block; the tied head's rescaling
    config, w = models["t5 (relu, tied)"]
    enc = encode(config, w, src)
    w2 = dict(w)
    w2["encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"] = torch.zeros(32, 3, dtype=torch.float64)
    check(not torch.allclose(encode(config, w2, src).attention[1], enc.attention[1]),
          "T5 block 1 reads block 0's relative position bias")
    dec = decode(config, w, tgt, enc.hidden)
    check(torch.allclose(dec.logits, dec.hidden @ w["shared.weight"].T / 4.0), "T5 tied head scales by d_model**-0.5")
    print("ALL CHECKS PASSED" if not failures else f"{len(failures)} CHECK(S) FAILED")
    return not failures


if __name__ == "__main__":
    sys.exit(0 if self_check() else 1)
