"""SentencePiece models and the tokenizer files the Hub's repositories ship them as, for the
encoder-decoder fixtures (tools/make_seq2seq_checkpoints.py).

    train_unigram(lines, vocab_size, ...)   a unigram model trained by the `sentencepiece` package,
                                            as the bytes of its serialized ModelProto (spiece.model,
                                            source.spm, target.spm)
    read_model(data)                        the fields of a ModelProto a converter reads
    t5_tokenizer_json(model, extra_ids)     tokenizer.json as transformers' T5Converter (an
                                            SpmConverter) writes it for a unigram model
    marian_vocab(source, target)            vocab.json as Helsinki-NLP's repositories have it

The reader is a small parser of the protobuf wire format that knows the fields of
sentencepiece_model.proto listed in SCHEMAS. It checks the shape of the whole input: every field of
every message, known or not, must be well formed and end inside its message, a known field must
have its declared wire type, and the file must be below MAX_MODEL_BYTES.

What it deliberately does not do: no protobuf package and no generated classes; no BPE, WORD or CHAR
models, no byte fallback, no user-defined symbols (the fixtures' models have none, and the
converters below refuse them rather than guess); no encoding of text: that is the `sentencepiece`
package's, and @huggingface/tokenizers' for tokenizer.json.
"""
import base64
import io
import struct
from typing import NamedTuple

import sentencepiece

MAX_MODEL_BYTES = 16 * 2 ** 20  # T5's spiece.model is 0.8 MB, Llama 2's 0.5 MB
METASPACE = "\u2581"  # "▁", SentencePiece's stand-in for a space

# SentencePiece.Type (sentencepiece_model.proto)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
UNIGRAM = 1  # TrainerSpec.ModelType

# The fields read, by message: number -> (name, kind, default). A kind is the value's protobuf type;
# "repeated:<Message>" and "message:<Message>" are nested messages. Fields not listed are checked
# for shape and skipped.
SCHEMAS = {
    "ModelProto": {1: ("pieces", "repeated:SentencePiece", ()), 2: ("trainer_spec", "message:TrainerSpec", None),
                   3: ("normalizer_spec", "message:NormalizerSpec", None)},
    "SentencePiece": {1: ("piece", "string", ""), 2: ("score", "float", 0.0), 3: ("type", "enum", NORMAL)},
    "TrainerSpec": {3: ("model_type", "enum", UNIGRAM), 4: ("vocab_size", "int32", 8000),
                    35: ("byte_fallback", "bool", False), 40: ("unk_id", "int32", 0), 41: ("bos_id", "int32", 1),
                    42: ("eos_id", "int32", 2), 43: ("pad_id", "int32", -1), 45: ("unk_piece", "string", "<unk>"),
                    46: ("bos_piece", "string", "<s>"), 47: ("eos_piece", "string", "</s>"),
                    48: ("pad_piece", "string", "<pad>")},
    "NormalizerSpec": {1: ("name", "string", ""), 2: ("precompiled_charsmap", "bytes", b""),
                       3: ("add_dummy_prefix", "bool", True), 4: ("remove_extra_whitespaces", "bool", True),
                       5: ("escape_whitespaces", "bool", True)},
}
WIRE_TYPE = {"string": 2, "bytes": 2, "float": 5, "enum": 0, "int32": 0, "bool": 0}  # messages: 2


class Piece(NamedTuple):
    piece: str
    score: float
    type: int


class Model(NamedTuple):
    """What read_model gives: the pieces in id order and the two specs as {field name: value}, every
    field of SCHEMAS present (the proto's default where the file leaves it out)."""
    pieces: list        # [Piece], index = id
    trainer_spec: dict
    normalizer_spec: dict


# ---------------------------------------------------------------------------------------------
# Training
# ---------------------------------------------------------------------------------------------
def train_unigram(lines, vocab_size, *, unk_id, bos_id, eos_id, pad_id, seed):
    """A unigram model trained on `lines` (one sentence each) with the default nmt_nfkc
    normalization, as the bytes of its ModelProto. One thread and a fixed seed make the bytes the
    same on every run; the text goes in through an iterator and the model comes out through a
    writer, so no file name is recorded in the trainer_spec. Every character of `lines` is kept
    (character_coverage 1.0, as OPUS-MT trains on a small alphabet), and vocab_size is a hard limit:
    the trainer refuses a size the text cannot fill."""
    sentencepiece.set_random_generator_seed(seed)
    model = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=model, model_type="unigram", vocab_size=vocab_size,
        normalization_rule_name="nmt_nfkc", character_coverage=1.0, num_threads=1,
        unk_id=unk_id, bos_id=bos_id, eos_id=eos_id, pad_id=pad_id, minloglevel=2)
    return model.getvalue()


# ---------------------------------------------------------------------------------------------
# Reading: the protobuf wire format (varints, 4- and 8-byte values, length-delimited bytes).
# ---------------------------------------------------------------------------------------------
def read_varint(data, pos, end):
    value = shift = 0
    while True:
        if pos >= end:
            raise ValueError(f"a varint at byte {pos} runs past the end of its message (byte {end})")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise ValueError(f"a varint ending at byte {pos} is longer than 10 bytes")


def wire_fields(data, start, end):
    """(number, wire type, value) of each field of the message in data[start:end]: an int for a
    varint, else the field's bytes. Every field must end inside the message."""
    pos = start
    while pos < end:
        key, pos = read_varint(data, pos, end)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ValueError(f"field number 0 at byte {pos}")
        if wire == 0:
            value, pos = read_varint(data, pos, end)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            if pos + size > end:
                raise ValueError(f"field {number}'s {size} bytes at byte {pos} run past the end of its message (byte {end})")
            value, pos = data[pos:pos + size], pos + size
        elif wire == 2:
            size, pos = read_varint(data, pos, end)
            if pos + size > end:
                raise ValueError(f"field {number}'s {size} bytes at byte {pos} run past the end of its message (byte {end})")
            value, pos = data[pos:pos + size], pos + size
        else:
            raise ValueError(f"field {number} at byte {pos} has wire type {wire} (groups are not used by sentencepiece_model.proto)")
        yield number, wire, value


def as_int32(varint):
    """A varint as int32: negative values are written as 10-byte two's complement."""
    value = varint - 2 ** 64 if varint >= 2 ** 63 else varint
    if not -2 ** 31 <= value < 2 ** 31:
        raise ValueError(f"{value} is not an int32")
    return value


def read_message(data, name, start=0, end=None):
    schema = SCHEMAS[name]
    end = len(data) if end is None else end
    out = {field: default for field, _, default in schema.values()}
    for field, kind, _ in schema.values():
        if kind.startswith("repeated:"):
            out[field] = []
    for number, wire, value in wire_fields(data, start, end):
        if number not in schema:
            continue
        field, kind, _ = schema[number]
        want = 2 if ":" in kind else WIRE_TYPE[kind]
        if wire != want:
            raise ValueError(f"{name}.{field} (field {number}) has wire type {wire}, expected {want}")
        if ":" in kind:
            nested = read_message(bytes(value), kind.split(":")[1])
            if kind.startswith("repeated:"):
                out[field].append(nested)
            else:
                out[field] = nested
        elif kind == "string":
            out[field] = bytes(value).decode("utf-8")
        elif kind == "bytes":
            out[field] = bytes(value)
        elif kind == "float":
            out[field] = struct.unpack("<f", value)[0]
        elif kind == "bool":
            out[field] = value != 0
        else:
            out[field] = as_int32(value)
    return out


def read_model(data):
    """A serialized ModelProto's pieces, trainer_spec and normalizer_spec, checked: at least one
    piece, each a non-empty string of a known type, and an unknown piece where unk_id says."""
    if len(data) > MAX_MODEL_BYTES:
        raise ValueError(f"the model has {len(data)} bytes, above the limit of {MAX_MODEL_BYTES}")
    proto = read_message(memoryview(data), "ModelProto")
    empty = lambda name: read_message(b"", name)
    trainer = proto["trainer_spec"] or empty("TrainerSpec")
    normalizer = proto["normalizer_spec"] or empty("NormalizerSpec")
    pieces = [Piece(p["piece"], p["score"], p["type"]) for p in proto["pieces"]]
    if not pieces:
        raise ValueError("the model has no pieces")
    for i, p in enumerate(pieces):
        if not p.piece or p.type not in (NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE):
            raise ValueError(f"piece {i} ({p.piece!r}) is empty or has an unknown type {p.type}")
    unk = trainer["unk_id"]
    if not 0 <= unk < len(pieces) or pieces[unk].type != UNKNOWN:
        raise ValueError(f"unk_id {unk} does not name the model's unknown piece")
    return Model(pieces, trainer, normalizer)


# ---------------------------------------------------------------------------------------------
# tokenizer.json: SpmConverter's layout for a unigram model, with T5Converter's vocabulary and
# post-processor (transformers/convert_slow_tokenizer.py).
# ---------------------------------------------------------------------------------------------
def added_token(i, content):
    # Normalized false and special true: how the converter adds control pieces, and how the fast
    # tokenizer adds its special tokens (<unk>, the sentinels).
    return {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": True}


def spm_normalizer(model):
    """SpmConverter.normalizer: the charsmap first (base64, as the Rust library writes bytes), then
    the trailing whitespace stripped and runs of spaces made one "▁", which is what sentencepiece's
    remove_extra_whitespaces leaves of them once the Metaspace step has turned the rest into "▁"."""
    steps = [{"type": "Strip", "strip_left": False, "strip_right": True},
             {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": METASPACE}]
    charsmap = model.normalizer_spec["precompiled_charsmap"]
    if charsmap:
        steps.insert(0, {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode("ascii")})
    return {"type": "Sequence", "normalizers": steps}


def metaspace():
    # prepend_scheme "always": the converter's for add_prefix_space and a legacy tokenizer (T5's
    # default); split true is the Rust default the converter leaves.
    return {"type": "Metaspace", "replacement": METASPACE, "prepend_scheme": "always", "split": True}


def t5_tokenizer_json(model, extra_ids):
    """T5's tokenizer.json: the model's pieces and scores in id order, then `extra_ids` sentinels
    counting down (<extra_id_{extra_ids-1}> first, <extra_id_0> the last id), each scored 0; the
    control and unknown pieces (<pad>, </s>, <unk>) and the sentinels as special added tokens; and
    "$A </s>" after a text."""
    trainer = model.trainer_spec
    if trainer["model_type"] != UNIGRAM or trainer["byte_fallback"]:
        raise ValueError("t5_tokenizer_json converts a unigram model without byte fallback, as T5's")
    if any(p.type in (USER_DEFINED, BYTE, UNUSED) for p in model.pieces):
        raise ValueError("t5_tokenizer_json converts a model of normal, control and unknown pieces only")
    vocab = [[p.piece, p.score] for p in model.pieces] + [[f"<extra_id_{i}>", 0.0] for i in reversed(range(extra_ids))]
    ids = {piece: i for i, (piece, _) in enumerate(vocab)}
    if len(ids) != len(vocab):
        raise ValueError("the model's pieces and the sentinels are not all different")
    specials = [i for i, p in enumerate(model.pieces) if p.type in (CONTROL, UNKNOWN)] + list(range(len(model.pieces), len(vocab)))
    eos = "</s>"
    sequence = lambda s: {"Sequence": {"id": s, "type_id": 0}}
    closing = {"SpecialToken": {"id": eos, "type_id": 0}}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [added_token(i, vocab[i][0]) for i in specials],
        "normalizer": spm_normalizer(model),
        "pre_tokenizer": metaspace(),
        # Template pieces written without ":1" all get type id 0, B's too.
        "post_processor": {"type": "TemplateProcessing", "single": [sequence("A"), closing],
                           "pair": [sequence("A"), closing, sequence("B"), closing],
                           "special_tokens": {eos: {"id": eos, "ids": [ids[eos]], "tokens": [eos]}}},
        "decoder": metaspace(),
        "model": {"type": "Unigram", "unk_id": trainer["unk_id"], "vocab": vocab, "byte_fallback": False},
    }


# ---------------------------------------------------------------------------------------------
# Marian: one vocabulary over two SentencePiece models
# ---------------------------------------------------------------------------------------------
def marian_vocab(source, target):
    """vocab.json of a Helsinki-NLP repository: "</s>" 0 and "<unk>" 1, then every normal piece of
    the source model and then those of the target model it lacks, each in id order, and "<pad>" as
    the last id (where transformers' Marian converter puts it). The models' own control and unknown
    pieces are left out: Marian's vocabulary has its own, and MarianTokenizer maps text through it,
    never through the models' ids."""
    tokens = ["</s>", "<unk>"]
    for model in (source, target):
        tokens += [p.piece for p in model.pieces if p.type == NORMAL]
    tokens = list(dict.fromkeys(tokens)) + ["<pad>"]
    return {t: i for i, t in enumerate(tokens)}
