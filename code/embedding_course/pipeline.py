"""The model's input, end to end: text -> IDs -> token vectors (x scale) + positions -> dropout.

    ids (B, T) --token table--> (B, T, C) --x sqrt(C)--> (B, T, C)
                                                  + positions (T, C), broadcast over B
                                                  --dropout--> (B, T, C)

:class:`InputEmbedding` is that layer as an ``nn.Module``; :func:`trace_pipeline`
records the tensor after every step (for the lesson's step slider); the rest measures
two claims of the lesson: that attention without positions cannot see word order, and
what the ``sqrt(d_model)`` scale really does to the variance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from matplotlib.figure import Figure
from torch import nn

from embedding_course import SEED, plotting
from embedding_course.batching import Batch, encode_batch
from embedding_course.device import pick_device
from embedding_course.positional import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    _check_whole,
    heatmap_panels,
    position_similarity,
)
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
        _check_whole(vocab_size, "vocab_size", "a positive whole number of tokens")
        _check_whole(d_model, "d_model")
        _check_whole(max_len, "max_len", "a positive whole number of positions")
        positions = "none" if positions is None else positions
        if positions not in POSITION_KINDS:
            raise ValueError(f"positions must be one of {POSITION_KINDS} (or None), got {positions!r}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
            raise ValueError(f"dropout must be a probability in [0, 1), got {dropout!r}")
        if padding_idx is not None and (isinstance(padding_idx, bool) or not isinstance(padding_idx, int)
                                        or not 0 <= padding_idx < vocab_size):
            raise ValueError(
                f"padding_idx must be None or a token id in 0..{vocab_size - 1}, got {padding_idx!r}"
            )
        if init_std is not None and (isinstance(init_std, bool) or not isinstance(init_std, (int, float))
                                     or not init_std > 0):
            raise ValueError(f"init_std must be a positive number or None, got {init_std!r}")

        self.vocab_size, self.d_model, self.max_len = vocab_size, d_model, max_len
        self.position_kind, self.use_scale, self.init_std = positions, bool(scale), init_std
        self.tokens = nn.Embedding(vocab_size, d_model, padding_idx=padding_idx)
        if init_std is not None:
            with torch.no_grad():
                self.tokens.weight.normal_(0.0, float(init_std))
                if padding_idx is not None:
                    self.tokens.weight[padding_idx].zero_()
        if positions == "sinusoidal":
            self.positions = SinusoidalPositionalEncoding(max_len, d_model, base)
        elif positions == "learned":
            self.positions = LearnedPositionalEmbedding(max_len, d_model, init_std)
        else:
            self.positions = None
        self.scale = math.sqrt(d_model) if scale else 1.0
        self.dropout = nn.Dropout(dropout)

    def check_ids(self, ids) -> torch.Tensor:
        """Validate a (B, T) batch of token IDs and return it as an int64 tensor on the model's device."""
        if not torch.is_tensor(ids):
            ids = torch.as_tensor(ids)
        if ids.dtype.is_floating_point or ids.dtype == torch.bool or ids.is_complex():
            raise ValueError(f"ids must hold whole numbers (token IDs), got dtype {ids.dtype}")
        if ids.ndim != 2:
            raise ValueError(
                f"ids must have shape (B, T) = (batch, tokens), got shape {tuple(ids.shape)}; "
                "for one sentence use ids[None, :]"
            )
        if ids.shape[0] == 0 or ids.shape[1] == 0:
            raise ValueError(f"ids is empty (shape {tuple(ids.shape)}); give at least one token")
        low, high = int(ids.min()), int(ids.max())
        if low < 0 or high >= self.vocab_size:
            bad = low if low < 0 else high
            raise IndexError(f"token id {bad} is outside the vocabulary (0..{self.vocab_size - 1})")
        return ids.to(self.tokens.weight.device, torch.long)

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
        scaled = token_vectors * self.scale  # (B, T, C)
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
                f"positions={self.position_kind!r}, scale={self.scale:.3g}")


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
    if model.use_scale:
        stages.append(Stage(f"token vectors x sqrt({model.d_model})", tensors["scaled token vectors"],
                            ("B", "T", "C")))
    if "position vectors" in tensors:
        stages.append(Stage(f"position vectors ({model.position_kind})", tensors["position vectors"],
                            ("T", "C")))
        stages.append(Stage("tokens + positions", tensors["sum"], ("B", "T", "C")))
    dropout_note = "training mode" if model.training else "eval mode: no-op"
    stages.append(Stage(f"after dropout ({dropout_note})", tensors["output"], ("B", "T", "C")))
    return batch, stages


def pipeline_stages_figure(batch: Batch, stages: Sequence[Stage], sequence: int = 0) -> plotting.go.Figure:
    """A Plotly figure whose slider steps through the pipeline, one heatmap per stage.

    (B, T) stages show the whole batch; (B, T, C) stages show sequence ``sequence``;
    the title of each step gives the stage's shape.
    """
    if not stages:
        raise ValueError("stages is empty; run trace_pipeline first")
    if not 0 <= sequence < batch.ids.shape[0]:
        raise IndexError(f"sequence {sequence} is outside the batch (0..{batch.ids.shape[0] - 1})")
    slots = [f"{t}: {token}" for t, token in enumerate(batch.padded_tokens()[sequence])]
    figure = plotting.go.Figure()
    layouts = []
    for index, stage in enumerate(stages):
        tensor = stage.tensor.detach().float().cpu()
        if stage.axes == ("B", "T"):
            matrix = tensor
            is_ids = stage.name == "token ids"
            trace = plotting.heatmap_trace(
                matrix, diverging=False, colorbar_title="id" if is_ids else "real token",
                hovertemplate="sequence %{y}<br>slot %{x}<br>%{z:.0f}<extra></extra>")
            trace.update(texttemplate="%{z:.0f}", textfont=dict(size=12))
            y_text, y_title, x_title = None, "sequence (B)", "slot (T)"
            shown = ""
        else:
            matrix = tensor if stage.axes == ("T", "C") else tensor[sequence]
            hover = "slot %{y}<br>channel %{x}<br>%{z:.3f}<extra></extra>"
            trace = plotting.heatmap_trace(matrix, diverging=True, hovertemplate=hover)
            if stage.axes == ("T", "C"):  # the same rows for every sentence: label slots only
                y_text, y_title = [f"slot {t}" for t in range(matrix.shape[0])], "slot (T)"
            else:
                y_text, y_title = slots, "slot: token (T)"
            x_title = "channel (C)"
            shown = "" if stage.axes == ("T", "C") else f", sequence {sequence} shown"
        y_values = list(range(matrix.shape[0]))
        trace.visible = index == 0
        figure.add_trace(trace)
        layouts.append({
            "title.text": f"{index + 1}. {stage.name}: {stage.shape_text}{shown}",
            "yaxis.tickvals": y_values, "yaxis.ticktext": y_text if y_text is not None else y_values,
            "yaxis.title.text": y_title, "xaxis.title.text": x_title,
        })
    steps = []
    for index, stage in enumerate(stages):
        visible = [i == index for i in range(len(stages))]
        steps.append(dict(method="update", label=f"{index + 1}. {stage.name.split(' (')[0]}",
                          args=[{"visible": visible}, layouts[index]]))
    plotting.style(figure, title=layouts[0]["title.text"], height=470)
    figure.update_layout(
        sliders=[dict(active=0, steps=steps, name="pipeline step",
                      currentvalue=dict(prefix="step ", font=dict(size=14)),
                      pad=dict(t=50, b=10), len=1.0)],
        margin=dict(l=110, b=40),
    )
    figure.update_yaxes(autorange="reversed", tickvals=layouts[0]["yaxis.tickvals"],
                        ticktext=layouts[0]["yaxis.ticktext"], title_text=layouts[0]["yaxis.title.text"])
    figure.update_xaxes(title_text=layouts[0]["xaxis.title.text"])
    return figure


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
    tokens = batch.tokens[sequence]
    slots = [t for t, word in enumerate(tokens) if word == token]
    if not slots:
        raise ValueError(f"token {token!r} does not occur in sequence {sequence}: {tokens}")
    return slots, output[sequence, slots]


def token_similarity_figure(tokens: Sequence[str], before: torch.Tensor, after: torch.Tensor) -> Figure:
    """Cosine similarity of a sentence's token vectors, before and after adding positions.

    Args:
        tokens: the T tokens (axis labels).
        before, after: (T, C) vectors, e.g. the scaled token vectors and the output.
    """
    if before.shape != after.shape or before.ndim != 2 or before.shape[0] != len(tokens):
        raise ValueError(f"before and after must both be (T, C) with T = {len(tokens)} tokens, got "
                         f"{tuple(before.shape)} and {tuple(after.shape)}")
    matrices = [position_similarity(vectors.detach().double().cpu()) for vectors in (before, after)]
    return heatmap_panels(matrices, ["token vectors only", "token + position vectors"],
                          limits=(-1, 1), annotate=True, ticklabels=[list(tokens)] * 2,
                          colorbar_label="cosine similarity", shared_colorbar=True, size=(9.0, 4.0))


# ---------------------------------------------------------------- why order matters

def random_projections(d_model: int, d_head: int | None = None, seed: int = SEED
                       ) -> tuple[torch.Tensor, torch.Tensor]:
    """Fixed random query and key projections W_q, W_k of shape (C, d_head), std ``C ** -0.5``."""
    _check_whole(d_model, "d_model")
    d_head = d_model if d_head is None else d_head
    _check_whole(d_head, "d_head")
    generator = torch.Generator().manual_seed(seed)
    w_q = torch.randn(d_model, d_head, generator=generator) / math.sqrt(d_model)
    w_k = torch.randn(d_model, d_head, generator=generator) / math.sqrt(d_model)
    return w_q, w_k


def attention_scores(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor) -> torch.Tensor:
    """Scaled dot-product scores ``(x W_q)(x W_k)^T / sqrt(d_head)``: (..., T, C) -> (..., T, T)."""
    if x.ndim < 2:
        raise ValueError(f"x must have shape (..., T, C), got {tuple(x.shape)}")
    if w_q.shape != w_k.shape or w_q.ndim != 2 or w_q.shape[0] != x.shape[-1]:
        raise ValueError(f"w_q and w_k must both have shape (C, d_head) with C = {x.shape[-1]}, "
                         f"got {tuple(w_q.shape)} and {tuple(w_k.shape)}")
    queries = x @ w_q.to(x.device, x.dtype)  # (..., T, d_head)
    keys = x @ w_k.to(x.device, x.dtype)  # (..., T, d_head)
    return queries @ keys.transpose(-2, -1) / math.sqrt(w_q.shape[1])  # (..., T, T)


def permutation_between(tokens_a: Sequence[str], tokens_b: Sequence[str]) -> list[int]:
    """``perm`` with ``tokens_b[i] == tokens_a[perm[i]]`` (a repeated token takes its next unused slot)."""
    if sorted(tokens_a) != sorted(tokens_b):
        raise ValueError(f"the two token lists are not reorderings of each other: {list(tokens_a)} "
                         f"vs {list(tokens_b)}")
    unused: dict[str, list[int]] = {}
    for slot, token in enumerate(tokens_a):
        unused.setdefault(token, []).append(slot)
    return [unused[token].pop(0) for token in tokens_b]


def permuted_gap(scores_a: torch.Tensor, scores_b: torch.Tensor, perm: Sequence[int]) -> float:
    """Largest ``|scores_b - P scores_a P^T|``: 0 when B's scores are A's, reordered."""
    if scores_a.shape != scores_b.shape or scores_a.ndim != 2 or scores_a.shape[0] != len(perm):
        raise ValueError(f"need two (T, T) score matrices and a permutation of length T; got "
                         f"{tuple(scores_a.shape)}, {tuple(scores_b.shape)} and {len(perm)}")
    index = torch.as_tensor(list(perm), device=scores_a.device)
    return float((scores_b - scores_a[index][:, index]).abs().max())


@dataclass(frozen=True)
class OrderExperiment:
    """Scores of two reordered sentences, with and without positions."""

    tokens: tuple[list[str], list[str]]
    perm: list[int]
    scores_without: tuple[torch.Tensor, torch.Tensor]
    scores_with: tuple[torch.Tensor, torch.Tensor]

    @property
    def gap_without(self) -> float:
        return permuted_gap(*self.scores_without, self.perm)

    @property
    def gap_with(self) -> float:
        return permuted_gap(*self.scores_with, self.perm)


def order_experiment(text_a: str, text_b: str, vocab: WordVocabulary, model: InputEmbedding,
                     seed: int = SEED) -> OrderExperiment:
    """Attention scores of two reorderings of the same words, before and after adding positions.

    The model runs in eval mode (no dropout). "Without positions" uses the scaled token
    vectors; "with positions" adds the model's position vectors.
    """
    if model.positions is None:
        raise ValueError("the model has no positions (positions='none'); "
                         "build it with positions='sinusoidal' or 'learned'")
    was_training = model.training
    model.eval()
    try:
        w_q, w_k = random_projections(model.d_model, seed=seed)
        batches = [encode_batch(text, vocab, device=model.tokens.weight.device) for text in (text_a, text_b)]
        perm = permutation_between(batches[0].tokens[0], batches[1].tokens[0])
        without, with_positions = [], []
        with torch.no_grad():
            for batch in batches:
                stages = model.stages(batch.ids)
                without.append(attention_scores(stages["scaled token vectors"][0], w_q, w_k).cpu())
                with_positions.append(attention_scores(stages["output"][0], w_q, w_k).cpu())
    finally:
        model.train(was_training)
    return OrderExperiment((batches[0].tokens[0], batches[1].tokens[0]), perm,
                           tuple(without), tuple(with_positions))


def order_figure(experiment: OrderExperiment) -> Figure:
    """A 2 x 2 grid of score heatmaps: the two sentences (columns), without / with positions (rows)."""
    a, b = (" ".join(tokens) for tokens in experiment.tokens)
    matrices = [*experiment.scores_without, *experiment.scores_with]
    limit = max(float(m.abs().max()) for m in matrices)
    titles = [f"no positions: “{a}”", f"no positions: “{b}”",
              f"with positions: “{a}”", f"with positions: “{b}”"]
    return heatmap_panels(matrices, titles, xlabel="key", ylabel="query", limits=(-limit, limit),
                          rows=2, size=(8.6, 7.4), colorbar_label="score", annotate=True,
                          ticklabels=[*experiment.tokens, *experiment.tokens])


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
    device = pick_device() if device is None else torch.device(device)
    if len(d_models) == 0:
        raise ValueError("d_models is empty; give at least one width")
    results: dict[str, list[float]] = {"d": []}
    for d_model in d_models:
        _check_whole(d_model, "d_model")
        results["d"].append(float(d_model))
        for init_name, init_std in (("default", None), ("small", d_model ** -0.5)):
            torch.manual_seed(seed)
            model = InputEmbedding(vocab_size, d_model, max_len, positions="sinusoidal", scale=True,
                                   dropout=0.0, init_std=init_std).to(device)
            with torch.no_grad():
                every_id = torch.arange(vocab_size, device=device)[None, :]  # (1, V)
                scaled = model.stages(every_id)["scaled token vectors"][0]  # (V, C)
                unscaled = scaled / model.scale
                position_norm = float(model.positions(max_len).double().norm(dim=1).mean())
            for suffix, vectors in (("scaled", scaled), ("unscaled", unscaled)):
                results.setdefault(f"var_{init_name}_{suffix}", []).append(float(vectors.double().var()))
                ratio = float(vectors.double().norm(dim=1).mean()) / position_norm
                results.setdefault(f"ratio_{init_name}_{suffix}", []).append(ratio)
    return results


def scale_figure(measurements: dict[str, list[float]]) -> Figure:
    """Two panels from :func:`measure_scale`: entry variance, and token / position norm ratio, against d."""
    for key in ("d", "var_default_scaled", "var_small_scaled", "var_small_unscaled",
                "ratio_default_scaled", "ratio_small_scaled", "ratio_small_unscaled"):
        if key not in measurements:
            raise ValueError(f"measurements lacks {key!r}; pass the result of measure_scale")
    series = [("N(0, 1) start, x sqrt(d)", "default_scaled"),
              ("N(0, 1/d) start, x sqrt(d)", "small_scaled"),
              ("N(0, 1/d) start, no scale", "small_unscaled")]
    figure = plotting._new_figure(8.8, 3.9)
    left, right = figure.subplots(1, 2)
    for index, (label, key) in enumerate(series):
        style = dict(color=plotting.PALETTE[index], marker="o", markersize=4, label=label)
        left.plot(measurements["d"], measurements[f"var_{key}"], **style)
        right.plot(measurements["d"], measurements[f"ratio_{key}"], **style)
    for axes, ylabel, title in ((left, "variance of the entries", "Token vector variance"),
                                (right, "|token vector| / |position vector|", "Token vs position size")):
        axes.set_xscale("log", base=2)
        axes.set_xticks(measurements["d"], labels=[f"{d:g}" for d in measurements["d"]])
        axes.minorticks_off()
        axes.set_yscale("log")
        axes.grid(alpha=0.3)
        axes.set_xlabel("d_model")
        axes.set_ylabel(ylabel)
        axes.set_title(title)
    handles, labels = left.get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncols=3, frameon=False)
    return figure
