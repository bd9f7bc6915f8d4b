"""The TOML configuration: defaults, overrides, and one-line errors for wrong keys or types."""

import pytest

from pipeline.config import load_config
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
])
def test_bad_settings_are_named(tmp_path, text, message):
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ComlqError, match=message):
        load_config(path)
