"""Tests of when untouched embedding rows stay put: untied vs tied tables, Adam vs AdamW."""

import numpy as np
import pytest
import torch

from embedding_course import untouched_rows as ur

PAD, UNSEEN, VOCAB = 0, 10, 12
IDS = np.array([[2, 5, 3, 4, 2, 6], [9, 7, 3, PAD, PAD, PAD]])  # token 10 never occurs


@pytest.fixture(scope="module")
def histories():
    return {h.setting: h for h in ur.compare_settings(IDS, VOCAB, UNSEEN, PAD, steps=100)}


def test_untied_table_leaves_unseen_and_padding_rows_alone(histories):
    for setting in ("untied, SGD", "untied, Adam"):
        h = histories[setting]
        assert h.unseen_grad_norm == 0 and h.pad_grad_norm == 0
        assert h.unseen_change == 0 and h.unseen_norm_ratio == 1
        assert h.pad_max == 0


def test_tied_table_sends_gradient_to_every_row(histories):
    tied = histories["tied, Adam"]
    assert tied.unseen_grad_norm > 0.01 and tied.pad_grad_norm > 0.001
    assert tied.unseen_change > 0.1  # the never-seen row moved
    assert tied.pad_max > 0.1  # the padding row is no longer zero


def test_adamw_shrinks_an_untouched_row_by_one_minus_lr_times_decay_per_step(histories):
    decayed = histories["untied, AdamW"]
    assert decayed.unseen_grad_norm == 0
    assert decayed.unseen_norm_ratio == pytest.approx((1 - 0.01 * 0.1) ** 100, rel=1e-5)
    assert round(decayed.unseen_norm_ratio, 2) == 0.90
    assert decayed.pad_max == 0  # zero times anything stays zero


def test_table_has_one_row_per_setting(histories):
    text = ur.histories_table(list(histories.values()), 100)
    assert len(text.splitlines()) == 2 + len(ur.SETTINGS)
    with pytest.raises(ValueError, match="empty"):
        ur.histories_table([], 100)


@pytest.mark.parametrize(("kwargs", "error"), [
    (dict(setting="tied, SGD?"), ValueError),
    (dict(unseen=3), ValueError),  # token 3 occurs
    (dict(unseen=PAD), ValueError),
    (dict(unseen=VOCAB), IndexError),
    (dict(ids=np.array([[1, 99]])), IndexError),
    (dict(ids=np.array([1, 2])), ValueError),
    (dict(ids=np.array([[1]])), ValueError),  # T < 2: nothing to predict
    (dict(steps=0), ValueError),
])
def test_bad_arguments(kwargs, error):
    arguments = dict(ids=IDS, vocab_size=VOCAB, unseen=UNSEEN, padding_idx=PAD)
    arguments.update(kwargs)
    with pytest.raises(error):
        ur.train_rows(**arguments)


@pytest.mark.parametrize(("kwargs", "message"), [
    (dict(ids=[[1.7, 2.9]]), r"^token ids must be whole numbers, got 1\.7$"),  # was trained on [[1, 2]]
    (dict(ids=np.zeros((0, 3), dtype=int)), r"^token ids are empty"),
    (dict(ids=torch.tensor([[1.0, 2.0]], requires_grad=True)), r"^token ids must have an integer dtype"),
    (dict(ids=np.array([[1]])), r"^ids must have shape \(B, T\) with T >= 2, got \(1, 1\)$"),
    (dict(dim=0), r"^dim must be a whole number >= 1, got 0"),
    (dict(dim=-1), r"^dim must be a whole number >= 1, got -1"),
    (dict(dim=2.0), r"^dim must be a whole number >= 1, got 2\.0"),
    (dict(weight_decay=-0.1), r"^weight_decay must be a finite number >= 0, got -0\.1"),
])
def test_bad_arguments_say_what_is_allowed(kwargs, message):
    arguments = dict(ids=IDS, vocab_size=VOCAB, unseen=UNSEEN, padding_idx=PAD, steps=1)
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        ur.train_rows(**arguments)
