"""Build the shipped passage sample from the wiki-vital lead extracts.

    python scripts/build_sample.py ../shared/data/wiki-vital/summaries.json
    python scripts/build_sample.py ../shared/data/wiki-vital/summaries.json --unseen OUT.jsonl

Keeps the People, Arts, Geography and History articles (the topics whose Wikidata
descriptions carry the facts the knowledge-graph extractor reads), one passage per article,
ids numbered in title order. Text: Wikipedia contributors, CC BY-SA 4.0.

`--unseen OUT` writes the other eight topics instead (about 5,800 passages, ids `wu-`): a corpus
the generator was never tuned on, for judged rounds (docs/generators.md). It is not shipped.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pipeline.passages import SAMPLE_PATH  # noqa: E402
from pipeline.schemas import write_jsonl  # noqa: E402

TOPICS = {"People", "Arts", "Geography", "History"}


def main(summaries: str, unseen: str | None = None) -> None:
    data = json.loads(Path(summaries).read_text(encoding="utf-8"))
    rows = sorted((v for v in data.values() if (v.get("topic") in TOPICS) != bool(unseen)
                   and v.get("extract", "").strip()), key=lambda v: v["title"])
    prefix, out = ("wu", Path(unseen)) if unseen else ("wv", SAMPLE_PATH)
    records = (
        {"id": f"{prefix}-{i:05d}", "title": v["title"], "text": " ".join(v["extract"].split()),
         "description": v.get("description") or None, "topic": v["topic"], "source": "wiki-vital"}
        for i, v in enumerate(rows, start=1)
    )
    records = ({k: val for k, val in r.items() if val is not None} for r in records)
    count = write_jsonl(out, records, "passage")
    print(f"wrote {count} passages to {out}")


if __name__ == "__main__":
    args = sys.argv[1:]
    unseen = args[args.index("--unseen") + 1] if "--unseen" in args else None
    main(next((a for a in args if a.endswith(".json")), "../shared/data/wiki-vital/summaries.json"), unseen)
