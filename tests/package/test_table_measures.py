"""Tests of table_measures: the numbers lesson 4 quotes about its tables."""

import pytest
import torch

from embedding_course import positional, table_measures


def test_heatmap_goes_flat_between_dimensions_250_and_300():
    table = positional.sinusoidal_encoding(100, 512, device="cpu")
    assert table_measures.first_flat_dimension(table, 0.5) == 255
    assert table_measures.first_flat_dimension(table, 0.1) == 301
    turned = 99 * positional.inverse_frequencies(512)  # radians each pair turns over positions 0..99
    assert round(float(turned[100 // 2]), 1) == 16.4  # dimension 100: 2.6 cycles, far from flat
    assert round(float(turned[200 // 2]), 1) == 2.7


def test_the_sines_keep_moving_well_past_the_first_flat_cosine():
    """Lesson 4: the first flat columns are cosines; the last sines to move are far to the right."""
    table = positional.sinusoidal_encoding(100, 512, device="cpu")
    assert table_measures.first_flat_dimension(table, 0.5) % 2 == 1  # a cosine column
    assert table_measures.first_flat_dimension(table, 0.1) % 2 == 1
    assert table_measures.last_moving_dimension(table, 0.5, "cos") == 253
    assert table_measures.last_moving_dimension(table, 0.1, "cos") == 299
    assert table_measures.last_moving_dimension(table, 0.5, "sin") == 290
    assert table_measures.last_moving_dimension(table, 0.1, "sin") == 382
    column_320 = table[:, 320]
    assert float(column_320.min()) == 0.0 and round(float(column_320.max()), 2) == 0.31


def test_last_moving_dimension_checks_its_arguments_and_says_when_nothing_moves():
    assert table_measures.last_moving_dimension(torch.zeros(3, 4), 0.5, "sin") == -1
    assert table_measures.last_moving_dimension(torch.eye(4), 0.5, "cos") == 3
    with pytest.raises(ValueError, match="columns must be 'sin'"):
        table_measures.last_moving_dimension(torch.eye(4), 0.5, "tan")
    with pytest.raises(ValueError, match="threshold"):
        table_measures.last_moving_dimension(torch.eye(4), 0, "sin")


def test_first_flat_dimension_is_the_width_when_nothing_is_flat():
    assert table_measures.first_flat_dimension(torch.eye(3), 0.5) == 3
    with pytest.raises(ValueError, match="threshold"):
        table_measures.first_flat_dimension(torch.eye(3), 0)


def test_far_fewer_than_half_of_the_sines_are_negative():
    assert round(100 * table_measures.negative_sine_share(100, 512), 1) == 15.9
    assert round(100 * table_measures.negative_sine_share(512, 512), 1) == 24.7


def test_offset_explains_all_of_a_sinusoidal_similarity_and_half_of_minilm():
    from embedding_course import pretrained

    sinusoidal = positional.position_similarity(positional.sinusoidal_encoding(64, 32, device="cpu").double())
    assert table_measures.offset_explained_variance(sinusoidal) == pytest.approx(1.0)
    noise = positional.position_similarity(torch.randn(64, 32, generator=torch.Generator().manual_seed(0)))
    assert table_measures.offset_explained_variance(noise) < 0.1
    table = torch.as_tensor(pretrained.bert_position_table(), dtype=torch.float64)  # (512, 384)
    minilm = positional.position_similarity(table)
    assert round(table_measures.offset_explained_variance(minilm), 2) == 0.49
    with pytest.raises(ValueError, match="square"):
        table_measures.offset_explained_variance(torch.zeros(2, 3))
