"""Dense lookup: an embedding is a table with one learned row per token.

``table[ids]`` turns token IDs of shape (B, T) into vectors of shape (B, T, C). It gives
the same numbers as ``one_hot(ids) @ table`` without building the one-hot vectors. In
training, only the rows that were looked up receive a gradient, and a row used twice
receives the sum of both contributions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import torch
from torch import nn

from embedding_course import SEED, checks
from embedding_course.device import pick_device, to_numpy
from embedding_course.one_hot import BYTES_PER_NUMBER

# ---------------------------------------------------------------- from scratch

class NumpyEmbedding:
    """An embedding table from scratch: a (V, C) array, a lookup and its backward pass.

    Args:
        vocab_size: number of rows V.
        dim: width C of each row.
        seed: seed of the N(0, 1) initial values (the same init as ``nn.Embedding``).
        padding_idx: a row that stays zero and never receives a gradient, or ``None``.
    """

    def __init__(self, vocab_size: int, dim: int, seed: int = SEED, padding_idx: int | None = None):
        self.vocab_size = checks.whole(vocab_size, "vocab_size")
        self.dim = checks.whole(dim, "dim", hint="the width C")
        self.padding_idx = checks.optional_index(padding_idx, "padding_idx", self.vocab_size,
                                                 "the vocabulary")
        rng = np.random.default_rng(checks.seed(seed))
        self.weight = rng.standard_normal((self.vocab_size, self.dim)).astype(np.float32)  # (V, C)
        if self.padding_idx is not None:
            self.weight[self.padding_idx] = 0.0

    def __call__(self, ids) -> np.ndarray:
        """Look up rows: IDs of shape (B, T) give vectors of shape (B, T, C)."""
        ids = checks.token_ids(ids, self.vocab_size)
        return self.weight[ids]  # (..., C)

    def backward(self, ids, grad_output) -> np.ndarray:
        """The gradient of the loss with respect to the table, given the gradient of the output.

        Each position adds its output gradient into the row it read; a row read k times
        gets k contributions added up. The padding row gets none.

        Args:
            ids: the IDs of the forward pass, shape (B, T).
            grad_output: d loss / d output, shape (B, T, C).

        Returns:
            Array of shape (V, C).
        """
        ids = checks.token_ids(ids, self.vocab_size)
        grad_output = checks.vectors(grad_output, "grad_output", ndim=None).astype(np.float32)
        if grad_output.shape != (*ids.shape, self.dim):
            raise ValueError(f"grad_output must have shape {(*ids.shape, self.dim)} (ids shape + (C,)), "
                             f"got {grad_output.shape}")
        grad = np.zeros_like(self.weight)  # (V, C)
        np.add.at(grad, ids.reshape(-1), grad_output.reshape(-1, self.dim))  # scatter-add, repeats sum
        if self.padding_idx is not None:
            grad[self.padding_idx] = 0.0
        return grad


# ---------------------------------------------------------------- PyTorch

def make_embedding(vocab_size: int, dim: int, padding_idx: int | None = None, seed: int = SEED,
                   device=None) -> nn.Embedding:
    """An ``nn.Embedding`` with N(0, 1) rows drawn from its own seeded generator.

    The global torch random state is left alone, so the result depends only on ``seed``.
    """
    vocab_size, dim = checks.whole(vocab_size, "vocab_size"), checks.whole(dim, "dim", hint="the width C")
    padding_idx = checks.optional_index(padding_idx, "padding_idx", vocab_size, "the vocabulary")
    generator = torch.Generator().manual_seed(checks.seed(seed))
    weight = torch.randn(vocab_size, dim, generator=generator)  # (V, C)
    embedding = nn.Embedding(vocab_size, dim, padding_idx=padding_idx, _weight=weight)
    if padding_idx is not None:
        with torch.no_grad():
            embedding.weight[padding_idx].zero_()
    return embedding.to(pick_device() if device is None else device)


def embedding_from_table(table, padding_idx: int | None = None, device=None) -> nn.Embedding:
    """An ``nn.Embedding`` holding a copy of ``table`` (V, C), trainable.

    With ``padding_idx``, that row gets no gradient but keeps the values it has in ``table``:
    like ``nn.Embedding.from_pretrained``, this does not zero it.
    """
    if isinstance(table, NumpyEmbedding):
        table = table.weight
    weight = torch.as_tensor(checks.vectors(table, "table").astype(np.float32))  # (V, C), a copy
    padding_idx = checks.optional_index(padding_idx, "padding_idx", weight.shape[0], "the vocabulary")
    embedding = nn.Embedding.from_pretrained(weight, freeze=False, padding_idx=padding_idx)
    return embedding.to(pick_device() if device is None else device)


def lookup(embedding: nn.Embedding, ids) -> torch.Tensor:
    """``embedding(ids)`` after checking the IDs, with a clear message for a bad ID.

    Args:
        embedding: an ``nn.Embedding`` of shape (V, C).
        ids: token IDs of shape (T,) or (B, T).

    Returns:
        Tensor of shape ``ids.shape + (C,)``, e.g. (B, T, C).
    """
    if not isinstance(embedding, nn.Embedding):
        raise ValueError(f"embedding must be an nn.Embedding, got {type(embedding).__name__}")
    checked = checks.token_ids(ids, embedding.num_embeddings)
    ids = torch.as_tensor(checked, device=embedding.weight.device)  # (B, T)
    return embedding(ids)  # (B, T, C)


def table_gradient(embedding: nn.Embedding, ids, grad_output=None) -> np.ndarray:
    """The gradient that one backward pass through a lookup leaves on the table.

    The loss is ``(embedding(ids) * grad_output).sum()``, so ``grad_output`` is the gradient
    arriving from above; by default all ones (the loss is the sum of the outputs). The
    embedding's own ``.grad`` is left as it was.

    Returns:
        Array of shape (V, C), float32.
    """
    if not isinstance(embedding, nn.Embedding):
        raise ValueError(f"embedding must be an nn.Embedding, got {type(embedding).__name__}")
    checked = checks.token_ids(ids, embedding.num_embeddings)
    weight = embedding.weight
    if grad_output is None:
        grad_output = torch.ones(*checked.shape, embedding.embedding_dim)
    grad_output = checks.vectors(grad_output, "grad_output", ndim=None).astype(np.float32)
    grad_output = torch.as_tensor(grad_output, device=weight.device)
    expected = (*checked.shape, embedding.embedding_dim)
    if tuple(grad_output.shape) != expected:
        raise ValueError(f"grad_output must have shape {expected} (ids shape + (C,)), "
                         f"got {tuple(grad_output.shape)}")
    saved = weight.grad
    weight.grad = None
    output = lookup(embedding, checked)  # (..., C)
    (output * grad_output).sum().backward()
    grad = to_numpy(weight.grad).copy()
    weight.grad = saved
    return grad


def row_gradient_norms(grad) -> np.ndarray:
    """The length of each row's gradient: (V, C) -> (V,)."""
    grad = checks.array(grad, "grad", ndim=2, finite=True)  # (V, C), float64
    return np.linalg.norm(grad, axis=1)


# ---------------------------------------------------------------- weight tying

class TinyLanguageModel(nn.Module):
    """Embedding -> (nothing) -> output layer: logits over the vocabulary for each position.

    With ``tie_weights=True`` the output layer *is* the embedding table: the logit of token
    v is the dot product of the input vector with row v of the same table.
    """

    def __init__(self, vocab_size: int, dim: int, tie_weights: bool = True, seed: int = SEED):
        super().__init__()
        self.embedding = make_embedding(vocab_size, dim, seed=seed, device="cpu")
        self.output = nn.Linear(dim, vocab_size, bias=False)
        if tie_weights:
            self.output.weight = self.embedding.weight  # one (V, C) tensor, used twice

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        vectors = self.embedding(ids)  # (B, T, C)
        return self.output(vectors)  # (B, T, V)


def count_parameters(module: nn.Module) -> int:
    """Number of trainable numbers in ``module``; a tied (shared) tensor is counted once."""
    if not isinstance(module, nn.Module):
        raise ValueError(f"module must be an nn.Module, got {type(module).__name__}")
    return sum(p.numel() for p in module.parameters() if p.requires_grad)  # parameters() skips duplicates


# ---------------------------------------------------------------- real model sizes

@dataclass(frozen=True)
class ModelConfig:
    """The token-embedding shape of a published model.

    Args:
        name: the model.
        vocab_size: rows V of its token table.
        dim: width C (d_model).
        tied_output: whether its output layer reuses the token table.
        total_parameters: the model's total parameter count as published, for scale.
    """

    name: str
    vocab_size: int
    dim: int
    tied_output: bool
    total_parameters: int

    @property
    def table_parameters(self) -> int:
        """V x C: the numbers in the token table."""
        return self.vocab_size * self.dim

    @property
    def vocabulary_parameters(self) -> int:
        """Token table plus output layer: counted once when tied, twice when not."""
        return self.table_parameters * (1 if self.tied_output else 2)


MODEL_CONFIGS: tuple[ModelConfig, ...] = (
    ModelConfig("GPT-2 small", 50_257, 768, tied_output=True, total_parameters=124_439_808),
    ModelConfig("BERT-base (uncased)", 30_522, 768, tied_output=True, total_parameters=109_482_240),
    ModelConfig("LLaMA-2-7B", 32_000, 4096, tied_output=False, total_parameters=6_738_415_616),
    ModelConfig("LLaMA-3-8B", 128_256, 4096, tied_output=False, total_parameters=8_030_261_248),
)

MIB = 2 ** 20


def model_config(name: str) -> ModelConfig:
    """The entry of :data:`MODEL_CONFIGS` called ``name``."""
    for config in MODEL_CONFIGS:
        if config.name == name:
            return config
    raise ValueError(f"unknown model {name!r}; known: {', '.join(c.name for c in MODEL_CONFIGS)}")


def table_memory_mib(config: ModelConfig, dtype: str = "fp32") -> float:
    """Memory of the token table in MiB (2**20 bytes) in ``dtype`` (``fp32``, ``bf16``, ``int8``)."""
    checks.one_of(dtype, "dtype", BYTES_PER_NUMBER)
    return config.table_parameters * BYTES_PER_NUMBER[dtype] / MIB


def _model_config(value, name: str) -> ModelConfig:
    if not isinstance(value, ModelConfig):
        raise ValueError(f"{name} must be a ModelConfig, got {value!r}")
    return value


def parameter_table_rows(
    configs: Sequence[ModelConfig] = MODEL_CONFIGS, dtypes: Sequence[str] = ("fp32", "bf16", "int8"),
) -> tuple[list[str], list[list[str]]]:
    """The parameter and memory table as text: ``(header, rows)``, one row per model.

    Columns: table shape, its parameters, its memory in MiB per dtype, whether the output layer
    is tied (the same table) or separate (another V x C), and the share of all the model's
    parameters that the token table and output layer take together.
    """
    configs = checks.many(configs, "configs", "ModelConfig", _model_config)
    dtypes = checks.many(dtypes, "dtypes", "number format", partial(checks.one_of, allowed=BYTES_PER_NUMBER))
    header = ["model", "V x C", "parameters", *(f"{d} MiB" for d in dtypes), "output layer", "share"]
    rows = []
    for config in configs:
        share = config.vocabulary_parameters / config.total_parameters
        rows.append([
            config.name,
            _table_shape(config),
            _millions(config.table_parameters),
            *(f"{table_memory_mib(config, d):,.0f}" for d in dtypes),
            "tied" if config.tied_output else "separate",
            f"{share:.0%}",
        ])
    return header, rows


# ---------------------------------------------------------------- which models tie

TYING_EXAMPLES: tuple[ModelConfig, ...] = (
    *MODEL_CONFIGS,
    ModelConfig("Gemma-2B", 256_000, 2048, tied_output=True, total_parameters=2_506_172_416),
    ModelConfig("Llama-3.2-1B", 128_256, 2048, tied_output=True, total_parameters=1_235_814_400),
)
"""Published models with and without a tied output layer (``tie_word_embeddings`` in their configs)."""


def shares_storage(first: torch.Tensor, second: torch.Tensor) -> bool:
    """Whether two tensors are one block of memory (same ``data_ptr``, shape and strides): tied weights."""
    for name, tensor in (("first", first), ("second", second)):
        if not isinstance(tensor, torch.Tensor):
            raise ValueError(f"{name} must be a tensor, got {type(tensor).__name__}")
    return (first.data_ptr() == second.data_ptr() and first.shape == second.shape
            and first.stride() == second.stride())


def _table_shape(config: ModelConfig) -> str:
    """A table's shape as the tables write it: "50,257 x 768" (no-break spaces keep it on one line)."""
    return f"{config.vocab_size:,}\u00a0x\u00a0{config.dim:,}"


def _millions(count: int) -> str:
    """A parameter count in millions, as the tables write it: "38.6 M" (a no-break space, so a
    narrow column does not put the M on a line of its own)."""
    return f"{count / 1e6:,.1f}\u00a0M"


def tying_saving(config: ModelConfig) -> tuple[int, float]:
    """What tying saves (or would save) in a model: ``V x C`` parameters, and that as a share of the
    model *without* tying (the published total, plus one more table when the model ties)."""
    if not isinstance(config, ModelConfig):
        raise ValueError(f"config must be a ModelConfig, got {type(config).__name__}")
    untied_total = config.total_parameters + (config.table_parameters if config.tied_output else 0)
    return config.table_parameters, config.table_parameters / untied_total


def tying_rows(configs: Sequence[ModelConfig] = TYING_EXAMPLES) -> tuple[list[str], list[list[str]]]:
    """The tying table as text: ``(header, rows)``, one row per model."""
    configs = checks.many(configs, "configs", "ModelConfig", _model_config)
    header = ["model", "V x C", "output layer", "tying saves (or would)", "share of the untied model"]
    rows = []
    for config in configs:
        saved, share = tying_saving(config)
        rows.append([config.name, _table_shape(config),
                     "tied" if config.tied_output else "separate",
                     _millions(saved), f"{share:.1%}"])
    return header, rows
