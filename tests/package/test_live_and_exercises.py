"""The shared parts of exercise checkers (live explorers: test_live.py)."""

from embedding_course import exercises


def test_feedback_is_truthy_only_when_correct():
    assert exercises.correct("well done")
    verdict = exercises.wrong("shape is (3, 4), expected (4, 3)")
    assert not verdict
    assert "shape is (3, 4)" in str(verdict)
    assert verdict._repr_markdown_().startswith("**Not yet.**")
