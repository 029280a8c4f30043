"""Dense lookup: an embedding is a table with one learned row per token.

``table[ids]`` turns token IDs of shape (B, T) into vectors of shape (B, T, C). It gives
the same numbers as ``one_hot(ids) @ table`` without building the one-hot vectors. In
training, only the rows that were looked up receive a gradient, and a row used twice
receives the sum of both contributions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import torch
from matplotlib.figure import Figure
from plotly.subplots import make_subplots
from torch import nn

from embedding_course import SEED, plotting
from embedding_course.device import pick_device, to_numpy
from embedding_course.one_hot import BYTES_PER_NUMBER, check_token_ids, check_vocab_size
from embedding_course.tables import html_table
from embedding_course.tokens import WordVocabulary


def check_dim(dim) -> int:
    """Return the embedding width as an int, or raise if it is not a whole number >= 1."""
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
        raise ValueError(f"dim (the width C of each vector) must be a whole number >= 1, got {dim!r}")
    return int(dim)


def check_padding_idx(padding_idx, vocab_size: int) -> int | None:
    """Return ``padding_idx`` (or ``None``), raising if it is not a valid row."""
    if padding_idx is None:
        return None
    if isinstance(padding_idx, bool) or not isinstance(padding_idx, (int, np.integer)):
        raise ValueError(f"padding_idx must be a whole number or None, got {padding_idx!r}")
    if not 0 <= padding_idx < vocab_size:
        raise IndexError(f"padding_idx {padding_idx} is outside the vocabulary (0..{vocab_size - 1})")
    return int(padding_idx)


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
        self.vocab_size = check_vocab_size(vocab_size)
        self.dim = check_dim(dim)
        self.padding_idx = check_padding_idx(padding_idx, self.vocab_size)
        rng = np.random.default_rng(seed)
        self.weight = rng.standard_normal((self.vocab_size, self.dim)).astype(np.float32)  # (V, C)
        if self.padding_idx is not None:
            self.weight[self.padding_idx] = 0.0

    def __call__(self, ids) -> np.ndarray:
        """Look up rows: IDs of shape (B, T) give vectors of shape (B, T, C)."""
        ids = check_token_ids(ids, self.vocab_size)
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
        ids = check_token_ids(ids, self.vocab_size)
        grad_output = np.asarray(grad_output, dtype=np.float32)
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
    vocab_size, dim = check_vocab_size(vocab_size), check_dim(dim)
    padding_idx = check_padding_idx(padding_idx, vocab_size)
    generator = torch.Generator().manual_seed(seed)
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
    weight = torch.as_tensor(np.asarray(table, dtype=np.float32)).clone()
    if weight.ndim != 2 or weight.numel() == 0:
        raise ValueError(f"table must be a non-empty 2-D array (vocab_size, dim), "
                         f"got shape {tuple(weight.shape)}")
    padding_idx = check_padding_idx(padding_idx, weight.shape[0])
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
    checked = check_token_ids(ids, embedding.num_embeddings)
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
    checked = check_token_ids(ids, embedding.num_embeddings)
    weight = embedding.weight
    if grad_output is None:
        grad_output = torch.ones(*checked.shape, embedding.embedding_dim)
    grad_output = torch.as_tensor(np.asarray(grad_output, dtype=np.float32), device=weight.device)
    expected = (*checked.shape, embedding.embedding_dim)
    if tuple(grad_output.shape) != expected:
        raise ValueError(f"grad_output must have shape {expected} (ids shape + (C,)), "
                         f"got {tuple(grad_output.shape)}")
    saved = weight.grad
    weight.grad = None
    output = lookup(embedding, checked)  # (..., C)
    (output * grad_output).sum().backward()
    grad = weight.grad.detach().cpu().numpy().copy()
    weight.grad = saved
    return grad


def row_gradient_norms(grad) -> np.ndarray:
    """The length of each row's gradient: (V, C) -> (V,)."""
    grad = np.asarray(grad, dtype=np.float64)
    if grad.ndim != 2 or grad.size == 0:
        raise ValueError(f"grad must be a non-empty 2-D array (V, C), got shape {grad.shape}")
    return np.linalg.norm(grad, axis=1)


def gradient_norm_figure(norms, labels: Sequence[str], ids, title: str = "") -> Figure:
    """Bar chart of per-row gradient norms; the rows that were looked up are highlighted."""
    norms = np.asarray(norms, dtype=float)
    checked = check_token_ids(ids, len(norms))
    used = sorted(set(checked.reshape(-1).tolist()))
    return plotting.bar_plot(labels, norms, highlight=used, xlabel="table row (token)",
                             ylabel="gradient norm of the row",
                             title=title or "Only the rows that were looked up get a gradient")


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
    if dtype not in BYTES_PER_NUMBER:
        raise ValueError(f"dtype must be one of {', '.join(BYTES_PER_NUMBER)}, got {dtype!r}")
    return config.table_parameters * BYTES_PER_NUMBER[dtype] / MIB


def parameter_table_rows(
    configs: Sequence[ModelConfig] = MODEL_CONFIGS, dtypes: Sequence[str] = ("fp32", "bf16", "int8"),
) -> tuple[list[str], list[list[str]]]:
    """The parameter and memory table as text: ``(header, rows)``, one row per model.

    Columns: table shape, its parameters, its memory in MiB per dtype, whether the output layer
    is tied (the same table) or separate (another V x C), and the share of all the model's
    parameters that the token table and output layer take together.
    """
    if len(configs) == 0:
        raise ValueError("configs is empty; give at least one ModelConfig")
    for dtype in dtypes:
        if dtype not in BYTES_PER_NUMBER:
            raise ValueError(f"dtype must be one of {', '.join(BYTES_PER_NUMBER)}, got {dtype!r}")
    header = ["model", "V x C", "parameters", *(f"{d} MiB" for d in dtypes), "output layer", "share"]
    rows = []
    for config in configs:
        share = config.vocabulary_parameters / config.total_parameters
        rows.append([
            config.name,
            f"{config.vocab_size:,} x {config.dim:,}",
            f"{config.table_parameters / 1e6:,.1f} M",
            *(f"{table_memory_mib(config, d):,.0f}" for d in dtypes),
            "tied" if config.tied_output else "separate",
            f"{share:.0%}",
        ])
    return header, rows


def parameter_table_html(configs: Sequence[ModelConfig] = MODEL_CONFIGS,
                         dtypes: Sequence[str] = ("fp32", "bf16", "int8")) -> str:
    """:func:`parameter_table_rows` as an HTML table (display it with ``IPython.display.HTML``)."""
    header, rows = parameter_table_rows(configs, dtypes)
    return html_table(header, rows)


# ---------------------------------------------------------------- lookup explorer

EXPLORER_SENTENCES = (
    "the cat saw the dog",
    "the dog saw the cat",
    "a dog saw a bird",
    "my bird saw my bird",
    "the cat chased a dog",
    "a cat chased the bird",
)
"""Example sentences for the lookup explorer, all five tokens long."""


def explorer_setup(sentences: Sequence[str] = EXPLORER_SENTENCES, dim: int = 6,
                   seed: int = SEED) -> tuple[WordVocabulary, np.ndarray, list[list[int]]]:
    """A vocabulary built from ``sentences``, a small random table (V, C) and each sentence's IDs."""
    if len(sentences) == 0:
        raise ValueError("sentences is empty; give at least one example sentence")
    vocabulary = WordVocabulary.from_texts(list(sentences))
    table = NumpyEmbedding(len(vocabulary), dim, seed=seed, padding_idx=vocabulary.pad_id).weight
    encoded = [vocabulary.encode(sentence) for sentence in sentences]
    if len({len(ids) for ids in encoded}) != 1:
        raise ValueError("all example sentences must have the same number of tokens")
    return vocabulary, table, encoded


def _repeat_note(tokens: Sequence[str]) -> str:
    repeats = [(token, [i for i, t in enumerate(tokens) if t == token])
               for token in dict.fromkeys(tokens) if tokens.count(token) > 1]
    if not repeats:
        return "every position reads a different row"
    parts = [f"'{token}' at positions {', '.join(map(str, where))}" for token, where in repeats]
    return "same row, same vector: " + "; ".join(parts)


def lookup_explorer_figure(sentences: Sequence[str] = EXPLORER_SENTENCES, dim: int = 6,
                           seed: int = SEED) -> go.Figure:
    """Slider over example sentences: which table rows light up, and the vectors they give.

    Left: the whole table (V x C), faded, with the rows read by the sentence at full colour
    and the positions that read them. Right: the output (T x C), one row per position.
    Every state is computed here, so the slider works with JavaScript alone.
    """
    vocabulary, table, encoded = explorer_setup(sentences, dim, seed)
    vocab_size, seq_len = table.shape[0], len(encoded[0])
    limit = float(np.abs(table).max())
    colour = dict(diverging=True, limits=(-limit, limit))
    rows = np.arange(vocab_size)
    base = make_subplots(rows=1, cols=2, column_widths=[0.56, 0.44], horizontal_spacing=0.16,
                         subplot_titles=(f"embedding table ({vocab_size} x {dim})",
                                         f"looked-up vectors ({seq_len} x {dim})"))
    states, titles = [], []
    for sentence, ids in zip(sentences, encoded, strict=True):
        tokens = vocabulary.decode(ids)
        used = np.zeros(vocab_size, dtype=bool)
        used[ids] = True
        highlighted = np.where(used[:, None], table, np.nan)  # (V, C), unused rows hidden
        readers = {row: [str(t) for t, i in enumerate(ids) if i == row] for row in set(ids)}
        states.append([
            (plotting.heatmap_trace(table, showscale=False, **colour), 1, 1),
            (plotting.heatmap_trace(highlighted, colorbar_title="value", **colour,
                                    hovertemplate="row %{y}, dim %{x}: %{z:.3f}<extra></extra>"), 1, 1),
            (go.Scatter(x=np.full(len(readers), dim - 0.3), y=list(readers),
                        text=[f"← pos {', '.join(readers[row])}" for row in readers],
                        mode="text", textposition="middle right", showlegend=False, hoverinfo="skip",
                        cliponaxis=False), 1, 1),
            (plotting.heatmap_trace(table[ids], showscale=False, **colour,
                                    hovertemplate="position %{y}, dim %{x}: %{z:.3f}<extra></extra>"), 1, 2),
            (go.Scatter(x=np.full(seq_len, dim - 0.3), y=np.arange(seq_len),
                        text=[f"{token} (row {i})" for token, i in zip(tokens, ids, strict=True)],
                        mode="text", textposition="middle right", showlegend=False, hoverinfo="skip",
                        cliponaxis=False), 1, 2),
        ])
        titles.append(f"“{sentence}”: {_repeat_note(tokens)}")
    labels = [str(i + 1) for i in range(len(sentences))]  # the title shows the sentence itself
    figure = plotting.slider_figure(states, labels, base=base, slider_title="example sentence",
                                    titles=titles, height=520)
    figure.update_layout(margin=dict(t=95))
    # Faded full table underneath the highlighted rows.
    for trace in figure.data[0::5]:
        trace.opacity = 0.22
    figure.update_xaxes(title_text="dimension", tickvals=list(range(dim)))
    # Room right of each heatmap for its text labels, inside the panel (clear of the colour bar).
    figure.update_xaxes(range=[-0.5, dim + 2.4], row=1, col=1)
    figure.update_xaxes(range=[-0.5, dim + 3.8], row=1, col=2)
    figure.update_yaxes(autorange="reversed")
    figure.update_yaxes(tickvals=rows.tolist(), ticktext=[f"{i} {vocabulary.id_to_token[i]}" for i in rows],
                        title_text="row (token id)", row=1, col=1)
    figure.update_yaxes(tickvals=list(range(seq_len)), ticktext=[f"pos {t}" for t in range(seq_len)],
                        title_text="position", row=1, col=2)
    return figure


def token_picker_figure(sentence: str = "the cat saw the dog", sentences: Sequence[str] = EXPLORER_SENTENCES,
                        dim: int = 6, seed: int = SEED) -> go.Figure:
    """Pick the token at each position (one menu per position) and watch the lookup.

    Left: the table, faded, with the rows that are read lit up. Middle: the looked-up vectors
    (T x C): two positions holding the same token give the same row. Right: the same vectors
    plus the sinusoidal position vectors, which make every row different: adding positions
    breaks the ties. Each menu restyles only its own position's traces, so the menus are
    independent and work with JavaScript alone.
    """
    from embedding_course.positional import sinusoidal_encoding

    vocabulary, table, _ = explorer_setup(sentences, dim, seed)
    ids = vocabulary.encode(sentence)
    if vocabulary.unk_id in ids:
        raise ValueError(f"sentence {sentence!r} has words outside the explorer's vocabulary "
                         f"({', '.join(vocabulary.id_to_token[2:])})")
    seq_len, vocab_size = len(ids), table.shape[0]
    positions = sinusoidal_encoding(seq_len, dim, device="cpu").numpy()  # (T, C)
    limit = float(np.abs(table[:, None, :] + positions[None, :, :]).max())  # covers both panels
    colour = dict(diverging=True, limits=(-limit, limit), showscale=False)
    figure = make_subplots(rows=1, cols=3, horizontal_spacing=0.1, column_widths=[0.38, 0.31, 0.31],
                           subplot_titles=(f"table ({vocab_size} x {dim}): rows read", "token vectors",
                                           "token + position vectors"))
    figure.add_trace(plotting.heatmap_trace(table, **colour), row=1, col=1)
    figure.data[0].opacity = 0.12
    menus = []
    for position, token_id in enumerate(ids):
        first = len(figure.data)
        hover = f"position {position}, dim %{{x}}: %{{z:.3f}}<extra></extra>"
        row_trace = dict(hovertemplate=hover, **colour)
        figure.add_trace(plotting.heatmap_trace(table[[token_id]], y=[token_id], **row_trace), row=1, col=1)
        figure.add_trace(plotting.heatmap_trace(table[[token_id]], y=[position], **row_trace), row=1, col=2)
        figure.add_trace(plotting.heatmap_trace(table[[token_id]] + positions[[position]], y=[position],
                                                **row_trace), row=1, col=3)
        buttons = []
        for choice in range(2, vocab_size):  # every word (not <pad>, <unk>)
            # Plain lists: menu arguments are applied as given, not decoded like trace data.
            vector = table[choice].round(4).tolist()
            shifted = (table[choice] + positions[position]).round(4).tolist()
            buttons.append(dict(
                method="restyle", label=vocabulary.id_to_token[choice],
                args=[{"z": [[vector], [vector], [shifted]],
                       "y": [[choice], [position], [position]]}, [first, first + 1, first + 2]],
            ))
        menus.append(dict(buttons=buttons, active=token_id - 2, direction="down", showactive=True,
                          name=f"token at position {position}",  # the label of its keyboard control
                          x=position / seq_len, xanchor="left", y=1.2, yanchor="bottom",
                          pad=dict(r=4)))
        figure.add_annotation(text=f"position {position}", x=position / seq_len, y=1.36, xref="paper",
                              yref="paper", xanchor="left", yanchor="bottom", showarrow=False)
    plotting.style(figure, title="", height=480)
    figure.update_layout(updatemenus=menus, margin=dict(t=150))
    figure.update_xaxes(title_text="dimension", tickvals=list(range(dim)))
    figure.update_yaxes(autorange="reversed")
    figure.update_yaxes(range=[vocab_size - 0.5, -0.5], tickvals=list(range(vocab_size)),
                        ticktext=vocabulary.id_to_token, row=1, col=1)
    for col in (2, 3):
        figure.update_yaxes(range=[seq_len - 0.5, -0.5], tickvals=list(range(seq_len)),
                            ticktext=[f"pos {t}" for t in range(seq_len)], row=1, col=col)
    return figure


def lookup_figure(vocabulary: WordVocabulary, table, ids) -> Figure:
    """Static version of the explorer for one sequence (used by the live widget)."""
    table = to_numpy(table, dtype=float)
    checked = check_token_ids(ids, table.shape[0])
    if checked.ndim != 1:
        raise ValueError(f"ids must be one sequence (T,), got shape {checked.shape}")
    if len(vocabulary) != table.shape[0]:
        raise ValueError(f"vocabulary has {len(vocabulary)} tokens but the table has {table.shape[0]} rows")
    limit = float(np.abs(table).max()) or 1.0
    figure = Figure(figsize=(9.0, 3.8), dpi=110, layout="constrained")
    left, right = figure.subplots(1, 2)
    used = np.zeros(table.shape[0], dtype=bool)
    used[checked] = True
    left.imshow(table, cmap=plotting.DIVERGING, vmin=-limit, vmax=limit, alpha=0.25, aspect="auto")
    left.imshow(np.where(used[:, None], table, np.nan), cmap=plotting.DIVERGING, vmin=-limit, vmax=limit,
                aspect="auto")
    left.set_yticks(range(len(vocabulary)), labels=[f"{i} {t}" for i, t in enumerate(vocabulary.id_to_token)])
    left.set_title("table: rows read are bright")
    left.set_xlabel("dimension")
    image = right.imshow(table[checked], cmap=plotting.DIVERGING, vmin=-limit, vmax=limit, aspect="auto")
    tokens = vocabulary.decode(checked)
    right.set_yticks(range(len(checked)), labels=[f"pos {t}: {w}" for t, w in enumerate(tokens)])
    right.set_title("output: one row per position")
    right.set_xlabel("dimension")
    figure.colorbar(image, ax=right)
    return figure
