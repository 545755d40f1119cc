"""The FileCheck helper itself: each directive passes what it should and fails what it should."""

from __future__ import annotations

import pytest

from tests.filecheck import check

TEXT = "graph {\n  #0 relu a\n  #1 add b\n  #2 relu c\n}\n"


def test_checks_match_in_order() -> None:
    check(TEXT, """
        CHECK: #0 relu
        CHECK-NEXT: #1 add
        CHECK: #2
        CHECK-NEXT: }
    """)


def test_a_check_does_not_look_back() -> None:
    with pytest.raises(AssertionError, match="'CHECK: #0' did not match"):
        check(TEXT, "CHECK: #1\nCHECK: #0")


def test_check_next_needs_the_very_next_line() -> None:
    with pytest.raises(AssertionError, match="'CHECK-NEXT: #2' did not match"):
        check(TEXT, "CHECK: #0\nCHECK-NEXT: #2")


def test_check_not_covers_the_gap_between_matches() -> None:
    check(TEXT, "CHECK: #0\nCHECK-NOT: relu\nCHECK: #1")
    with pytest.raises(AssertionError, match="'CHECK-NOT: add' found on line 2"):
        check(TEXT, "CHECK: #0\nCHECK-NOT: add\nCHECK: #2")


def test_a_trailing_check_not_covers_the_rest() -> None:
    with pytest.raises(AssertionError, match="'CHECK-NOT: relu c' found"):
        check(TEXT, "CHECK: #1\nCHECK-NOT: relu c")


def test_a_pattern_that_is_no_directive_is_refused() -> None:
    with pytest.raises(ValueError, match="not a CHECK directive"):
        check(TEXT, "relu")


def test_check_same_looks_at_the_matched_line_only() -> None:
    check(TEXT, "CHECK: #1\nCHECK-SAME: add b\nCHECK-NEXT: #2")
    with pytest.raises(AssertionError, match="'CHECK-SAME: relu' did not match"):
        check(TEXT, "CHECK: #1\nCHECK-SAME: relu")
