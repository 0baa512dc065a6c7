"""PyTorch reference forward passes of Hugging Face architectures, for parity fixtures.

BERT (BertModel + the BertForMaskedLM head), DistilBERT (+ DistilBertForMaskedLM's vocab_* head),
RoBERTa (BERT blocks, RobertaForMaskedLM's lm_head), GPT-2 (GPT2LMHeadModel), Llama
(LlamaForCausalLM: RMSNorm, grouped-query attention, RoPE, gated MLP), Qwen2, Mistral, Qwen3,
Gemma 3 (Gemma3ForCausalLM) and GPT-NeoX (Pythia), written from the
Hugging Face definitions as plain functions over a state dict, in whatever dtype the weights are
(float64 for references, float32 to estimate an engine's rounding).

A state dict here uses the names of the Hugging Face model class with the base-model prefix
stripped and the current `weight`/`bias` spelling: `embeddings.word_embeddings.weight`,
`encoder.layer.0.attention.self.query.weight`, `cls.predictions.bias`, `h.0.attn.c_attn.weight`,
... The file layouts of real checkpoints (prefixes, legacy gamma/beta, buffers, tied weights
left out) are make_checkpoints.py's business, not this file's.

Each forward takes (config, weights, ids, ablation): the parsed config.json with the
architecture's own field names, the state dict, a list of token ids, and optionally heads to
switch off or replace, {(layer, head): "zero" | "mean" | a tensor}; it returns a Trace. A "zero"
head outputs zeros, as a 0 in Hugging Face's head_mask makes it (head_mask scales the head's
probabilities, so its output is 0); a "mean" head outputs the mean of its output: over every
position in a bidirectional model, and at position t over positions 0..t in a causal one (a
running mean, so a position never reads the tokens after it); a tensor (n, k) is the head's
output at every position instead of its own (activation patching: the output of the same head
in another run). Whatever the mode, the Trace keeps the head's attention probabilities as
computed, unscaled.

A forward also takes an optional Probe, the hooks that interpretability references need
(tools/make_why_fixtures.py): it sees the residual stream entering every layer and may replace
it, and it sees the heads' outputs, the attention and MLP outputs and the sums a post-norm block
normalises. The default, NO_PROBE, changes and keeps nothing.

What it deliberately does not do: no batching, padding or attention masks, no dropout, no token
type ids other than 0, no pooler or next-sentence head, no KV cache.

Shape letters: n tokens, d model width, H heads, k head width (= d / H), F feed-forward width,
V vocabulary size, L layers.
"""
import math
from typing import NamedTuple, Optional

import torch


class Trace(NamedTuple):
    attention: torch.Tensor         # (L, H, n, n) softmax probabilities of every layer
    inputs: torch.Tensor            # (L, n, d) what each layer's attention reads
    hidden: torch.Tensor            # (n, d) final hidden states
    logits: Optional[torch.Tensor]  # (n, V) LM-head scores, None without a head


class Probe:
    """The hooks a forward calls; this one changes and keeps nothing (subclass it to record or
    patch). Layers count from 0; the residual stream "entering layer L" is the one after the last
    layer, before the final norm (pre-norm) or the masked-LM head (post-norm)."""

    def residual(self, l, x):
        """x (n, d): the residual stream entering layer l (pre-norm: before the block's input norm;
        post-norm: the block's input, the previous block's or the embeddings' output). Returns
        the stream the forward goes on with."""
        return x

    def see(self, l, name, t):
        """Returns t unchanged: an intermediate of layer l, for reading only:
        "context" (n, H·k): the heads' outputs concatenated (attention-weighted values, ablation
            applied), before the output projection;
        "attention" (n, d): the output projection's output, its bias included (Gemma 3: before
            post_attention_layernorm);
        "mlp" (n, d): what the MLP adds (its output bias included; Gemma 3: after
            post_feedforward_layernorm);
        "ln1_input", "ln2_input" (n, d): post-norm blocks only, the sums their two LayerNorms
            normalise (input + attention, then the first norm's output + mlp)."""
        return t


NO_PROBE = Probe()


# ---------------------------------------------------------------------------------------------
# Pieces every architecture shares.
# ---------------------------------------------------------------------------------------------
def linear(x, w, name):
    """nn.Linear: the weight is stored (out, in)."""
    return x @ w[name + ".weight"].T + w[name + ".bias"]


def conv1d(x, w, name):
    """GPT-2's Conv1D: the weight is stored (in, out), the transpose of nn.Linear's."""
    return x @ w[name + ".weight"] + w[name + ".bias"]


def layer_norm(x, w, name, eps):
    # The normalized shape from the weight, a constant, so torch.onnx can trace it (x's is symbolic).
    return torch.nn.functional.layer_norm(x, w[name + ".weight"].shape, w[name + ".weight"], w[name + ".bias"], eps)


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def gelu_tanh(x):
    """GPT-2's gelu_new: the tanh approximation."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def ablate(context, modes, causal):
    """context (H, n, k): each head's output; modes (H) of None, "zero", "mean" or a tensor (n, k)
    that replaces the head's output; a causal model's mean at position t is over positions 0..t."""
    heads = []
    for c, mode in zip(context, modes):
        if isinstance(mode, torch.Tensor):  # tested first: a tensor does not compare with a string
            assert mode.shape == c.shape, (mode.shape, c.shape)
            c = mode
        elif mode == "zero":
            c = torch.zeros_like(c)
        elif mode == "mean" and causal:
            c = c.cumsum(0) / torch.arange(1, c.shape[0] + 1, dtype=c.dtype)[:, None]
        elif mode == "mean":
            c = c.mean(0, keepdim=True).expand_as(c)
        else:
            assert mode is None, mode
        heads.append(c)
    return torch.stack(heads)


def layer_modes(ablation, layer, n_heads):
    return [(ablation or {}).get((layer, h)) for h in range(n_heads)]


def attention(q, k, v, n_heads, causal, modes=None):
    """Scaled dot-product attention over heads; q, k, v (n, d); modes as ablate()'s, or None.
    Returns (n, d) and (H, n, n)."""
    n, d = q.shape
    heads = lambda t: t.reshape(n, n_heads, d // n_heads).transpose(0, 1)  # (n, d) -> (H, n, k)
    q, k, v = heads(q), heads(k), heads(v)
    scores = q @ k.transpose(1, 2) / math.sqrt(d // n_heads)  # (H, n, n)
    if causal:
        future = torch.ones(n, n, dtype=torch.bool).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
    probs = torch.softmax(scores, dim=-1)  # (H, n, n)
    context = probs @ v  # (H, n, k)
    if modes is not None:
        context = ablate(context, modes, causal)
    context = context.transpose(0, 1).reshape(n, d)  # (n, d), heads concatenated
    return context, probs


def post_ln_encoder(x, w, layers, names, n_heads, eps, ablation, probe=NO_PROBE):
    """BERT-style blocks (LayerNorm after each residual add, erf GELU); x (n, d).

    `names` maps the block's roles (q k v o ln1 ff1 ff2 ln2) to the architecture's module names,
    so BERT, RoBERTa and DistilBERT run the same block.
    """
    attentions, inputs = [], []
    for l in range(layers):
        x = probe.residual(l, x)
        inputs.append(x)
        x, probs = post_ln_block(x, w, l, names, n_heads, eps, layer_modes(ablation, l, n_heads), probe)
        attentions.append(probs)
    return probe.residual(layers, x), torch.stack(attentions), torch.stack(inputs)


def post_ln_block(x, w, l, names, n_heads, eps, modes=None, probe=NO_PROBE):
    """Block l of post_ln_encoder; x (n, d). Returns its output (n, d) and probabilities (H, n, n)."""
    p = lambda role: f"{names['layers']}.{l}.{names[role]}"
    context, probs = attention(linear(x, w, p("q")), linear(x, w, p("k")), linear(x, w, p("v")),
                               n_heads, False, modes)
    attn = probe.see(l, "attention", linear(probe.see(l, "context", context), w, p("o")))  # (n, d)
    x = layer_norm(probe.see(l, "ln1_input", x + attn), w, p("ln1"), eps)  # (n, d)
    ff = probe.see(l, "mlp", linear(gelu_erf(linear(x, w, p("ff1"))), w, p("ff2")))  # (n, F) -> (n, d)
    return layer_norm(probe.see(l, "ln2_input", x + ff), w, p("ln2"), eps), probs


def mlm_head(h, w, dense, norm, bias, embeddings, eps):
    """Masked-LM head: dense -> erf GELU -> LayerNorm -> tied word embeddings + bias; h (n, d)."""
    t = layer_norm(gelu_erf(linear(h, w, dense)), w, norm, eps)  # (n, d)
    return t @ w[embeddings].T + w[bias]  # (n, V)


BERT_BLOCK = {"layers": "encoder.layer", "q": "attention.self.query", "k": "attention.self.key",
              "v": "attention.self.value", "o": "attention.output.dense",
              "ln1": "attention.output.LayerNorm", "ff1": "intermediate.dense",
              "ff2": "output.dense", "ln2": "output.LayerNorm"}
DISTILBERT_BLOCK = {"layers": "transformer.layer", "q": "attention.q_lin", "k": "attention.k_lin",
                    "v": "attention.v_lin", "o": "attention.out_lin", "ln1": "sa_layer_norm",
                    "ff1": "ffn.lin1", "ff2": "ffn.lin2", "ln2": "output_layer_norm"}
BLOCKS = {"bert": BERT_BLOCK, "roberta": BERT_BLOCK, "distilbert": DISTILBERT_BLOCK}
# Masked-LM heads as (dense, LayerNorm, bias) module names; a bare model has none of them.
MLM_HEADS = {
    "bert": ("cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.bias"),
    "roberta": ("lm_head.dense", "lm_head.layer_norm", "lm_head.bias"),
    "distilbert": ("vocab_transform", "vocab_layer_norm", "vocab_projector.bias"),
}
DISTILBERT_EPS = 1e-12  # hard-coded in DistilBERT; its config has no eps field


# ---------------------------------------------------------------------------------------------
# One forward per family.
# ---------------------------------------------------------------------------------------------
def masked_lm_logits(config, w, hidden, eps):
    dense, norm, bias = MLM_HEADS[config["model_type"]]
    if dense + ".weight" not in w:
        return None
    return mlm_head(hidden, w, dense, norm, bias, "embeddings.word_embeddings.weight", eps)


def bert_embeddings(w, ids, positions, eps):
    """Word + position + token-type-0 embeddings, then LayerNorm; ids and positions (n) tensors."""
    x = (w["embeddings.word_embeddings.weight"][ids]              # (n, d)
         + w["embeddings.position_embeddings.weight"][positions]  # (n, d)
         + w["embeddings.token_type_embeddings.weight"][0])       # (d,)
    return layer_norm(x, w, "embeddings.LayerNorm", eps)


def bert_like_forward(config, w, ids, positions, ablation, probe=NO_PROBE):
    """BERT and RoBERTa: word + position + token-type-0 embeddings, LayerNorm, post-LN blocks."""
    eps = norm_eps(config)
    x = bert_embeddings(w, torch.tensor(ids), positions, eps)
    hidden, attn, inputs = post_ln_encoder(x, w, config["num_hidden_layers"], BERT_BLOCK,
                                           config["num_attention_heads"], eps, ablation, probe)
    return Trace(attn, inputs, *readout(config, w, hidden))


def bert_forward(config, w, ids, ablation, probe=NO_PROBE):
    return bert_like_forward(config, w, ids, torch.arange(len(ids)), ablation, probe)


def roberta_forward(config, w, ids, ablation, probe=NO_PROBE):
    # Positions count from padding_idx + 1 (RoBERTa's create_position_ids_from_input_ids; with no
    # padding in the input every token is counted).
    start = config["pad_token_id"] + 1
    return bert_like_forward(config, w, ids, torch.arange(start, start + len(ids)), ablation, probe)


def distilbert_forward(config, w, ids, ablation, probe=NO_PROBE):
    ids = torch.tensor(ids)
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:len(ids)]
    x = layer_norm(x, w, "embeddings.LayerNorm", DISTILBERT_EPS)  # (n, d); no token types
    hidden, attn, inputs = post_ln_encoder(x, w, config["n_layers"], DISTILBERT_BLOCK,
                                           config["n_heads"], DISTILBERT_EPS, ablation, probe)
    return Trace(attn, inputs, *readout(config, w, hidden))


def gpt2_forward(config, w, ids, ablation, probe=NO_PROBE):
    """Pre-LN causal blocks, tanh GELU, final ln_f, LM head tied to wte without a bias."""
    ids = torch.tensor(ids)
    x = gpt2_embeddings(w, ids, torch.arange(len(ids)))  # (n, d)
    attentions, inputs = [], []
    for l in range(config["n_layer"]):
        x = probe.residual(l, x)
        x, a, probs = gpt2_block(x, w, l, config, layer_modes(ablation, l, config["n_head"]), probe)
        inputs.append(a)
        attentions.append(probs)
    x = probe.residual(config["n_layer"], x)
    return Trace(torch.stack(attentions), torch.stack(inputs), *readout(config, w, x))


def gpt2_embeddings(w, ids, positions):
    """Token + position embeddings; ids and positions (n) tensors. Returns (n, d)."""
    return w["wte.weight"][ids] + w["wpe.weight"][positions]


def gpt2_block(x, w, l, config, modes=None, probe=NO_PROBE):
    """Block l of GPT-2; x (n, d). Returns its output (n, d), what its attention read (n, d: ln_1
    of x) and its probabilities (H, n, n)."""
    eps, d = norm_eps(config), config["n_embd"]
    a = layer_norm(x, w, f"h.{l}.ln_1", eps)  # (n, d): what attention reads
    qkv = conv1d(a, w, f"h.{l}.attn.c_attn")  # (n, 3d) = Q | K | V
    context, probs = attention(qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:], config["n_head"], True, modes)
    x = x + probe.see(l, "attention", conv1d(probe.see(l, "context", context), w, f"h.{l}.attn.c_proj"))
    m = layer_norm(x, w, f"h.{l}.ln_2", eps)
    mlp = conv1d(gelu_tanh(conv1d(m, w, f"h.{l}.mlp.c_fc")), w, f"h.{l}.mlp.c_proj")  # (n, 4d) -> (n, d)
    return x + probe.see(l, "mlp", mlp), a, probs


# ---------------------------------------------------------------------------------------------
# Rotary decoders: Llama (modeling_llama.py) and the families written after it. Weights are named
# as LlamaForCausalLM's without the "model." prefix: embed_tokens.weight,
# layers.N.self_attn.q_proj.weight, layers.N.mlp.gate_proj.weight, norm.weight, and lm_head.weight
# (absent when tie_word_embeddings ties the head to embed_tokens).
# ---------------------------------------------------------------------------------------------
def rms_norm(x, weight, eps):
    """LlamaRMSNorm: x / sqrt(mean(x^2) + eps) * weight."""
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rope_parameters(config):
    """(theta, partial_rotary_factor, scaling dict or None) from the v4 fields (rope_theta,
    partial_rotary_factor, rope_scaling) or v5's rope_parameters."""
    if config.get("rope_parameters") is not None:
        p = config["rope_parameters"]
        fraction = p.get("partial_rotary_factor", config.get("partial_rotary_factor", 1.0))
        return p.get("rope_theta", 10000.0), fraction, p
    return config.get("rope_theta", 10000.0), config.get("partial_rotary_factor", 1.0), config.get("rope_scaling")


def rope_inv_freq(theta, dim, scaling):
    """modeling_rope_utils.py: _compute_default_rope_parameters, then linear or llama3 scaling."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    kind = (scaling or {}).get("rope_type", (scaling or {}).get("type", "default"))
    if kind == "linear":
        return inv_freq / scaling["factor"]
    if kind == "llama3":  # _compute_llama3_parameters
        factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
        old = scaling["original_max_position_embeddings"]
        wavelen = 2 * math.pi / inv_freq
        scaled = torch.where(wavelen > old / low, inv_freq / factor, inv_freq)
        smooth = (old / wavelen - low) / (high - low)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = ~(wavelen < old / high) & ~(wavelen > old / low)
        return torch.where(medium, smoothed, scaled)
    assert kind == "default", kind
    return inv_freq


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x, inv_freq):
    """x (heads, n, dh): the first 2·len(inv_freq) dimensions rotated by position, rotate_half's
    pairing (i, i + r/2); the rest pass through."""
    r = 2 * len(inv_freq)
    angles = torch.arange(x.shape[1], dtype=torch.float64)[:, None] * inv_freq[None, :]  # (n, r/2)
    emb = torch.cat((angles, angles), dim=-1).to(x.dtype)
    rot, rest = x[..., :r], x[..., r:]
    return torch.cat((rot * emb.cos() + rotate_half(rot) * emb.sin(), rest), dim=-1)


def grouped_attention(q, k, v, modes=None, window=None, scale=None, softcap=None):
    """q (H, n, dh), k and v (KV, n, dh); query head h reads key/value head h // (H / KV)
    (repeat_kv). Causal; with a window, query i sees keys i - window + 1 .. i only (masking_utils'
    sliding window). Scores are scaled by `scale` (default dh^-1/2), then soft-capped as Gemma's
    attn_logit_softcapping does when `softcap` is set. Returns the heads' outputs concatenated
    (n, H·dh) and (H, n, n)."""
    H, n, dh = q.shape
    # repeat_kv's expand and reshape, whose sizes an ONNX trace keeps symbolic (repeat_interleave's
    # it fixes to the traced length)
    k, v = (t[:, None].expand(-1, H // t.shape[0], -1, -1).reshape(H, n, dh) for t in (k, v))
    scores = q @ k.transpose(1, 2) * (dh ** -0.5 if scale is None else scale)
    if softcap:
        scores = torch.tanh(scores / softcap) * softcap
    hidden = torch.ones(n, n, dtype=torch.bool).triu(1)
    if window:
        hidden |= torch.ones(n, n, dtype=torch.bool).tril(-window)
    scores = scores.masked_fill(hidden, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    context = probs @ v  # (H, n, dh)
    if modes is not None:
        context = ablate(context, modes, causal=True)
    return context.transpose(0, 1).reshape(n, H * dh), probs


def optional_linear(x, w, name):
    """nn.Linear with or without a bias."""
    y = x @ w[name + ".weight"].T
    return y + w[name + ".bias"] if name + ".bias" in w else y


def llama_rope(config):
    """inv_freq of a Llama-family config (LlamaRotaryEmbedding, with its scaling)."""
    dh = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    theta, fraction, scaling = rope_parameters(config)
    return rope_inv_freq(theta, int(dh * fraction), scaling)


def llama_block(x, w, l, config, inv_freq, modes=None, probe=NO_PROBE):
    """One LlamaDecoderLayer (and Qwen2's, Mistral's, Qwen3's): x (n, d) -> (x, the attention's
    input after input_layernorm, probabilities (H, n, n))."""
    H = config["num_attention_heads"]
    KV = config.get("num_key_value_heads") or H
    dh = config.get("head_dim") or config["hidden_size"] // H
    eps = norm_eps(config)
    act = {"silu": torch.nn.functional.silu, "gelu": gelu_erf, "gelu_pytorch_tanh": gelu_tanh}[config.get("hidden_act", "silu")]
    n = x.shape[0]
    p = f"layers.{l}."
    a = rms_norm(x, w[p + "input_layernorm.weight"], eps)
    heads = lambda t, count: t.reshape(n, count, dh).transpose(0, 1)  # (n, count·dh) -> (count, n, dh)
    q, k = heads(optional_linear(a, w, p + "self_attn.q_proj"), H), heads(optional_linear(a, w, p + "self_attn.k_proj"), KV)
    if config["model_type"] == "qwen3":  # Qwen3Attention: q_norm and k_norm over head_dim, before RoPE
        q, k = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps), rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
    q, k = apply_rope(q, inv_freq), apply_rope(k, inv_freq)
    v = heads(optional_linear(a, w, p + "self_attn.v_proj"), KV)
    window = config.get("sliding_window", 4096) if config["model_type"] == "mistral" else None
    context, probs = grouped_attention(q, k, v, modes, window)
    x = x + probe.see(l, "attention", optional_linear(probe.see(l, "context", context), w, p + "self_attn.o_proj"))
    m = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
    mlp = optional_linear(act(optional_linear(m, w, p + "mlp.gate_proj")) * optional_linear(m, w, p + "mlp.up_proj"),
                          w, p + "mlp.down_proj")
    return x + probe.see(l, "mlp", mlp), a, probs


def llama_forward(config, w, ids, ablation, probe=NO_PROBE):
    """LlamaForCausalLM (and Qwen2ForCausalLM, which adds q/k/v biases, MistralForCausalLM,
    whose every layer has config's sliding window, and Qwen3ForCausalLM, which normalises each
    head's queries and keys before RoPE): RMSNorm pre-norm blocks, grouped-query attention with
    RoPE, down(act(gate(x)) * up(x)), a final norm."""
    inv_freq = llama_rope(config)
    x = w["embed_tokens.weight"][torch.tensor(ids)]  # (n, d)
    attentions, inputs = [], []
    for l in range(config["num_hidden_layers"]):
        x = probe.residual(l, x)
        modes = layer_modes(ablation, l, config["num_attention_heads"])
        x, a, probs = llama_block(x, w, l, config, inv_freq, modes, probe)
        inputs.append(a)
        attentions.append(probs)
    x = probe.residual(config["num_hidden_layers"], x)
    return Trace(torch.stack(attentions), torch.stack(inputs), *readout(config, w, x))


def gpt_neox_forward(config, w, ids, ablation, probe=NO_PROBE):
    """GPTNeoXForCausalLM (Pythia): parallel blocks, x + attention(input_layernorm(x)) +
    mlp(post_attention_layernorm(x)); query_key_value's output viewed as (n, H, 3·dh), so each head's
    q, k and v are its three consecutive dh-wide blocks; RoPE on the first rotary_pct of each head
    (rotary_emb_base); erf GELU; final_layer_norm; embed_out, untied."""
    H, d = config["num_attention_heads"], config["hidden_size"]
    dh, eps = d // H, norm_eps(config)
    inv_freq = rope_inv_freq(config.get("rotary_emb_base", 10000.0), int(dh * config.get("rotary_pct", 0.25)),
                             config.get("rope_scaling"))
    x = w["embed_in.weight"][torch.tensor(ids)]
    n = x.shape[0]
    attentions, inputs = [], []
    for l in range(config["num_hidden_layers"]):
        p = f"layers.{l}."
        x = probe.residual(l, x)
        a = layer_norm(x, w, p + "input_layernorm", eps)
        qkv = linear(a, w, p + "attention.query_key_value").reshape(n, H, 3 * dh).transpose(0, 1)  # (H, n, 3·dh)
        q, k, v = apply_rope(qkv[..., :dh], inv_freq), apply_rope(qkv[..., dh:2 * dh], inv_freq), qkv[..., 2 * dh:]
        context, probs = grouped_attention(q, k, v, layer_modes(ablation, l, H))
        m = layer_norm(x, w, p + "post_attention_layernorm", eps)
        mlp = probe.see(l, "mlp", linear(gelu_erf(linear(m, w, p + "mlp.dense_h_to_4h")), w, p + "mlp.dense_4h_to_h"))
        x = mlp + probe.see(l, "attention", linear(probe.see(l, "context", context), w, p + "attention.dense")) + x
        inputs.append(a)
        attentions.append(probs)
    x = probe.residual(config["num_hidden_layers"], x)
    return Trace(torch.stack(attentions), torch.stack(inputs), *readout(config, w, x))


def gemma_rms_norm(x, weight, eps):
    """Gemma3RMSNorm: as LlamaRMSNorm but multiplying by (1 + weight)."""
    return (1.0 + weight) * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def gemma3_layer_types(config):
    """Gemma3TextConfig: layer_types, or from the older sliding_window_pattern (default 6): layer
    i slides unless (i + 1) is a multiple of the pattern."""
    if config.get("layer_types"):
        return config["layer_types"]
    pattern = config.get("sliding_window_pattern", 6)
    return ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(config["num_hidden_layers"])]


def gemma3_rope(config, layer_type, dh):
    """inv_freq of a layer type: v5's rope_parameters[layer_type], or v4's rope_theta (and
    rope_scaling) for full attention and rope_local_base_freq for sliding layers."""
    if config.get("rope_parameters") is not None:
        p = config["rope_parameters"].get(layer_type, config["rope_parameters"])
        return rope_inv_freq(p.get("rope_theta", 10000.0), int(dh * p.get("partial_rotary_factor", 1.0)), p)
    if layer_type == "sliding_attention":
        return rope_inv_freq(config.get("rope_local_base_freq", 10000.0), dh, None)
    return rope_inv_freq(config.get("rope_theta", 1000000.0), dh, config.get("rope_scaling"))


def gemma3_forward(config, w, ids, ablation, embed_dtype=None, probe=NO_PROBE):
    """Gemma3ForCausalLM: embeddings times sqrt(hidden) rounded to the embeddings' stored dtype;
    per layer input_layernorm, attention (q_norm and k_norm before RoPE, scores scaled by
    query_pre_attn_scalar^-1/2, a sliding window on sliding layers with their own RoPE base),
    post_attention_layernorm on the attention's output before the residual add, then
    pre_feedforward_layernorm, a gated tanh-GELU MLP and post_feedforward_layernorm; every norm
    multiplies by (1 + w); a final norm, and the head tied to embed_tokens. `embed_dtype` is the
    stored dtype of embed_tokens (the reference weights are float64)."""
    H = config["num_attention_heads"]
    KV = config.get("num_key_value_heads", H)
    dh = config.get("head_dim", 256)
    eps = norm_eps(config)
    act = {"gelu_pytorch_tanh": gelu_tanh, "gelu": gelu_erf}[config.get("hidden_activation", "gelu_pytorch_tanh")]
    scale = config.get("query_pre_attn_scalar", 256) ** -0.5
    types = gemma3_layer_types(config)
    rope = {t: gemma3_rope(config, t, dh) for t in set(types)}
    normalizer = torch.tensor(config["hidden_size"] ** 0.5, dtype=embed_dtype or torch.float64).to(torch.float64)
    x = w["embed_tokens.weight"][torch.tensor(ids)] * normalizer  # (n, d)
    n = x.shape[0]
    attentions, inputs = [], []
    for l in range(config["num_hidden_layers"]):
        p = f"layers.{l}."
        x = probe.residual(l, x)
        a = gemma_rms_norm(x, w[p + "input_layernorm.weight"], eps)
        heads = lambda t, count: t.reshape(n, count, dh).transpose(0, 1)
        q = gemma_rms_norm(heads(a @ w[p + "self_attn.q_proj.weight"].T, H), w[p + "self_attn.q_norm.weight"], eps)
        k = gemma_rms_norm(heads(a @ w[p + "self_attn.k_proj.weight"].T, KV), w[p + "self_attn.k_norm.weight"], eps)
        v = heads(a @ w[p + "self_attn.v_proj.weight"].T, KV)
        q, k = apply_rope(q, rope[types[l]]), apply_rope(k, rope[types[l]])
        window = config.get("sliding_window", 4096) if types[l] == "sliding_attention" else None
        context, probs = grouped_attention(q, k, v, layer_modes(ablation, l, H), window, scale,
                                           config.get("attn_logit_softcapping"))
        o = probe.see(l, "attention", probe.see(l, "context", context) @ w[p + "self_attn.o_proj.weight"].T)
        x = x + gemma_rms_norm(o, w[p + "post_attention_layernorm.weight"], eps)
        m = gemma_rms_norm(x, w[p + "pre_feedforward_layernorm.weight"], eps)
        mlp = (act(m @ w[p + "mlp.gate_proj.weight"].T) * (m @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
        x = x + probe.see(l, "mlp", gemma_rms_norm(mlp, w[p + "post_feedforward_layernorm.weight"], eps))
        inputs.append(a)
        attentions.append(probs)
    x = probe.residual(config["num_hidden_layers"], x)
    return Trace(torch.stack(attentions), torch.stack(inputs), *readout(config, w, x))


# ---------------------------------------------------------------------------------------------
# What every family shares after its layers, and where a layer's pieces are: one home for the
# forwards above and for the interpretability references built on them.
# ---------------------------------------------------------------------------------------------
def norm_eps(config):
    """The epsilon of every norm of the model: its family's config field, or the default the
    Hugging Face class uses without one."""
    family = config["model_type"]
    if family == "distilbert":
        return DISTILBERT_EPS
    if family == "gpt2":
        return config["layer_norm_epsilon"]
    if family in ("bert", "roberta"):
        return config["layer_norm_eps"]
    if family == "gpt_neox":
        return config.get("layer_norm_eps", 1e-5)
    if family == "gemma3_text":
        return config.get("rms_norm_eps", 1e-6)
    return config["rms_norm_eps"]


# The final norm of each pre-norm family: (kind, module name); kind "layer" is a LayerNorm,
# "rms" LlamaRMSNorm, "gemma_rms" Gemma3RMSNorm (scale 1 + w).
FINAL_NORMS = {"gpt2": ("layer", "ln_f"), "gpt_neox": ("layer", "final_layer_norm"),
               "gemma3_text": ("gemma_rms", "norm"), "llama": ("rms", "norm"), "qwen2": ("rms", "norm"),
               "mistral": ("rms", "norm"), "qwen3": ("rms", "norm")}


def unembedding(config, w):
    """(V, d): the rows the LM head takes its dot products with (a masked-LM head's after its
    transform), or None without an LM head."""
    family = config["model_type"]
    if family in BLOCKS:
        return w["embeddings.word_embeddings.weight"] if MLM_HEADS[family][0] + ".weight" in w else None
    if family == "gpt2":
        return w["wte.weight"]
    if family == "gpt_neox":
        return w.get("embed_out.weight")
    if family == "gemma3_text":
        return w["embed_tokens.weight"]
    return w.get("lm_head.weight", w["embed_tokens.weight"] if config.get("tie_word_embeddings") else None)


def readout(config, w, x):
    """x (n, d): the residual stream after the last layer. Returns (hidden (n, d), logits (n, V) or
    None): pre-norm models apply their final norm and LM head (Gemma 3 soft-caps the logits);
    the BERT family's blocks end normalised, so hidden is x and the logits are the masked-LM
    head's."""
    family, eps = config["model_type"], norm_eps(config)
    if family in BLOCKS:
        return x, masked_lm_logits(config, w, x, eps)
    kind, name = FINAL_NORMS[family]
    if kind == "layer":
        hidden = layer_norm(x, w, name, eps)
    else:
        hidden = (gemma_rms_norm if kind == "gemma_rms" else rms_norm)(x, w[name + ".weight"], eps)
    head = unembedding(config, w)
    if head is None:
        return hidden, None
    logits = hidden @ head.T  # (n, V)
    if config.get("final_logit_softcapping"):
        cap = config["final_logit_softcapping"]
        logits = torch.tanh(logits / cap) * cap
    return hidden, logits


def output_projection(config, w, l):
    """Layer l's attention output projection as (weight (H·k, d) in (in, out) layout, so rows
    h·k .. (h+1)·k are head h's; bias (d) or None)."""
    family = config["model_type"]
    if family == "gpt2":  # Conv1D: stored (in, out) already
        return w[f"h.{l}.attn.c_proj.weight"], w[f"h.{l}.attn.c_proj.bias"]
    if family in BLOCKS:
        name = f"{BLOCKS[family]['layers']}.{l}.{BLOCKS[family]['o']}"
    elif family == "gpt_neox":
        name = f"layers.{l}.attention.dense"
    else:
        name = f"layers.{l}.self_attn.o_proj"
    return w[name + ".weight"].T, w.get(name + ".bias")


FORWARDS = {"bert": bert_forward, "distilbert": distilbert_forward, "roberta": roberta_forward,
            "gpt2": gpt2_forward, "llama": llama_forward, "qwen2": llama_forward, "mistral": llama_forward,
            "qwen3": llama_forward, "gemma3_text": gemma3_forward, "gpt_neox": gpt_neox_forward}


def forward(config, weights, ids, ablation=None, stored_dtype=None, probe=NO_PROBE):
    """Dispatch on config["model_type"]; weights are float tensors of one dtype. `stored_dtype`,
    the checkpoint's, matters only to Gemma 3 (its embedding scale is rounded to it)."""
    with torch.no_grad():
        if config["model_type"] == "gemma3_text":
            return gemma3_forward(config, weights, ids, ablation, stored_dtype, probe)
        return FORWARDS[config["model_type"]](config, weights, ids, ablation, probe)
