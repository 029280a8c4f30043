"""Claims in the pages' prose that are words, not numbers: quotations and overstatements.

A quotation must be the source's exact words; a claim that a review found overstated must
not come back. The numbers behind each corrected claim are pinned by the tests of the
module that computes them (named in each test).
"""

import re
from pathlib import Path

import pytest

LESSONS = Path(__file__).resolve().parents[2] / "book" / "lessons"

QUOTATIONS = {
    # page -> the exact words of a source the page quotes
    "04_sinusoidal_positions.md": [
        # Vaswani et al. (2017), "Attention Is All You Need", section 3.5
        "we hypothesized it would allow the model to easily learn to attend by relative positions",
    ],
    "02_one_hot.md": [
        # Flaxformer, flaxformer/components/embedding.py, the docstring of Embed
        "is currently needed for SPMD partitioning",
        # google-research/bert, modeling.py, embedding_postprocessor (the token-type lookup)
        "it is always faster for a small vocabulary",
    ],
}

OVERSTATEMENTS = {
    # page -> wording that said more than the evidence (see the test named in the comment)
    # test_ids: an unknown character makes its whole word [UNK], not itself alone
    "01_tokens_to_vectors.md": ["WordPiece still gives `[UNK]` for unknown characters"],
    # Google's BERT does the lookup one-hot on TPUs too, not only Flaxformer for SPMD
    "02_one_hot.md": ["and then for a reason: Flaxformer"],
    "03_dense_lookup.md": ["AdamW shrinks them all",  # test_untouched_rows: the zero padding row stays 0
                           # test_untouched_rows: decayed.pad_max == 0 (a zero row stays zero)
                           "stays zero\" with a tied table or AdamW",
                           "trained\nwithout weight decay it stays zero",
                           # openai/gpt-2's README: the paper's 117M was an error, not a rounding
                           "rounds its small model to 117M",
                           "rows a backward pass changes",  # the optimiser changes rows, tied ones all
                           "total counts as published"],  # lookup.MODEL_CONFIGS: the checkpoints' counts
    "04_sinusoidal_positions.md": ["could easily learn to attend",  # not the paper's words
                                   # RoPE (2021) came before ALiBi's paper, for relative positions
                                   "one reason newer models moved the position information",
                                   "rotates every pair of channels",  # partial RoPE: lesson 8
                                   "trained *from scratch*, none of this matters",  # not measured
                                   # T5's bias and ALiBi depend on the offset alone too
                                   "is the method that enforces it", "RoPE enforces it",
                                   # rotation_matrix's blocks are [[cos, sin], [-sin, cos]]
                                   "each a cosine, minus sine, sine, cosine",
                                   "beside the first columns of a sinusoidal"],  # all 16 are drawn
    # lesson 7: NoPE did not infer positions; a zero input still takes a share of the softmax
    "05_combined_pipeline.md": ["positions, as [lesson 7](07_length_generalisation.md) measures",
                                "Position encodings still help such models", "This is why the attention",
                                # fairseq scales by sqrt(d) with learned positions too
                                "Models with learned positions, such as BERT and GPT-2, do not use",
                                # on their synthetic tasks, against four encodings
                                "in training Kazemnejad et al. found no encoding at all the best"],
    "06_seeing_embeddings.md": ["almost all words have positive cosines",  # test_glove: band_cosines
                                "other programming languages",  # test_glove: python's neighbours
                                # test_training: within the groups the toy and GloVe are alike
                                "real text mixes everything",
                                # test_training: 175 here, 150 a hair below 90 %: hundreds are quoted
                                "by step {glue:text}`settle_step`"],
    "07_length_generalisation.md": ["millions of times smaller",  # the ratio is computed on the page
                                    "length 1 has no answer",  # test_exercises_lesson_7: NaN at 1..3
                                    "did not find a way\naround the bias",
                                    # test_length_generalisation_claims: a few hundred steps prove
                                    # nothing more, and most of NoPE's and ALiBi's models were
                                    # still training when the budget ended
                                    "not for lack of steps", "a longer run is unlikely to rescue it",
                                    "NoPE's learning curve is flat",
                                    # a table has as many rows as it was made with (MiniLM: 512)
                                    "past its training length: it has no row there",
                                    # 0.133 printed as 0.1 read as below chance (0.125)
                                    "Sinusoidal is down to {glue:text}`copy_sin_two_later:.1f`"],
    "08_rotary_positions.md": ["most of them read",  # no source; most long-context models train longer
                               "they are the ones that misbehave",  # the methods' assumption, not a fact
                               "RoPE scores tend to fade",  # RoFormer bounds them
                               "32 times their context",  # Chen et al.: 2,048 -> 32,768 is 16 times
                               "A head of width 8",  # lesson 7's heads are 4 wide: glued now
                               # test_rotary: past distance 1,000 the bound reaches 10.545, not below 10.5
                               "it stays below",
                               # test_rotary: past about 100 positions the bound's peaks stay near 10
                               "then wobbles slowly downwards",
                               # closed models do not say; MPT (2023) uses ALiBi
                               "Almost every large language model released since 2023",
                               # test_rope_scaling: the clamp keeps pair 0, with or without rounding
                               "because its reference code, which the course follows, rounds",
                               # test_rope_extension: 0.75 rad on pair 0 is close to 7 places back
                               "one the model never saw"],
    "09_questions.md": [
        # test_rope_extension: with no fine-tune NTK-aware and YaRN keep the trained lengths that
        # PI breaks; fine-tuned, they get nearly every answer right
        "All of them then fine-tune briefly",
        # test_rope_extension: past position 0 the wrong layout still scores 0.9-1.0 on short inputs
        "every other position wrong", "Only position 0 comes out right",
        # exact only in a causal model: an encoder's position 0 also reads the later keys
        "bug, and a quiet one: position 0 comes out exactly right",
        "layout.** Position 0 comes out exactly right",
        # the paper gives no initialisation; tensor2tensor's code does
        "The original transformer starts its token table",
        # neither paper gives a reason for learning the table
        "GPT-2 and BERT learn a table because",
        # test_questions: a RoPE head's scores do not move when left padding shifts every position
        "RoPE models are not immune",
        # no source gives that motive; transformers does it for every model with position ids
        "it costs nothing and keeps even the rounding",
        # 13 positions of one model were tested (test_questions)
        "Not in a trained model", "in a trained model the token survives",
        # the tokens lost at position 0 are the short ones (test_questions), rarity is not measured
        "the sum of a rare token",
        # only MiniLM's table, trained without the factor, was measured
        "With a trained table, or PyTorch's default",
        # long-context models train past 60,611 positions
        "far more than any training sequence"],
}


def _prose(page: str) -> str:
    """The page's text with line breaks and repeated spaces folded into one space."""
    return re.sub(r"\s+", " ", (LESSONS / page).read_text(encoding="utf-8"))


@pytest.mark.parametrize("page, words", [(p, w) for p, quotes in QUOTATIONS.items() for w in quotes])
def test_a_quotation_is_the_sources_exact_words(page, words):
    assert f'"{words}"' in _prose(page)


def test_lesson_4_quotes_nothing_else_from_the_paper_in_quotation_marks():
    prose = _prose("04_sinusoidal_positions.md")
    quoted = re.findall(r'"([^"]*relative positions[^"]*)"', prose)
    assert quoted == QUOTATIONS["04_sinusoidal_positions.md"]


@pytest.mark.parametrize("page, words", [(p, w) for p, claims in OVERSTATEMENTS.items() for w in claims])
def test_an_overstated_claim_does_not_come_back(page, words):
    assert re.sub(r"\s+", " ", words) not in _prose(page)


def test_lesson_6_names_only_neighbours_that_are_glued_from_the_list():
    """The python sentence quotes each neighbour with its rank, computed on the page."""
    prose = _prose("06_seeing_embeddings.md")
    for word in ("reticulated", "spamalot", "php"):
        assert f"*{word}*, number {{glue:text}}`python_{word}`" in prose
