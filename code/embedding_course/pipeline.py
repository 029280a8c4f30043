"""The model's input, end to end: text -> IDs -> token vectors (x scale) + positions -> dropout.

    ids (B, T) --token table--> (B, T, C) --x sqrt(C)--> (B, T, C)
                                                  + positions (T, C), broadcast over B
                                                  --dropout--> (B, T, C)

:class:`InputEmbedding` is that layer as an ``nn.Module``; :func:`trace_pipeline`
records the tensor after every step (for the lesson's step slider); :func:`measure_scale`
shows what the ``sqrt(d_model)`` scale really does to the variance. Why positions are needed
at all (attention without them cannot see word order) is in :mod:`embedding_course.attention_order`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from embedding_course import SEED, checks
from embedding_course.batching import Batch, encode_batch
from embedding_course.device import pick_device
from embedding_course.positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding
from embedding_course.similarity import row_norms
from embedding_course.tokens import WordVocabulary

POSITION_KINDS = ("sinusoidal", "learned", "none")


class InputEmbedding(nn.Module):
    """Token table + (optional) ``sqrt(d_model)`` scale + position vectors + dropout.

    Args:
        vocab_size: rows of the token table.
        d_model: width C of every vector (even for sinusoidal positions).
        max_len: rows of the position table (a learned table has no row past it).
        positions: ``"sinusoidal"``, ``"learned"`` or ``"none"``/``None`` (no positions,
            to show what attention loses without them).
        scale: multiply the token vectors by ``sqrt(d_model)`` before adding positions.
        dropout: probability of zeroing an entry of the sum (only in training mode).
        padding_idx: a token ID whose row stays zero and gets no gradient (e.g. ``<pad>``).
        init_std: std of the token (and learned position) tables' normal start; ``None``
            keeps PyTorch's default N(0, 1). ``d_model ** -0.5`` is the choice that makes
            the scaled token vectors have unit variance.
        base: the sinusoidal base (10000).
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        max_len: int,
        positions: str | None = "sinusoidal",
        scale: bool = True,
        dropout: float = 0.1,
        padding_idx: int | None = None,
        init_std: float | None = None,
        base: float = 10000.0,
    ):
        super().__init__()
        vocab_size = checks.whole(vocab_size, "vocab_size", hint="the number of tokens")
        d_model = checks.whole(d_model, "d_model")
        max_len = checks.whole(max_len, "max_len", hint="the number of positions")
        positions = "none" if positions is None else positions
        checks.one_of(positions, "positions", POSITION_KINDS, hint="or None, which is none")
        dropout = checks.probability(dropout, "dropout")
        padding_idx = checks.optional_index(padding_idx, "padding_idx", vocab_size, of="the vocabulary")
        init_std = checks.optional_positive(init_std, "init_std", hint="or None for PyTorch's N(0, 1)")

        self.vocab_size, self.d_model, self.max_len = vocab_size, d_model, max_len
        self.position_kind, self.scale, self.init_std = positions, bool(scale), init_std
        # what ``scale=True`` multiplies the token vectors by: sqrt(d_model); 1 without the scale
        self.token_multiplier = math.sqrt(d_model) if scale else 1.0
        self.tokens = nn.Embedding(vocab_size, d_model, padding_idx=padding_idx)
        if init_std is not None:
            with torch.no_grad():
                self.tokens.weight.normal_(0.0, init_std)
                if padding_idx is not None:
                    self.tokens.weight[padding_idx].zero_()
        if positions == "sinusoidal":
            self.positions = SinusoidalPositionalEncoding(max_len, d_model, base)
        elif positions == "learned":
            self.positions = LearnedPositionalEmbedding(max_len, d_model, init_std)
        else:
            self.positions = None
        self.dropout = nn.Dropout(dropout)

    def check_ids(self, ids) -> torch.Tensor:
        """Validate a (B, T) batch of token IDs and return it as an int64 tensor on the model's device."""
        checked = checks.token_ids(ids, self.vocab_size, ndim=2)  # (B, T)
        return torch.as_tensor(checked, device=self.tokens.weight.device)

    def stages(self, ids) -> dict[str, torch.Tensor]:
        """Every intermediate tensor, by name, in pipeline order.

        Without positions, "position vectors" is absent and "sum" is the
        scaled token vectors.
        """
        ids = self.check_ids(ids)  # (B, T) token IDs
        seq_len = ids.shape[1]
        result = {"token ids": ids}
        token_vectors = self.tokens(ids)  # (B, T, C)
        result["token vectors"] = token_vectors
        scaled = token_vectors * self.token_multiplier  # (B, T, C)
        result["scaled token vectors"] = scaled
        if self.positions is not None:
            # (T, C); a learned table raises IndexError past its last row
            position_vectors = self.positions(seq_len)
            result["position vectors"] = position_vectors
            # (B, T, C) + (1, T, C): the same positions for every sentence
            total = scaled + position_vectors[None, :, :]
        else:
            total = scaled
        result["sum"] = total  # (B, T, C)
        result["output"] = self.dropout(total)  # (B, T, C)
        return result

    def forward(self, ids) -> torch.Tensor:
        """(B, T) token IDs -> (B, T, C) input vectors."""
        return self.stages(ids)["output"]

    def extra_repr(self) -> str:
        return (f"vocab_size={self.vocab_size}, d_model={self.d_model}, max_len={self.max_len}, "
                f"positions={self.position_kind!r}, scale={self.scale}")


# ---------------------------------------------------------------- text in, vectors out

def text_to_vectors(texts: Sequence[str] | str, vocab: WordVocabulary, model: InputEmbedding,
                    max_len: int | None = None) -> tuple[Batch, torch.Tensor]:
    """Texts -> padded batch -> the model's input vectors.

    Args:
        texts: one string or several.
        vocab: the word vocabulary (its size must match the model's token table).
        model: an :class:`InputEmbedding`.
        max_len: truncate each text to this many tokens; ``None`` keeps all (the model's
            ``max_len`` still applies to a learned table).

    Returns:
        The :class:`~embedding_course.batching.Batch` (ids and mask, (B, T)) and the
        output, (B, T, C).
    """
    if len(vocab) != model.vocab_size:
        raise ValueError(f"the vocabulary has {len(vocab)} tokens but the model's table has "
                         f"{model.vocab_size} rows; build the model with vocab_size=len(vocab)")
    batch = encode_batch(texts, vocab, max_len=max_len, device=model.tokens.weight.device)
    return batch, model(batch.ids)


@dataclass(frozen=True)
class Stage:
    """One step of the pipeline: its name, the tensor, and what each axis means."""

    name: str
    tensor: torch.Tensor
    axes: tuple[str, ...]

    @property
    def shape_text(self) -> str:
        """E.g. ``(B, T, C) = (2, 6, 16)``."""
        return f"({', '.join(self.axes)}) = {tuple(self.tensor.shape)}"


def trace_pipeline(texts: Sequence[str] | str, vocab: WordVocabulary, model: InputEmbedding,
                   max_len: int | None = None) -> tuple[Batch, list[Stage]]:
    """Run the pipeline and keep the tensor after each step, with its axis names."""
    batch, _ = text_to_vectors(texts, vocab, model, max_len)
    tensors = model.stages(batch.ids)
    stages = [Stage("token ids", tensors["token ids"], ("B", "T")),
              Stage("attention mask", batch.mask, ("B", "T")),
              Stage("token vectors", tensors["token vectors"], ("B", "T", "C"))]
    if model.scale:
        stages.append(Stage(f"token vectors x sqrt({model.d_model})", tensors["scaled token vectors"],
                            ("B", "T", "C")))
    if "position vectors" in tensors:
        stages.append(Stage(f"position vectors ({model.position_kind})", tensors["position vectors"],
                            ("T", "C")))
        stages.append(Stage("tokens + positions", tensors["sum"], ("B", "T", "C")))
    dropout_note = "training mode" if model.training else "eval mode: no-op"
    stages.append(Stage(f"after dropout ({dropout_note})", tensors["output"], ("B", "T", "C")))
    return batch, stages


# ---------------------------------------------------------------- same token, two positions

def vectors_of_token(batch: Batch, output: torch.Tensor, token: str, sequence: int = 0
                     ) -> tuple[list[int], torch.Tensor]:
    """Where ``token`` occurs in one sequence, and its output vectors there.

    Returns:
        The slots (positions) and a tensor (occurrences, C).
    """
    if output.ndim != 3 or tuple(output.shape[:2]) != tuple(batch.ids.shape):
        raise ValueError(f"output must have shape (B, T, C) matching the batch {tuple(batch.ids.shape)}, "
                         f"got {tuple(output.shape)}")
    sequence = checks.index(sequence, "sequence", len(batch.tokens), of="the batch")
    tokens = batch.tokens[sequence]
    slots = [t for t, word in enumerate(tokens) if word == token]
    if not slots:
        raise ValueError(f"token {token!r} does not occur in sequence {sequence}: {tokens}")
    return slots, output[sequence, slots]


# ---------------------------------------------------------------- the sqrt(d_model) scale

def measure_scale(d_models: Sequence[int], vocab_size: int = 2000, max_len: int = 256,
                  seed: int = SEED, device: torch.device | str | None = None) -> dict[str, list[float]]:
    """Measure what ``sqrt(d_model)`` does, for PyTorch's default init and a ``d ** -0.5`` init.

    For every ``d``, an :class:`InputEmbedding` is built and every row of its token table
    is read. Reported per ``d``:

    * ``var_default_scaled`` / ``var_default_unscaled``: variance of the entries of the
      token vectors with the default N(0, 1) init, with and without the scale;
    * ``var_small_scaled`` / ``var_small_unscaled``: the same with ``init_std = d ** -0.5``;
    * ``ratio_*``: mean norm of a token vector over mean norm of a sinusoidal position
      vector (which is exactly ``sqrt(d / 2)``).

    Returns:
        A dict of lists, one value per ``d`` (key ``"d"`` holds the d values).
    """
    seed = checks.seed(seed)
    device = pick_device() if device is None else torch.device(device)
    d_models = checks.many(d_models, "d_models", "width")
    results: dict[str, list[float]] = {"d": []}
    for d_model in d_models:
        checks.whole(d_model, "d_model")
        results["d"].append(float(d_model))
        for init_name, init_std in (("default", None), ("small", d_model ** -0.5)):
            torch.manual_seed(seed)
            model = InputEmbedding(vocab_size, d_model, max_len, positions="sinusoidal", scale=True,
                                   dropout=0.0, init_std=init_std).to(device)
            with torch.no_grad():
                every_id = torch.arange(vocab_size, device=device)[None, :]  # (1, V)
                scaled = model.stages(every_id)["scaled token vectors"][0]  # (V, C)
                unscaled = scaled / model.token_multiplier
                position_norm = float(model.positions(max_len).double().norm(dim=1).mean())
            for suffix, vectors in (("scaled", scaled), ("unscaled", unscaled)):
                results.setdefault(f"var_{init_name}_{suffix}", []).append(float(vectors.double().var()))
                ratio = float(vectors.double().norm(dim=1).mean()) / position_norm
                results.setdefault(f"ratio_{init_name}_{suffix}", []).append(ratio)
    return results




def norm_ratio(token_table, position_table, scale: float = 1.0) -> float:
    """Mean length of ``scale * token vector`` over mean length of a position vector.

    Above 1 the tokens dominate the sum ``scale * token + position``, below 1 the positions do.
    Works on any pair of tables, e.g. MiniLM's (see :mod:`embedding_course.pretrained`).
    """
    scale = checks.positive(scale, "scale", hint="1 for no scaling, sqrt(d_model) for the paper's")
    token_norms = row_norms(checks.vectors(token_table, "token_table")).astype(np.float64)
    position_norms = row_norms(checks.vectors(position_table, "position_table")).astype(np.float64)
    return float(scale * token_norms.mean() / position_norms.mean())
