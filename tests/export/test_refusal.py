"""Export refuses, in one line and before any work, splits that would leave the test split empty
and says how many items per type are needed; a type left out of a non-empty test split is named."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import ComlqError
from pipeline.export.split import check_evaluated_split, check_per_type, groups_needed
from pipeline.schemas import write_jsonl


@pytest.mark.parametrize("ratios, needed", [
    ((0.7, 0.1, 0.2), 2),  # test is the second largest split: a type's 2nd group goes there
    ((0.0, 0.0, 1.0), 1),
    ((0.2, 0.1, 0.7), 1),
    ((0.5, 0.25, 0.25), 3),  # validation ties with test and comes first
    ((1.0, 0.0, 0.0), 0),  # no test split at all
])
def test_groups_needed_is_the_test_splits_rank(ratios: tuple[float, float, float], needed: int) -> None:
    assert groups_needed(ratios) == needed


def test_per_type_below_the_need_is_refused_before_any_work() -> None:
    check_per_type(2, (0.7, 0.1, 0.2))
    with pytest.raises(ComlqError, match=r"^per_type 1: with export ratios 0.7,0.1,0.2 a query type needs at least "
                                         r"2 items .* use --per-type 2 or more$"):
        check_per_type(1, (0.7, 0.1, 0.2))
    with pytest.raises(ComlqError, match="the test split would be empty"):
        check_per_type(50, (1.0, 0.0, 0.0))


def test_a_type_left_out_of_the_test_split_is_named_not_refused() -> None:
    by_split = {"train": Counter({"1p": 3, "2in": 2}), "validation": Counter({"1p": 1}), "test": Counter({"1p": 1})}
    assert check_evaluated_split(by_split, (0.7, 0.1, 0.2)) == ["2in"]
    by_split["test"] = Counter()
    with pytest.raises(ComlqError, match=r"^the test split would have no 1p, 2in queries \(items: 1p 4, 2in 2\)"):
        check_evaluated_split(by_split, (0.7, 0.1, 0.2))


def run_of(folder: Path, pool, items) -> Path:
    write_jsonl(folder / "passages.jsonl", (p.to_dict() for p in pool), "passage")
    write_jsonl(folder / "items.jsonl", (i.to_dict() for i in items), "item")
    return folder


def test_export_of_one_item_per_type_is_refused_in_one_line(pool, build_items, tmp_path: Path, capsys) -> None:
    run = run_of(tmp_path / "run", pool, build_items(pool, per_type=1))
    assert main(["export", str(run), "--out", str(run / "export")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("comlq: error: the test split would have no 1p, 2p, 3p, 2i,")
    assert "(items: 1p 1, 2p 1," in err and "each type needs at least 2 items that share no passage" in err
    assert sorted(p.name for p in run.iterdir()) == ["items.jsonl", "passages.jsonl"]  # nothing written, no temp
    assert main(["export", str(run), "--out", str(run / "export"), "--ratios", "0,0,1"]) == 0  # all in test


def test_export_without_a_test_share_is_refused(offline_run: Path, tmp_path: Path, capsys) -> None:
    assert main(["export", str(offline_run), "--out", str(tmp_path / "export"), "--ratios", "1,0,0"]) == 2
    assert "export ratios 1,0,0: the test split would be empty" in capsys.readouterr().err
    assert not (tmp_path / "export").exists()


def test_run_with_too_few_items_per_type_fails_before_prefect_starts(tmp_path: Path, capsys) -> None:
    assert main(["run", "--per-type", "1", "--out", str(tmp_path / "run")]) == 2
    assert "per_type 1: with export ratios 0.7,0.1,0.2" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()  # not even the Prefect home
