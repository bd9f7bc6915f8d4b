"""schemas/ and prompts/ are package data: an installed wheel finds them as a clone does."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHECK = """
import pipeline, schemas
from pipeline.passages import SAMPLE_PATH, iter_passages
from pipeline.schemas import SCHEMA_NAMES, load_schema
assert pipeline.__file__.startswith({root!r}), pipeline.__file__
for name in SCHEMA_NAMES:
    load_schema(name)
assert sum(1 for _ in iter_passages('sample', limit=5)) == 5
print('ok')
"""


@pytest.mark.slow
def test_wheel_carries_schemas_prompts_and_sample(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                    str(tmp_path), str(ROOT)], check=True, capture_output=True)
    wheel = next(tmp_path.glob("comlq-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "schemas/item.schema.json" in names and "pipeline/data/wiki_sample.jsonl.gz" in names
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    # Run from an empty folder so the clone is not on the path; the unpacked wheel is.
    result = subprocess.run([sys.executable, "-c", CHECK.format(root=str(unpacked))], capture_output=True, text=True,
                            cwd=tmp_path, env={"PYTHONPATH": str(unpacked), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
