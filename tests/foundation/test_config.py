"""The TOML configuration: defaults, overrides, and one-line errors for wrong keys, types, items,
ranges and values, from one set of rules for the file and the command line."""

import dataclasses
from typing import get_args, get_origin, get_type_hints

import pytest

from pipeline.config import Config, check_setting, load_config, rule_of
from pipeline.errors import ComlqError


def test_defaults_and_overrides(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[passages]\nlimit = 500\n[generate]\nper_type = 5\n[export]\nratios = [0.8, 0.1, 0.1]\n'
                    '[llm]\ntemperature = 1\n')
    config = load_config(path)
    assert (config.passages.limit, config.generate.per_type, config.generate.seed) == (500, 5, 13)
    assert config.export.ratios == (0.8, 0.1, 0.1) and config.llm.temperature == 1


@pytest.mark.parametrize("text, message", [
    ('[generate]\nper_type = "5"\n', r"\[generate\]: 'per_type' must be int, not '5'"),
    ('[llm]\nconcurrency = 2.5\n', r"'concurrency' must be int"),
    ('[passages]\nlimit = true\n', r"'limit' must be int \| None"),
    ('[generate]\nper_typ = 5\n', r"unknown setting 'per_typ'"),
    ('[nope]\nx = 1\n', r"unknown section \[nope\]"),
    ('[generate\n', r"bad TOML"),
    # a list's items, a table's values and every section, [train] included, are checked
    ('[evaluate]\nretrievers = ["bm25", 7]\n', r"\[evaluate\]: 'retrievers' item 2 must be str, not 7$"),
    ('[evaluate]\nretrievers = []\n', r"'retrievers' must have at least 1 item, not \[\]"),
    ('[evaluate]\nparse = "glod"\n', r"'parse' must be one of gold, rules, llm, not 'glod'"),
    ('[export]\nratios = [0.7, "x", 0.2]\n', r"'ratios' item 2 must be float, not 'x'"),
    ('[export]\nratios = [0.7, 0.3]\n', r"'ratios' must be a list of 3 values"),
    ('[llm]\npassage_counts = [1, "2"]\n', r"'passage_counts' item 2 must be int, not '2'"),
    ('[llm]\npassage_counts = [1, 4]\n', r"'passage_counts' item 2 must be 1 to 3, not 4"),
    ('[generate]\nrelation_weights = {born_in = -1}\n', r"'relation_weights' value for 'born_in' must be >= 0"),
    ('[train]\nbatch_groups = 0\n', r"\[train\]: 'batch_groups' must be >= 1, not 0"),
    ('[train]\nnegatives = -2\n', r"'negatives' must be >= 1, not -2"),
    ('[train]\nlearning_rate = -1\n', r"'learning_rate' must be > 0 and <= 1, not -1"),
    ('[train]\nlearning_rate = nan\n', r"'learning_rate' must be > 0 and <= 1, not nan"),
    ('[train]\nepochs = 0\n', r"'epochs' must be >= 1, not 0"),
    ('[train]\nkinds = ["twins", "cousins"]\n', r"'kinds' item 2 must be one of violating, partial, twins"),
])
def test_bad_settings_are_named(tmp_path, text, message):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ComlqError, match=message):
        load_config(path)


def _numeric(hint) -> bool:
    inner = [h for h in get_args(hint) if h is not type(None) and h is not Ellipsis] or [hint]
    return any(h in (int, float) or (get_origin(h) in (tuple, dict) and _numeric(h)) for h in inner)


def test_every_number_has_a_range_and_every_default_passes_its_rules():
    """A new numeric setting without `bounded` fails here: every number is range-checked."""
    config = Config()
    for section in dataclasses.fields(Config):
        values = getattr(config, section.name)
        hints = get_type_hints(type(values))
        for f in dataclasses.fields(values):
            rule = rule_of(f)
            if _numeric(hints[f.name]):
                assert rule is not None and rule.range is not None, f"[{section.name}] {f.name} has no range"
            assert check_setting(f, hints[f.name], getattr(values, f.name), "defaults") == getattr(values, f.name)


def test_the_command_line_is_checked_by_the_same_rules_and_names_the_option(tmp_path, capsys):
    """`comlq train reranker EXPORT --epochs -3` used to exit 0 and save an untrained model."""
    from pipeline.cli import main

    out = tmp_path / "model"
    assert main(["train", "reranker", str(tmp_path / "export"), "--out", str(out), "--epochs", "-3"]) == 2
    assert capsys.readouterr().err.strip() == "comlq: error: --epochs: 'epochs' must be >= 1, not -3"
    assert main(["train", "reranker", str(tmp_path / "export"), "--out", str(out), "--kinds", "twins,cousins"]) == 2
    assert "--kinds: 'kinds' item 2 must be one of violating, partial, twins" in capsys.readouterr().err
    assert not out.exists()
