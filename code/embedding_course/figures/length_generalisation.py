"""Figures of lesson 7: accuracy against test length, per task and position scheme.

Every figure reads a :class:`~embedding_course.length_generalisation.Results`; nothing
is trained here.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.figure import Figure

from embedding_course import checks, plotting, rounding
from embedding_course.length_generalisation import FIT_ACCURACY, TASK_NAMES, Results, chance_level
from embedding_course.tables import markdown_table
from embedding_course.tiny_transformer import SCHEME_NAMES, SCHEMES

NO_PREDICTION = "no prediction"
"""What the table says where a model cannot read sequences that long."""
DID_NOT_LEARN = "did not learn"
"""What the table says past the training length when no seed learned the task."""


SCHEME_DASHES = {"none": "solid", "sinusoidal": "dash", "learned": "dashdot", "rope": "solid", "alibi": "dot"}
"""Plotly line styles, so that lines lying on top of each other stay apart (and not by colour alone)."""
_MATPLOTLIB_DASHES = {"solid": "-", "dash": "--", "dashdot": "-.", "dot": ":"}

TASK_SHORT = {"copy_back": "copy 3 back (relative)", "first_token": "first token (absolute)",
              "marked_token": "marked token (control)"}
"""Short task names, for slider labels and titles that must fit a phone."""


def scheme_colour(scheme: str) -> str:
    """The colour of a scheme, the same in every figure of the lesson."""
    return plotting.PALETTE[SCHEMES.index(scheme) % len(plotting.PALETTE)]


def seed_summary(curves: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, min and max over seeds (axis 0), NaN at lengths where no seed has a prediction."""
    answered = ~np.isnan(curves)  # (seeds, lengths)
    counts = answered.sum(0)  # (lengths,)
    filled = np.where(answered, curves, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counts > 0, filled.sum(0) / counts, np.nan)
    low = np.where(counts > 0, np.where(answered, curves, np.inf).min(0), np.nan)
    high = np.where(counts > 0, np.where(answered, curves, -np.inf).max(0), np.nan)
    return mean, low, high


def _check_task_in(results: Results, task: str) -> None:
    if task not in results.settings.tasks:
        raise ValueError(f"task {task!r} was not run; the results hold {', '.join(results.settings.tasks)}")


def accuracy_figure(results: Results, task: str, size: tuple[float, float] = (6.4, 4.6)) -> Figure:
    """Accuracy against test length for one task: a line per scheme (mean over seeds), a band
    from the worst to the best seed, and the training length marked.

    Returns:
        The matplotlib ``Figure``.
    """
    _check_task_in(results, task)
    lengths = results.lengths
    train_len = results.settings.train_len
    figure = plotting._new_figure(*size)
    axes = figure.add_subplot()
    axes.axvspan(0.5, train_len + 0.5, color="0.92", zorder=0)
    axes.axvline(train_len + 0.5, color="0.35", linestyle="--", linewidth=1)
    axes.text(train_len + 1, 0.03, f"training length {train_len}", color="0.25")
    for scheme in results.settings.schemes:
        curves = results.shown_curves(task, scheme)  # (seeds, lengths), NaN past L unless learned
        colour = scheme_colour(scheme)
        mean, low, high = seed_summary(curves)
        axes.fill_between(lengths, low, high, color=colour, alpha=0.18, linewidth=0)
        axes.plot(lengths, mean, color=colour, label=scheme_label(results, task, scheme), linewidth=1.8,
                  linestyle=_MATPLOTLIB_DASHES[SCHEME_DASHES[scheme]], zorder=_line_order(curves))
    chance = chance_level(task)
    if chance is not None:  # dotted, named in the legend: a note in the panel ran into the lines on a phone
        axes.axhline(chance, color="0.35", linestyle=":", linewidth=1, label=f"chance ({chance:.3f})")
    axes.set_xlim(0.5, lengths[-1] + 0.5)
    axes.set_ylim(-0.02, 1.02)
    axes.grid(alpha=0.3)
    axes.set_xlabel("test length (tokens; the answer at the last one is scored)")
    axes.set_ylabel("accuracy")
    axes.set_title(f"{TASK_NAMES[task]}\nmean of {len(results.settings.seeds)} seeds, band: min to max",
                   fontsize=10)
    figure.legend(frameon=False, loc="outside lower center", ncols=2)  # below: fits a phone
    return figure


def _learned_note(results: Results, task: str, scheme: str) -> str:
    """``""`` when every seed learned the task, else how many did (the others stop at the training length)."""
    learned, seeds = len(results.fitted_seeds(task, scheme)), len(results.settings.seeds)
    if learned == seeds:
        return ""
    return f" ({DID_NOT_LEARN})" if learned == 0 else f" ({learned} of {seeds} seeds learned)"


def scheme_label(results: Results, task: str, scheme: str, seed: int | None = None) -> str:
    """A scheme's legend entry for one task: its name, and whether its models (every seed's, or
    ``seed``'s alone) learned the task, or else, if its line stops, where: "learned table (stops at 8)"."""
    curves = results.shown_curves(task, scheme)  # (seeds, lengths)
    if seed is None:
        note = _learned_note(results, task, scheme)
    else:
        seed = checks.one_of(seed, "seed", results.settings.seeds)
        curves = curves[[results.settings.seeds.index(seed)]]  # (1, lengths)
        note = "" if results.fits(task, scheme, seed) else f" ({DID_NOT_LEARN})"
    if not note and np.isnan(curves[:, -1]).all():
        note = f" (stops at {int(results.lengths[~np.isnan(curves[0])].max())})"
    return SCHEME_NAMES[scheme] + note


def _line_order(curves: np.ndarray) -> float:
    """A line's matplotlib z-order: a line that stops at the training length (its models did not
    learn the task, or cannot read longer inputs) over the others, which there often lie at the
    same accuracy (the learned table's line lay hidden under RoPE's and the sinusoidal one's)."""
    return 2.5 if np.isnan(curves[:, -1]).all() else 2.0


def learning_figure(results: Results, task: str, size: tuple[float, float] = (6.4, 4.2)) -> Figure:
    """Accuracy at the training lengths against training steps for one task: a line per scheme
    (mean over the seeds still training), a band from the worst to the best seed.

    Returns:
        The matplotlib ``Figure``.
    """
    _check_task_in(results, task)
    steps = results.steps
    figure = plotting._new_figure(*size)
    axes = figure.add_subplot()
    for scheme in results.settings.schemes:
        history = np.stack([results.history[(task, scheme, seed)] for seed in results.settings.seeds])
        mean, low, high = seed_summary(history)  # (checks,) each; NaN once every seed stopped
        colour = scheme_colour(scheme)
        axes.fill_between(steps, low, high, color=colour, alpha=0.18, linewidth=0)
        axes.plot(steps, mean, color=colour, label=SCHEME_NAMES[scheme], linewidth=1.8, marker="o",
                  markersize=3, linestyle=_MATPLOTLIB_DASHES[SCHEME_DASHES[scheme]])
    axes.axhline(FIT_ACCURACY, color="0.35", linestyle="--", linewidth=1)
    axes.text(steps[-1], FIT_ACCURACY - 0.06, f"learned: {FIT_ACCURACY:g}", color="0.25",
              ha="right")
    room = 0.02 * steps[-1]  # for the markers of the first and last checks
    axes.set_xlim(-room, steps[-1] + room)
    axes.set_ylim(-0.02, 1.02)
    axes.grid(alpha=0.3)
    axes.set_xlabel("training steps (a line ends where its models stopped)")
    axes.set_ylabel(f"accuracy at lengths 1–{results.settings.train_len}")
    axes.set_title(f"{TASK_NAMES[task]}: learning curves\nmean of the seeds, band: min to max", fontsize=10)
    figure.legend(frameon=False, loc="outside lower center", ncols=2)
    return figure


def _band_trace(lengths, low, high, colour: str, name: str):
    x = np.concatenate([lengths, lengths[::-1]]).astype(np.float32)
    y = np.concatenate([high, low[::-1]]).astype(np.float32)
    keep = ~np.isnan(y)
    return plotting.go.Scatter(x=x[keep], y=y[keep], mode="lines", fill="toself",
                               fillcolor=_transparent(colour), line=dict(width=0), hoverinfo="skip",
                               showlegend=False, name=name)


def _transparent(colour: str, alpha: float = 0.2) -> str:
    red, green, blue = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha})"


def _chance_trace(task: str, lengths: np.ndarray):
    """The task's chance level as a dotted line across the plot, named in the legend; an empty
    trace for a task without one (each state of the explorer has as many traces)."""
    chance = chance_level(task)
    if chance is None:
        return plotting.go.Scatter(x=[], y=[], mode="lines", showlegend=False, hoverinfo="skip")
    return plotting.go.Scatter(x=[0.5, lengths[-1] + 0.5], y=[chance, chance], mode="lines",
                               name=f"chance ({chance:.3f})", hoverinfo="skip",
                               line=dict(color="rgb(110,110,110)", dash="dot", width=1))


def explorer_figure(results: Results) -> plotting.go.Figure:
    """A Plotly slider over every task, and over "all seeds" or each single seed.

    Each state draws one line per scheme (the mean, or the chosen seed) and, for "all
    seeds", the min-max band. All states are computed here, so the slider needs no kernel.
    """
    lengths = results.lengths
    seeds = results.settings.seeds
    states, labels, titles = [], [], []
    for task in results.settings.tasks:
        for view in ("all", *seeds):
            traces = []
            for scheme in results.settings.schemes:
                curves = results.shown_curves(task, scheme)  # (seeds, lengths), NaN past L unless learned
                if view == "all":
                    line, low, high = seed_summary(curves)
                else:
                    line = low = high = curves[seeds.index(view)]
                colour = scheme_colour(scheme)
                traces.append(_band_trace(lengths, low, high, colour, SCHEME_NAMES[scheme]))
                # a line that stops at the training length is drawn over the others (zorder), as
                # on the static figures, and says why it stops, as their legends do
                traces.append(plotting.go.Scatter(
                    x=lengths, y=line.astype(np.float32), mode="lines",
                    name=scheme_label(results, task, scheme, None if view == "all" else view),
                    line=dict(color=colour, width=2, dash=SCHEME_DASHES[scheme]),
                    zorder=1 if np.isnan(line[-1]) else 0,
                    hovertemplate=f"{SCHEME_NAMES[scheme]}<br>length %{{x}}: %{{y:.2f}}<extra></extra>"))
            traces.append(_chance_trace(task, lengths))
            states.append(traces)
            short = task.replace("_", " ")
            labels.append(f"{short}, all seeds" if view == "all" else f"{short}, seed {view}")
            titles.append(f"{TASK_SHORT[task]}: " + ("all seeds" if view == "all" else f"seed {view}"))
    figure = plotting.slider_figure(states, labels, slider_title="task, seeds", titles=titles, height=500)
    train_len = results.settings.train_len
    figure.update_layout(
        shapes=[dict(type="rect", xref="x", yref="paper", x0=0.5, x1=train_len + 0.5, y0=0, y1=1,
                     fillcolor="rgba(128,128,128,0.12)", line=dict(width=0), layer="below"),
                dict(type="line", xref="x", yref="paper", x0=train_len + 0.5, x1=train_len + 0.5, y0=0, y1=1,
                     line=dict(color="rgb(110,110,110)", dash="dash", width=1))],
        # At the foot of the plot, as on the static figures: at its top, the lines of the
        # models that learned (accuracy 1) ran through it.
        annotations=[dict(x=train_len + 0.5, y=0.02, xref="x", yref="y",  # just above the zero line
                          text=f" training length {train_len}", showarrow=False, xanchor="left",
                          yanchor="bottom", font=dict(size=11))],
    )
    plotting.legend_above(figure, top_margin=140)  # three rows: the schemes' notes and chance
    # No vertical grid lines: the one at 10 ran through the note (on a phone it is twelve lengths wide).
    figure.update_xaxes(title_text="test length (tokens)", range=[0.5, lengths[-1] + 0.5], showgrid=False)
    figure.update_yaxes(title_text="accuracy", range=[-0.02, 1.02])
    return figure


def format_window(results: Results, task: str, scheme: str, window: str) -> str:
    """``"mean (range)"`` over the seeds of one window's accuracy, to one decimal.

    Past the training length only the seeds that learned the task count; the cell says
    :data:`DID_NOT_LEARN` when none did, :data:`NO_PREDICTION` when they cannot read that far.
    The range holds every seed, its ends rounded outwards, as the lesson's prose quotes it
    (``rounding.enclosing_range``). A table is output, so it shows whatever this run gives; the
    prose checks that what it quotes would read the same on any machine.
    """
    seeds = results.settings.seeds if window == "seen" else results.fitted_seeds(task, scheme)
    if not seeds:
        return DID_NOT_LEARN
    per_seed = [results.window_accuracy(task, scheme, window, seed) for seed in seeds]
    if all(math.isnan(value) for value in per_seed):
        return NO_PREDICTION
    mean = results.window_accuracy(task, scheme, window)
    return f"{mean:.1f} ({rounding.enclosing_range(per_seed, within=(0, 1), margin=0)})"


def results_table(results: Results, task: str) -> str:
    """A Markdown table for one task: per scheme, the mean accuracy (worst–best seed) in three windows,
    and how many seeds learned the task (only those are scored past the training length)."""
    _check_task_in(results, task)
    L = results.settings.train_len
    headers = ["scheme", f"lengths 1–{L} (seen)", "seeds that learned", f"{L + 1}–{2 * L}",
               f"{2 * L + 1}–{results.settings.test_len}"]
    seeds = len(results.settings.seeds)
    rows = [[SCHEME_NAMES[scheme], format_window(results, task, scheme, "seen"),
             f"{len(results.fitted_seeds(task, scheme))} of {seeds}",
             *(format_window(results, task, scheme, w) for w in ("2x", "4x"))]
            for scheme in results.settings.schemes]
    return markdown_table(headers, rows)
