"""Build the shipped passage sample from the wiki-vital lead extracts.

    python scripts/build_sample.py ../shared/data/wiki-vital/summaries.json

Keeps the People, Arts, Geography and History articles (the topics whose Wikidata
descriptions carry the facts the knowledge-graph extractor reads), one passage per article,
ids numbered in title order. Text: Wikipedia contributors, CC BY-SA 4.0.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.passages import SAMPLE_PATH  # noqa: E402
from pipeline.schemas import write_jsonl  # noqa: E402

TOPICS = {"People", "Arts", "Geography", "History"}


def main(summaries: str) -> None:
    data = json.loads(Path(summaries).read_text(encoding="utf-8"))
    rows = sorted((v for v in data.values() if v.get("topic") in TOPICS and v.get("extract", "").strip()),
                  key=lambda v: v["title"])
    records = (
        {"id": f"wv-{i:05d}", "title": v["title"], "text": " ".join(v["extract"].split()),
         "description": v.get("description") or None, "topic": v["topic"], "source": "wiki-vital"}
        for i, v in enumerate(rows, start=1)
    )
    records = ({k: val for k, val in r.items() if val is not None} for r in records)
    count = write_jsonl(SAMPLE_PATH, records, "passage")
    print(f"wrote {count} passages to {SAMPLE_PATH}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/wiki-vital/summaries.json")
