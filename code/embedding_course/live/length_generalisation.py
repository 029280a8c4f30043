"""Live form for lesson 7: rerun the train-short/test-long experiment with other settings (needs a kernel)."""

from __future__ import annotations

import ipywidgets as widgets
from IPython.display import Markdown, display

from embedding_course import length_generalisation as experiment
from embedding_course.figures import length_generalisation as figures
from embedding_course.tiny_transformer import SCHEME_NAMES, SCHEMES


def experiment_form(seeds: tuple[int, ...] = (0, 1, 2)) -> widgets.Widget:
    """Pick schemes, a task, the training length and the steps; press the button to train and test.

    Training takes a few seconds per scheme on a CPU, so nothing runs until the button is pressed.
    """
    schemes = widgets.SelectMultiple(options=[(SCHEME_NAMES[s], s) for s in SCHEMES], value=SCHEMES,
                                     description="schemes", rows=len(SCHEMES))
    task = widgets.Dropdown(options=[(experiment.TASK_NAMES[t], t) for t in experiment.TASKS],
                            value=experiment.TASKS[0], description="task",
                            layout=widgets.Layout(width="95%"))
    train_len = widgets.IntSlider(value=8, min=4, max=32, description="train length")
    steps = widgets.IntSlider(value=150, min=25, max=1000, step=25, description="steps")

    def run(schemes, task, train_len, steps):
        if not schemes:
            print("Pick at least one scheme.")
            return
        settings = experiment.RunSettings(train_len=train_len, steps=steps, seeds=tuple(seeds),
                                          schemes=tuple(schemes), tasks=(task,))
        results = experiment.run_experiment(settings)
        print(f"{len(schemes) * len(seeds)} models trained and tested on {results.device} "
              f"in {results.seconds:.1f} s")
        display(figures.accuracy_figure(results, task))
        display(Markdown(figures.results_table(results, task)))

    return widgets.interactive(run, {"manual": True, "manual_name": "Train and test"},
                               schemes=schemes, task=task, train_len=train_len, steps=steps)
