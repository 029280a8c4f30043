"""Tests of the train-short/test-long experiment: its tasks, settings, training and results.

Lesson 7's claims, which train the page's own models again, are in
``test_length_generalisation_claims.py``.
"""


import dataclasses

import numpy as np
import pytest
import torch

from embedding_course import length_generalisation as experiment
from embedding_course.figures import length_generalisation as figures
from embedding_course.plotting import figure_png, narrow_figure

TINY = experiment.RunSettings(train_len=6, steps=3, batch_size=4, eval_batch=8, seeds=(0, 1),
                              schemes=("none", "learned"), tasks=("copy_back", "marked_token"))


# ---------------------------------------------------------------- tasks

def _batch(task, length=10, batch=64, seed=0):
    return experiment.make_batch(task, batch, length, torch.Generator().manual_seed(seed))


def test_copy_back_answers_with_the_token_three_places_back():
    ids, targets = _batch("copy_back")
    assert (targets[:, :3] == experiment.IGNORE).all()
    assert torch.equal(targets[:, 3:], ids[:, :-3])


def test_copy_targets_look_back_any_offset_and_check_their_arguments():
    ids = torch.tensor([5, 1, 4, 4, 2])
    assert experiment.copy_targets(ids).tolist() == [-100, -100, -100, 5, 1]
    assert experiment.copy_targets(ids[None], 1).tolist() == [[-100, 5, 1, 4, 4]]
    assert experiment.copy_targets(ids, 9).tolist() == [-100] * 5  # nothing that far back
    with pytest.raises(ValueError, match="offset must be"):
        experiment.copy_targets(ids, 0)
    with pytest.raises(ValueError, match="whole numbers"):
        experiment.copy_targets(ids.float())


SEED_HINT = r" \(any whole number >= 0 gives a repeatable draw\)$"


@pytest.mark.parametrize("ids", [torch.tensor([True, False, True, True]), [True, False, True, True]])
def test_copy_targets_refuse_booleans(ids):
    """IGNORE (-100) would be cast to True: the targets would ask for token 1 where there is no answer."""
    with pytest.raises(ValueError, match=r"whole numbers, got shape \(4,\) and dtype torch\.bool"):
        experiment.copy_targets(ids)


def test_copy_targets_of_small_integer_types_are_int64_with_ignore():
    targets = experiment.copy_targets(torch.tensor([5, 1, 4, 4], dtype=torch.uint8))
    assert targets.dtype == torch.int64 and targets.tolist() == [-100, -100, -100, 5]  # not 156


def test_first_token_answers_with_the_token_at_index_zero_everywhere():
    ids, targets = _batch("first_token")
    assert torch.equal(targets, ids[:, :1].expand_as(ids))


def test_marked_token_holds_one_marked_token_and_answers_none_before_it():
    ids, targets = _batch("marked_token")
    marked = ids >= experiment.PLAIN_TOKENS
    assert (marked.sum(1) == 1).all()
    where = marked.int().argmax(1)
    for row in range(ids.shape[0]):
        p = int(where[row])
        assert (targets[row, :p] == experiment.NONE_CLASS).all()
        assert (targets[row, p:] == ids[row, p]).all()


def test_batches_repeat_with_the_seed_and_differ_without_it():
    assert all(torch.equal(a, b) for a, b in zip(_batch("first_token"), _batch("first_token"), strict=True))
    assert not torch.equal(_batch("first_token")[0], _batch("first_token", seed=1)[0])


@pytest.mark.parametrize("call, error, message", [
    (lambda g: experiment.make_batch("reverse", 2, 5, g), ValueError,
     "task must be one of copy_back, first_token, marked_token"),
    (lambda g: experiment.make_batch("copy_back", 0, 5, g), ValueError, "batch_size must be"),
    (lambda g: experiment.make_batch("copy_back", 2, 2.0, g), ValueError, "seq_len must be"),
    (lambda g: experiment.make_batch("copy_back", 2, 5, 0), ValueError, "generator must be a torch.Gen"),
])
def test_make_batch_checks_its_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call(torch.Generator().manual_seed(0))


@pytest.mark.parametrize("options, message", [
    (dict(train_len=3), "train_len must exceed 3"),
    (dict(steps=0), "steps must be"),
    (dict(learning_rate=2.0), r"^learning_rate must be a finite number > 0 and < 1, got 2\.0$"),
    (dict(learning_rate=0), "learning_rate must be"),
    (dict(seeds=()), r"^seeds is empty; give at least one seed$"),
    (dict(seeds=3), r"^seeds must be a list of seeds, got 3$"),
    (dict(tasks=("copy_back", "sum")), r"^tasks\[1\] must be one of copy_back, first_token, marked_token, "
                                        r"got 'sum'$"),
    (dict(seeds=(0, -1)), r"^seeds\[1\] must be a whole number >= 0, got -1" + SEED_HINT),
    (dict(seeds=(0, True)), r"^seeds\[1\] must be a whole number >= 0, got True" + SEED_HINT),
    (dict(dtype="float16"), r"^dtype must be one of float32, float64, got 'float16'$"),
    (dict(schemes=("nope",)), r"^schemes\[0\] must be one of"),
    (dict(tasks=("sum",)), r"^tasks\[0\] must be one of"),
    (dict(patience=0), "patience must be"),
    (dict(min_gain=1.5), r"^min_gain must be a probability in \[0, 1\), got 1\.5 \(a gain in accuracy\)$"),
])
def test_run_settings_check_their_values(options, message):
    with pytest.raises(ValueError, match=message):
        experiment.RunSettings(**options)


def test_run_experiment_and_train_models_check_their_arguments():
    with pytest.raises(ValueError, match="settings must be a RunSettings"):
        experiment.run_experiment({"steps": 3})
    with pytest.raises(ValueError, match="jobs is empty"):
        experiment.train_models("none", [], TINY)
    with pytest.raises(ValueError, match=r"^seed must be a whole number >= 0, got 1\.5" + SEED_HINT):
        experiment.train_models("none", [("copy_back", 1.5)], TINY)
    with pytest.raises(ValueError, match=r"^seed must be a whole number >= 0, got -1" + SEED_HINT):
        experiment.train_models("none", [("copy_back", -1)], TINY)
    results = experiment.run_experiment(TINY)
    with pytest.raises(ValueError, match="window must be one of seen, 2x, 4x"):
        results.window_accuracy("copy_back", "none", "8x")
    with pytest.raises(ValueError, match=r"^task must be one of copy_back, first_token, marked_token, "
                                         r"got 'sum'$"):
        experiment.train_models("none", [("sum", 0)], TINY)
    with pytest.raises(ValueError, match="was not run"):
        figures.accuracy_figure(results, "first_token")
    with pytest.raises(ValueError, match="was not run"):
        figures.results_table(results, "first_token")


# ---------------------------------------------------------------- the experiment's machinery

def test_training_side_by_side_gives_the_models_training_alone_would():
    settings = experiment.RunSettings(train_len=6, steps=5, batch_size=4, eval_batch=8)
    alone = experiment.train_model("copy_back", "rope", settings, seed=1, device="cpu")
    together = experiment.train_models("rope", [("first_token", 0), ("copy_back", 1)], settings, "cpu")[1]
    for (name, a), (_, b) in zip(alone.named_parameters(), together.named_parameters(), strict=True):
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-4, msg=name)


def test_a_model_stops_when_perfect_or_stalled_and_keeps_its_weights():
    settings = experiment.RunSettings(train_len=6, steps=60, batch_size=8, eval_batch=8, check_every=10,
                                      patience=2, min_gain=0.5, check_batch=8)
    jobs = [("copy_back", 0), ("first_token", 1)]
    models, history = experiment.train_with_history("none", jobs, settings, "cpu")
    steps = experiment.check_steps(settings)
    assert history.shape == (2, len(steps)) and steps[0] == 0 and steps[-1] == 60
    for row in history:
        scored = row[~np.isnan(row)]
        assert np.isnan(row[len(scored):]).all()  # NaN only after the model stopped
        assert len(scored) < len(steps)  # a gain of 0.5 in two checks: every model stalls early
    # a stopped model's weights are those of the same model trained alone for the same steps
    stopped = len(history[0][~np.isnan(history[0])]) - 1
    alone = experiment.RunSettings(train_len=6, steps=int(steps[stopped]), batch_size=8, eval_batch=8,
                                   check_every=10, patience=100, check_batch=8)
    reference = experiment.train_model("copy_back", "none", alone, seed=0, device="cpu")
    for (name, a), (_, b) in zip(models[0].named_parameters(), reference.named_parameters(), strict=True):
        torch.testing.assert_close(a, b, atol=1e-9, rtol=1e-9, msg=name)


def test_has_stopped_reads_perfect_and_stalled_histories():
    settings = experiment.RunSettings(patience=2, min_gain=0.05)
    history = np.array([[0.1, 0.5, 1.0],  # perfect
                        [0.1, 0.5, 0.52],  # still improving: 0.52 is more than 0.05 above the best before
                        [0.1, 0.3, 0.6]])
    assert experiment._has_stopped(history, settings).tolist() == [True, False, False]
    longer = np.array([[0.1, 0.5, 0.52, 0.53], [0.1, 0.2, 0.3, 0.6]])
    assert experiment._has_stopped(longer, settings).tolist() == [True, False]


def test_float64_is_the_default_and_float32_is_allowed():
    assert experiment.new_model("rope", experiment.RunSettings()).head.weight.dtype == torch.float64
    model = experiment.new_model("alibi", experiment.RunSettings(dtype="float32"))
    assert model.head.weight.dtype == torch.float32
    with pytest.raises(ValueError, match="dtype must be one of float32, float64"):
        experiment.RunSettings(dtype="float16")


def test_accuracy_of_the_learned_table_is_nan_past_its_training_length():
    model = experiment.train_model("marked_token", "learned", TINY, device="cpu")
    accuracy = experiment.accuracy_by_length(model, "marked_token", 24, batch_size=8)
    assert accuracy.shape == (24,)
    assert np.isfinite(accuracy[:6]).all() and np.isnan(accuracy[6:]).all()


def test_a_different_index_error_is_not_taken_for_no_prediction():
    model = experiment.train_model("marked_token", "none", TINY, device="cpu")
    model.vocab_size = 3  # now the test tokens are out of range: a real error, not a length limit
    with pytest.raises(IndexError, match=r"token id \d+ is outside the vocabulary \(0\.\.2\)"):
        experiment.accuracy_by_length(model, "marked_token", 12, batch_size=8)


def test_two_runs_give_identical_numbers_and_figures():
    first, second = experiment.run_experiment(TINY), experiment.run_experiment(TINY)
    for key, curve in first.accuracy.items():
        np.testing.assert_array_equal(curve, second.accuracy[key])
    assert figure_png(figures.accuracy_figure(first, "copy_back")) == \
        figure_png(figures.accuracy_figure(second, "copy_back"))
    assert figures.explorer_figure(first).to_json() == figures.explorer_figure(second).to_json()
    assert figures.results_table(first, "copy_back") == figures.results_table(second, "copy_back")


def test_the_experiment_restores_the_global_torch_settings():
    threads = torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
    experiment.run_experiment(TINY)
    assert torch.get_num_threads() == threads
    assert torch.are_deterministic_algorithms_enabled() == deterministic


def test_results_give_a_tidy_table_and_the_figures_their_parts():
    results = experiment.run_experiment(TINY)
    rows = results.rows()
    assert len(rows) == 2 * 2 * 2 * TINY.test_len
    assert set(rows[0]) == {"task", "scheme", "seed", "length", "accuracy"}
    explorer = figures.explorer_figure(results)
    assert len(explorer.layout.sliders[0].steps) == 2 * (1 + 2)  # tasks x (all seeds, each seed)
    assert all(trace.mode == "lines" for trace in explorer.data)  # no stray markers on short bands
    # the training length is written at the plot's foot: at its top the lines at accuracy 1 crossed it
    note = explorer.layout.annotations[0]
    assert (note.text.strip(), note.yref, note.y, note.yanchor) == (
        f"training length {TINY.train_len}", "y", 0.02, "bottom")
    table = figures.results_table(results, "copy_back")
    assert table.count("\n") == 1 + 2  # header, rule, one row per scheme
    assert table.count(figures.DID_NOT_LEARN) == 2 * 2  # three steps: no model learned, no score past L
    assert results.device == "cpu" and results.seconds > 0


def test_the_table_says_no_prediction_for_a_learned_table_that_fit_and_did_not_learn_for_one_that_did_not():
    settings = experiment.RunSettings(train_len=4, seeds=(0, 1), schemes=("learned", "none"),
                                      tasks=("first_token",))
    fit, unfit = np.r_[[1.0] * 4, [np.nan] * 12], np.r_[[0.5] * 4, [0.4] * 12]
    results = experiment.Results(settings, accuracy={("first_token", "learned", 0): fit,
                                                     ("first_token", "learned", 1): fit,
                                                     ("first_token", "none", 0): np.r_[[1.0] * 4, [0.9] * 12],
                                                     ("first_token", "none", 1): unfit})
    table = figures.results_table(results, "first_token")
    assert table.count(figures.NO_PREDICTION) == 2  # the learned table, past L
    assert "| 2 of 2 |" in table and "| 1 of 2 |" in table
    assert "0.9 (0.9–0.9)" in table  # only the seed that learned is scored past L
    assert results.fitted_seeds("first_token", "none") == (0,)
    assert np.isnan(results.shown_curves("first_token", "none")[1, 4:]).all()



def _two_scheme_results():
    """Results without training: the learned table fits both tasks and stops at L = 4 (no row
    for longer inputs); NoPE learns with seed 0 only (seed 1 stops at L, "did not learn")."""
    settings = experiment.RunSettings(train_len=4, seeds=(0, 1), schemes=("none", "learned"),
                                      tasks=("first_token", "marked_token"))
    fit, unfit = np.r_[[1.0] * 4, [np.nan] * 12], np.r_[[0.5] * 4, [0.4] * 12]
    accuracy = {}
    for task in settings.tasks:
        accuracy.update({(task, "learned", 0): fit, (task, "learned", 1): fit,
                         (task, "none", 0): np.r_[[1.0] * 4, [0.9] * 12], (task, "none", 1): unfit})
    return experiment.Results(settings, accuracy=accuracy)


def test_a_line_that_stops_is_drawn_over_the_others_and_says_why():
    """At the training lengths the learned table's line lay at accuracy 1 under RoPE's and the
    sinusoidal one's, unseen (Figs 7.1, 7.2): a line that stops at L is drawn over the lines that
    go on, in the static figures and in the explorer, whose legend now says why it stops, as the
    static figures' legends do, for every seed's view."""
    results = _two_scheme_results()
    lines = {line.get_label(): line for line in figures.accuracy_figure(results, "first_token").axes[0].lines}
    stops, goes_on = lines["learned table (stops at 4)"], lines["none (NoPE) (1 of 2 seeds learned)"]
    assert stops.get_zorder() > goes_on.get_zorder()
    explorer = figures.explorer_figure(results)
    steps = explorer.layout.sliders[0].steps
    for step, label in enumerate(step.label for step in steps):
        shown = [trace for trace, visible in zip(explorer.data, steps[step].args[0]["visible"], strict=True)
                 if visible and trace.showlegend is not False]
        names = {trace.name: trace.zorder for trace in shown}
        assert names["learned table (stops at 4)"] == 1, label
        none = {"all seeds": "none (NoPE) (1 of 2 seeds learned)", "seed 0": "none (NoPE)",
                "seed 1": "none (NoPE) (did not learn)"}[label.split(", ")[1]]
        assert names[none] == (1 if label.endswith("seed 1") else 0), label
    assert figures.scheme_label(results, "first_token", "none", seed=1) == "none (NoPE) (did not learn)"
    with pytest.raises(ValueError, match="seed"):
        figures.scheme_label(results, "first_token", "none", seed=7)


def test_no_grid_line_crosses_the_explorers_training_length_note():
    """The note "training length L" runs right from the line at L + 1/2, at the foot of the plot;
    on a phone it is some twelve lengths wide, and the grid lines at 10 and 20 ran through it (Fig. 7.5).
    The explorer draws no vertical grid lines."""
    explorer = figures.explorer_figure(_two_scheme_results())
    notes = [note for note in explorer.layout.annotations if note.text.strip().startswith("training length")]
    assert len(notes) == 1 and notes[0].xanchor == "left"
    assert explorer.layout.xaxis.showgrid is False


def test_the_explorer_marks_chance_in_every_view_of_a_task_that_has_one():
    """The page says "compare with chance (the dotted line)": the explorer draws it too, named
    in its legend, in every view of the tasks whose answer is an ordinary token."""
    explorer = figures.explorer_figure(_two_scheme_results())
    steps = explorer.layout.sliders[0].steps
    for step in steps:
        visible = step.args[0]["visible"]
        shown = [trace for trace, seen in zip(explorer.data, visible, strict=True) if seen]
        chance = [trace for trace in shown if (trace.name or "").startswith("chance")]
        if step.label.startswith("first token"):
            assert [(trace.name, list(trace.y), trace.line.dash) for trace in chance] == [
                ("chance (0.125)", [0.125, 0.125], "dot")], step.label
        else:
            assert chance == [], step.label


# ---------------------------------------------------------------- the live form

def test_live_form_trains_nothing_until_asked_then_runs_the_chosen_settings(monkeypatch):
    import ipywidgets

    from embedding_course.live import length_generalisation as live_length

    runs = []
    original = experiment.run_experiment
    monkeypatch.setattr(experiment, "run_experiment",
                        lambda settings: runs.append(settings) or original(settings))  # a spy: it still runs
    form = live_length.experiment_form(seeds=(0,))
    assert isinstance(form, ipywidgets.Widget) and runs == []  # nothing trained on display
    controls = {child.description: child for child in form.children if hasattr(child, "description")}
    controls["schemes"].value = ("learned",)
    controls["task"].value = "first_token"
    controls["train length"].value = 4
    controls["steps"].value = 25
    form.update()  # what the button does
    assert len(runs) == 1
    chosen = (runs[0].schemes, runs[0].tasks, runs[0].train_len, runs[0].steps)
    assert chosen == (("learned",), ("first_token",), 4, 25)


_RUN_LEARNERS = """
import dataclasses, json, torch
from embedding_course import length_generalisation as experiment
from embedding_course.figures import length_generalisation as figures
settings = dataclasses.replace(experiment.PAGE_SETTINGS, schemes=("sinusoidal", "rope"), tasks=("copy_back",))
results = experiment.run_experiment(settings, device="cpu")
def plain(curves):  # NaN as None, so that equal runs compare equal
    return {repr(key): [None if v != v else float(v) for v in curve] for key, curve in curves.items()}
print(json.dumps({"capability": torch.backends.cpu.get_cpu_capability(),
                  "accuracy": plain(results.accuracy), "history": plain(results.history)}))
"""


@pytest.mark.retrains
def test_models_that_learn_give_the_same_results_on_another_cpu_code_path():
    """Lesson 7: in float64, models that learn a task give bit-identical accuracies on another code path.

    One run uses PyTorch's plainest kernels (``ATEN_CPU_CAPABILITY=default``), the other the
    machine's own (AVX2 or AVX-512 on x86-64): they round differently, as another CPU would.
    """
    import json
    import os
    import subprocess
    import sys

    def run(**env):
        done = subprocess.run([sys.executable, "-c", _RUN_LEARNERS], capture_output=True, text=True,
                              check=True, env={**os.environ, **env}, timeout=1200)
        return json.loads(done.stdout.strip().splitlines()[-1])

    plain, native = run(ATEN_CPU_CAPABILITY="default"), run()
    assert plain["capability"] == "DEFAULT"
    assert plain["accuracy"] == native["accuracy"]
    assert plain["history"] == native["history"]


def test_the_figures_legends_name_all_five_schemes_inside_the_figure_wide_and_on_a_phone():
    """And no marker is cut off at the panel's edge (the learning curves' first checks, at step
    0, once sat on the left edge), and no note is crossed by a rule of its panel."""
    from .figure_checks import (
        assert_legends_read_whole,
        assert_markers_drawn_whole,
        assert_text_clear_of_rules,
        assert_text_reads_whole,
    )

    every_scheme = dataclasses.replace(TINY, schemes=experiment.SCHEMES, seeds=(0,), tasks=("copy_back",))
    results = experiment.run_experiment(every_scheme)
    accuracy = figures.accuracy_figure(results, "copy_back")
    for wide in (accuracy, figures.learning_figure(results, "copy_back")):
        names = [text.get_text() for text in wide.legends[0].get_texts()]
        assert len(names) == len(experiment.SCHEMES) + (wide is accuracy), names  # and "chance (0.125)"
        assert_text_reads_whole(wide)
        assert_legends_read_whole(wide)
        assert_legends_read_whole(narrow_figure(wide))
        assert_markers_drawn_whole(wide)
        assert_markers_drawn_whole(narrow_figure(wide))
        assert_text_clear_of_rules(wide)  # "chance 0.125", once a note, ran into the training length's line
        assert_text_clear_of_rules(narrow_figure(wide))


def test_the_accuracy_figure_marks_chance_where_a_guess_among_the_ordinary_tokens_has_one():
    """Lesson 7 tells the reader to compare with chance (the dotted line): 1/8 on the two tasks
    whose answer is an ordinary token; the control's answer is read off the input."""
    assert experiment.chance_level("copy_back") == experiment.chance_level("first_token") == 1 / 8
    assert experiment.chance_level("marked_token") is None
    with pytest.raises(ValueError, match="task"):
        experiment.chance_level("copy")
    settings = dataclasses.replace(TINY, seeds=(0,), tasks=("copy_back", "marked_token"))
    results = experiment.run_experiment(settings)

    def dotted_levels(task):
        lines = figures.accuracy_figure(results, task).axes[0].lines
        return [line.get_ydata()[0] for line in lines if line.get_linestyle() == ":"]

    assert dotted_levels("copy_back") == [0.125] and dotted_levels("marked_token") == []
