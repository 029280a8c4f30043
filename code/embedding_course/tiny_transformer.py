"""A tiny decoder-only transformer whose only variable is how it knows positions.

In the spirit of minGPT: token embedding, a few blocks of causal self-attention and an
MLP, a final layer norm and a linear read-out. One argument, ``scheme``, chooses where
position information enters:

* ``"none"``: nowhere (NoPE). The causal mask is the only source of order: a token at
  position ``t`` sees ``t + 1`` tokens, so the model can still count.
* ``"sinusoidal"``: the fixed table of Vaswani et al. added to the token vectors.
* ``"learned"``: a trained absolute table (as in GPT-2), with no row past ``max_len``.
* ``"rope"``: queries and keys rotated by their positions inside every attention layer.
* ``"alibi"``: a per-head penalty ``-slope * distance`` added to the attention scores.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F

from embedding_course import checks, rope
from embedding_course.lookup import count_parameters
from embedding_course.positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding

SCHEMES = ("none", "sinusoidal", "learned", "rope", "alibi")
"""The position schemes the model knows, in the order the course shows them."""

SCHEME_NAMES = {
    "none": "none (NoPE)",
    "sinusoidal": "sinusoidal",
    "learned": "learned table",
    "rope": "RoPE",
    "alibi": "ALiBi",
}
"""How figures and tables name each scheme."""


def check_scheme(scheme) -> None:
    """Raise a ValueError naming the allowed schemes when ``scheme`` is not one of them."""
    checks.one_of(scheme, "scheme", SCHEMES)


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention in which each position sees itself and earlier positions only."""

    def __init__(self, d_model: int, n_heads: int, scheme: str):
        super().__init__()
        self.n_heads, self.head_dim, self.scheme = n_heads, d_model // n_heads, scheme
        self.qkv = nn.Linear(d_model, 3 * d_model)  # queries, keys and values in one product
        self.proj = nn.Linear(d_model, d_model)
        self._bias_cache: dict = {}  # (T, device, dtype) -> (H, T, T); the bias depends on nothing else
        # RoPE only (lesson 8): which channels form a pair, and an optional context-extension
        # method, a function seq_len -> (inv_freq (hd/2,), attention_factor); None = plain RoPE.
        self.rope_layout = "interleaved"
        self.rope_scaling = None

    def score_bias(self, seq_len: int, device, dtype=torch.float32) -> torch.Tensor:
        """What is added to the scores: -inf above the diagonal (the future), ALiBi's penalty below."""
        key = (seq_len, str(device), dtype)
        if key not in self._bias_cache:
            if self.scheme == "alibi":
                slopes = rope.alibi_slopes(self.n_heads).tolist()  # (H,) one per head
                bias = torch.stack([rope.alibi_bias(seq_len, slope) for slope in slopes])  # (H, T, T)
            else:
                future = torch.ones(seq_len, seq_len, dtype=torch.bool).triu(1)  # (T, T)
                bias = torch.zeros(seq_len, seq_len).masked_fill(future, float("-inf"))  # (T, T)
            self._bias_cache[key] = bias.to(device=device, dtype=dtype)
        return self._bias_cache[key]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)  # (B, T, C) each
        q = q.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)  # (B, H, T, hd)
        k = k.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)  # (B, H, T, hd)
        v = v.view(B, T, self.n_heads, self.head_dim).transpose(1, 2)  # (B, H, T, hd)
        if self.scheme == "rope":
            inv_freq, factor = (None, 1.0) if self.rope_scaling is None else self.rope_scaling(T)
            q = rope.apply_rope(q, inv_freq=inv_freq, layout=self.rope_layout) * factor  # (B, H, T, hd)
            k = rope.apply_rope(k, inv_freq=inv_freq, layout=self.rope_layout) * factor  # (B, H, T, hd)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)  # (B, H, T, T)
        scores = scores + self.score_bias(T, x.device, x.dtype)  # (B, H, T, T)
        weights = F.softmax(scores, dim=-1)  # (B, H, T, T), each row sums to 1
        out = (weights @ v).transpose(1, 2).reshape(B, T, C)  # (B, T, C)
        return self.proj(out)


class Block(nn.Module):
    """One transformer block: attention then MLP, each with a residual connection (pre-norm)."""

    def __init__(self, d_model: int, n_heads: int, scheme: str):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_heads, scheme)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))  # (B, T, C)
        return x + self.mlp(self.ln2(x))  # (B, T, C)


class TinyTransformer(nn.Module):
    """A decoder-only transformer: ``forward(ids)`` maps (B, T) token IDs to (B, T, n_classes) logits.

    Args:
        vocab_size: number of input tokens.
        n_classes: number of output classes (``vocab_size`` by default).
        scheme: where positions enter, one of :data:`SCHEMES`.
        d_model: width of every vector; must be divisible by ``n_heads`` into even head sizes
            (RoPE turns channels in pairs).
        n_heads: attention heads per layer.
        n_layers: number of blocks (1 or 2 is plenty here).
        max_len: the longest sequence a ``learned`` table has rows for (its training length);
            the other schemes accept any length.
    """

    def __init__(self, vocab_size: int, scheme: str = "none", *, n_classes: int | None = None,
                 d_model: int = 32, n_heads: int = 2, n_layers: int = 2, max_len: int = 16):
        super().__init__()
        check_scheme(scheme)
        checks.whole(vocab_size, "vocab_size", hint="a number of tokens")
        n_classes = vocab_size if n_classes is None else n_classes
        checks.whole(n_classes, "n_classes", hint="a number of output classes")
        checks.whole(d_model, "d_model")
        checks.whole(n_heads, "n_heads")
        checks.whole(n_layers, "n_layers", hint="a number of blocks")
        checks.whole(max_len, "max_len", hint="a number of positions")
        if d_model % n_heads or (d_model // n_heads) % 2:
            fitting = -(-d_model // (2 * n_heads)) * 2 * n_heads  # the next multiple of 2 * n_heads
            raise ValueError(f"d_model ({d_model}) must split into {n_heads} heads of even size "
                             f"(RoPE turns channels in pairs); try d_model = {fitting}")
        self.scheme, self.max_len, self.vocab_size = scheme, max_len, vocab_size
        self.token_embedding = nn.Embedding(vocab_size, d_model)
        self.positions = None
        if scheme == "sinusoidal":
            self.positions = SinusoidalPositionalEncoding(max_len, d_model)
        elif scheme == "learned":
            self.positions = LearnedPositionalEmbedding(max_len, d_model, init_std=0.02)
        self.blocks = nn.ModuleList(Block(d_model, n_heads, scheme) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, n_classes)

    def check_ids(self, ids) -> torch.Tensor:
        """Validate a (B, T) batch of token IDs and return it as an int64 tensor on the model's device."""
        checked = checks.token_ids(ids, self.vocab_size, ndim=2)  # (B, T)
        return torch.as_tensor(checked, device=self.token_embedding.weight.device)

    def forward(self, ids: torch.Tensor, check: bool = True) -> torch.Tensor:
        """Logits for every position; a ``learned`` table raises IndexError past ``max_len``.

        ``check=False`` skips :meth:`check_ids` (for ``torch.vmap``, which cannot read values).
        """
        if check:
            ids = self.check_ids(ids)  # (B, T), on the model's device, like InputEmbedding's
        T = ids.shape[1]
        x = self.token_embedding(ids)  # (B, T, C)
        if self.positions is not None:
            x = x + self.positions(T)  # (T, C) broadcast over the batch: IndexError past a learned table
        for block in self.blocks:
            x = block(x)  # (B, T, C)
        return self.head(self.ln_f(x))  # (B, T, n_classes)


def parameter_count(model: nn.Module) -> int:
    """:func:`~embedding_course.lookup.count_parameters` under the name lesson 7 calls."""
    return count_parameters(model)
