"""Live explorers for lesson 5: the whole input pipeline, step by step (needs a kernel)."""

from __future__ import annotations

import ipywidgets as widgets
import torch
from IPython.display import Markdown, display

from embedding_course import SEED, attention_order, checks, pipeline, plotting
from embedding_course.figures import pipeline as pipeline_figures
from embedding_course.tokens import WordVocabulary

CORPUS = ("the dog bites the man", "the man bites the dog", "a cat sat on the mat",
          "the cat saw a dog in the park")


def pipeline_explorer(corpus=CORPUS) -> widgets.Widget:
    """Type sentences (one per line): the padded batch, every stage's shape, and the output."""
    vocab = WordVocabulary.from_texts(checks.many(corpus, "corpus", "sentence", checks.text))
    texts = widgets.Textarea(value="the dog bites the man\na cat sat", description="texts",
                             layout=widgets.Layout(width="95%", height="80px"), continuous_update=False)
    positions = widgets.Dropdown(options=["sinusoidal", "learned", "none"], value="sinusoidal",
                                 description="positions")
    scale = widgets.Checkbox(value=True, description="x sqrt(d_model)")
    d_model = widgets.IntSlider(value=16, min=2, max=128, step=2, description="d_model",
                                continuous_update=False)
    max_len = widgets.IntSlider(value=8, min=1, max=16, description="max_len", continuous_update=False)

    def show(text: str, positions: str, scale: bool, d_model: int, max_len: int) -> None:
        lines = [line for line in text.splitlines() if line.strip()]
        if not lines:
            print("Type at least one sentence.")
            return
        torch.manual_seed(SEED)
        model = pipeline.InputEmbedding(len(vocab), d_model, max_len, positions=positions, scale=scale,
                                        padding_idx=vocab.pad_id, init_std=d_model ** -0.5).eval()
        batch, stages = pipeline.trace_pipeline(lines, vocab, model, max_len=max_len)
        display(Markdown(batch.to_markdown()))
        for stage in stages:
            print(f"{stage.name:<40} {stage.shape_text}")
        display(plotting.heatmap(stages[-1].tensor[0], title="output, sequence 0", xlabel="channel",
                                 ylabel="slot", diverging=True))

    return widgets.interactive(show, text=texts, positions=positions, scale=scale, d_model=d_model,
                               max_len=max_len)


def order_explorer(corpus=CORPUS) -> widgets.Widget:
    """Two reorderings of the same words: attention scores with and without positions."""
    vocab = WordVocabulary.from_texts(checks.many(corpus, "corpus", "sentence", checks.text))
    first = widgets.Text(value="dog bites man", description="sentence A", continuous_update=False)
    second = widgets.Text(value="man bites dog", description="sentence B", continuous_update=False)

    def show(first: str, second: str) -> None:
        torch.manual_seed(SEED)
        model = pipeline.InputEmbedding(len(vocab), 16, 32, init_std=16 ** -0.5).eval()
        try:
            experiment = attention_order.order_experiment(first, second, vocab, model)
        except ValueError as error:
            print(error)
            return
        print(f"without positions, B's scores are A's reordered: largest gap {experiment.gap_without:.2e}")
        print(f"with positions, the largest gap is {experiment.gap_with:.3f}")
        display(pipeline_figures.order_figure(experiment))

    return widgets.interactive(show, first=first, second=second)
