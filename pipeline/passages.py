"""Passage sources. Every source yields the same `Passage` record.

Sources, named by one string (the CLI's `--source`):
- `sample`: the ~4,200 Wikipedia lead passages shipped in `pipeline/data/` (offline default);
- a path: a passage JSONL (`.jsonl`, `.jsonl.gz`), a BEIR `corpus.jsonl` or BEIR folder, or a
  Parquet file with `id`/`_id`, `title`, `text` columns;
- `hf:NAME[:CONFIG]`: a Hugging Face dataset with `title` and `text` columns (for example
  `hf:wikimedia/wikipedia:20231101.en`), streamed and split into ~100-word passages. NAME may
  also be a local folder in the Hub's layout, which is how it is tested offline.
"""

from __future__ import annotations

import itertools
import re
import sys
import unicodedata
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from pipeline.errors import QUOTE_LIMIT, ComlqError, RecordError, ServiceUnavailable, quote
from pipeline.records import Passage
from pipeline.runfolder import BeirFolder
from pipeline.schemas import check_output_file, iter_jsonl, validate, write_jsonl

SAMPLE_PATH = Path(__file__).parent / "data" / "wiki_sample.jsonl.gz"
WORDS_PER_PASSAGE = 100
_FUNCTION_WORDS = frozenset(
    "a an the of and or in on at to for by with from as is was were are be this that these those its it his her "
    "their all during after before while when although however many some most one two several other".split())
_SENTENCE_END = re.compile(r"[.!?][\"')\]]?\s+(?=[A-Z\"'(])")
_PARTICLES = frozenset("of de the von van da di del la le y al bin ibn".split())
MAX_TITLE_WORDS = 10
MAX_WORDS = 1000  # a longer record is cut into WORDS_PER_PASSAGE-word passages, as hf: articles are


def iter_passages(source: str, limit: int | None = None) -> Iterator[Passage]:
    """Passages from `source`, at most `limit` of them; a record of more than MAX_WORDS words is cut."""
    return (passage for _, passage in _located(source, limit))


def _located(source: str, limit: int | None = None) -> Iterator[tuple[str, Passage]]:
    """(where, passage): where names the file and line (or row) the passage came from."""
    check_limit(limit)
    check_source(source)
    if source == "sample":
        passages = _from_passage_jsonl(SAMPLE_PATH)
    elif source.startswith("hf:"):
        passages = ((f"{source}: passage {n}", p) for n, p in enumerate(_from_hf(*_hf_name(source)), start=1))
    else:
        passages = _from_path(Path(source))
    cut = ((where, piece) for where, passage in passages for piece in cut_long(passage))
    return itertools.islice(cut, limit) if limit is not None else cut


def check_limit(limit: int | None) -> None:
    if limit is not None and limit < 0:
        raise ComlqError(f"the passage limit must be 0 or more, not {limit}")
    if limit is not None and limit > sys.maxsize:  # islice takes no more
        raise ComlqError(f"the passage limit must be at most {sys.maxsize:,}, not {limit}")


def _hf_name(source: str) -> tuple[str, str | None]:
    name, _, config = source[3:].partition(":")
    return name, config or None


def cut_long(passage: Passage) -> list[Passage]:
    """The passage, or its 100-word pieces (ids ID-0, ID-1, ...) when it has more than MAX_WORDS words."""
    if len(passage.text.split(maxsplit=MAX_WORDS)) <= MAX_WORDS:
        return [passage]
    return [replace(passage, id=f"{passage.id}-{i}", text=chunk) for i, chunk in enumerate(split_words(passage.text))]


def select_passages(source: str, out: str | Path, limit: int | None = None) -> int:
    """Write the passages of `source` to `out` (JSONL, schema-checked); returns the count.

    No passages at all is an error, and so is an id seen twice (named with both lines).
    """
    check_output_file(out)
    seen: dict[str, str] = {}

    def unique() -> Iterator[dict[str, Any]]:
        for where, passage in _located(source, limit):
            if passage.id in seen:
                raise ComlqError(f"{where}: duplicate passage id {quote(passage.id)} (first at {seen[passage.id]})")
            seen[passage.id] = where
            yield passage.to_dict()
        if not seen:
            raise ComlqError(f"{source}: no passages")

    return write_jsonl(out, unique(), "passage")


def load_passages(source: str | Path) -> dict[str, Passage]:
    """The passages of a source (a passage JSONL, BEIR corpus, Parquet, `sample`, `hf:`) as an
    id -> Passage map (insertion order kept); no passages or a repeated id is an error."""
    passages: dict[str, Passage] = {}
    for where, passage in _located(str(source)):
        if passages.setdefault(passage.id, passage) is not passage:
            raise ComlqError(f"{where}: duplicate passage id {quote(passage.id)}")
    if not passages:
        raise ComlqError(f"{source}: no passages")
    return passages


def _from_passage_jsonl(path: Path) -> Iterator[tuple[str, Passage]]:
    for where, record in iter_jsonl(path):
        validate(record, "passage", where)
        yield where, Passage.from_dict(record)


def check_source(source: str) -> None:
    """Fail now (reading nothing) when `source` names no usable passage source."""
    if source == "sample":
        return
    if source.startswith("hf:"):
        if not _hf_name(source)[0]:
            raise ComlqError("hf source needs a dataset name: hf:NAME[:CONFIG]")
        return
    path = Path(source)
    if path.is_dir():
        if not BeirFolder(path).corpus.is_file():
            raise ComlqError(f"{path}: a folder source must be a BEIR folder with corpus.jsonl")
    elif not path.is_file():
        raise ComlqError(f"{path}: no such file (expected 'sample', 'hf:NAME[:CONFIG]' or a JSONL/Parquet path)")
    elif not (path.suffix == ".parquet" or path.name.endswith((".jsonl", ".jsonl.gz", ".json"))):
        raise ComlqError(f"{path}: unsupported passage file (use .jsonl, .jsonl.gz or .parquet)")


def _from_path(path: Path) -> Iterator[tuple[str, Passage]]:
    """A checked path source (check_source)."""
    if path.is_dir():
        return _from_beir(BeirFolder(path).corpus)
    if path.suffix == ".parquet":
        return _from_parquet(path)
    return _from_beir(path) if _is_beir(path) else _from_passage_jsonl(path)


def _is_beir(path: Path) -> bool:
    """BEIR corpora use `_id`; peek at the first record."""
    try:
        for _, row in iter_jsonl(path):
            return isinstance(row, dict) and "_id" in row
    except RecordError:
        return False  # the validating reader reports the line
    return False


def _beir_record(row: dict[str, Any], source: str) -> dict[str, Any]:
    record = {"id": str(row.get("_id", row.get("id", ""))), "title": row.get("title") or "", "text": row.get("text")}
    if record["id"] == "":
        del record["id"]  # reported as missing by validation
    return record | {"source": source}


def _from_beir(path: Path) -> Iterator[tuple[str, Passage]]:
    for where, row in iter_jsonl(path):
        if not isinstance(row, dict):
            raise RecordError(where, "", f"expected a JSON object, got {type(row).__name__}")
        record = _beir_record(row, path.name)
        validate(record, "passage", where)
        yield where, Passage.from_dict(record)


def _from_parquet(path: Path) -> Iterator[tuple[str, Passage]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    row_number = 0
    try:
        for batch in pq.ParquetFile(path).iter_batches(batch_size=2048):
            for row in batch.to_pylist():
                row_number += 1
                where = f"{path}:row {row_number}"
                record = _beir_record(row, path.name)
                for key in ("description", "topic", "links"):
                    if row.get(key) is not None:
                        record[key] = row[key]
                validate(record, "passage", where)
                yield where, Passage.from_dict(record)
    except (pa.ArrowException, OSError) as exc:  # not Parquet, truncated, or a bad page
        raise ComlqError(f"{path}: not a readable Parquet file after row {row_number} "
                         f"({str(exc).splitlines()[0][:QUOTE_LIMIT]})") from None


def split_words(text: str, size: int = WORDS_PER_PASSAGE) -> list[str]:
    """Fixed windows of `size` words (as DPR and ComLQ cut Wikipedia); a short tail joins the last one."""
    words = text.split()
    chunks = [words[i:i + size] for i in range(0, len(words), size)]
    if len(chunks) > 1 and len(chunks[-1]) < size // 4:
        chunks[-2].extend(chunks.pop())
    return [" ".join(c) for c in chunks]


def _hub_failure(exc: Exception) -> bool:
    """Whether the Hub or the network failed (a retry may heal it), not the dataset's name or config."""
    import datasets

    if isinstance(exc, (ConnectionError, TimeoutError)):
        return not datasets.config.HF_HUB_OFFLINE  # offline mode: no retry can reach the Hub
    status = getattr(getattr(exc, "response", None), "status_code", None)
    return isinstance(status, int) and status >= 500


def _from_hf(name: str, config: str | None) -> Iterator[Passage]:
    import datasets

    if not name:
        raise ComlqError("hf source needs a dataset name: hf:NAME[:CONFIG]")
    try:
        stream = datasets.load_dataset(name, config, split="train", streaming=True)
    except Exception as exc:  # hub, network and config errors all end here
        failure = ServiceUnavailable if _hub_failure(exc) else ComlqError
        raise failure(f"hf:{name}: cannot load dataset ({type(exc).__name__}: {str(exc).splitlines()[0]})") from None
    source = f"hf:{name}" + (f":{config}" if config else "")
    for row_number, row in enumerate(stream, start=1):
        if not row.get("text"):
            raise RecordError(f"{source}:row {row_number}", "text", "is missing or empty")
        article = str(row.get("id", row_number))
        for i, chunk in enumerate(split_words(row["text"])):
            yield Passage(id=f"{article}-{i}", title=row.get("title") or "", text=chunk, source=source)





def _key(word: str) -> str:
    """A word compared without case, accents or punctuation ("Xuānzong" = "xuanzong")."""
    plain = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()
    return re.sub(r"\W", "", plain).lower()


def _in_order(wanted: list[str], words: list[str]) -> bool:
    it = iter(words)
    return all(any(w == x for x in it) for w in wanted)


def _name_key(word: str) -> str:
    """`_key` of a word of a name, without a particle joined to it ("al-Kaddoumi" -> "kaddoumi")."""
    head, _, rest = word.partition("-")
    return _key(rest) if rest and _key(head) in _PARTICLES else _key(word)


def _name_run(words: list[str]) -> list[str]:
    """The keys of the capitalised words the list opens with, up to the first that ends in punctuation (a
    quoted nickname counts: 'Frederick "Fred" Grace')."""
    run = []
    for w in words:
        if not (w.lstrip("\"“'")[:1].isupper() or w[:1].isdigit() or _key(w) in _PARTICLES):
            break
        run.append(_name_key(w))
        if re.search(r"[,.;:()]$", w) and not re.fullmatch(r"[A-Z]\.", w):  # an initial goes on: "Reginald C. Hayes"
            break
    return run


def _known_as(name: str, words: list[str]) -> bool:
    """Do the words say their subject is "known as" the name, or "known by his stage name" it?"""
    return bool(re.search(rf"\bknown (?:as|by [\w ]*?name) {re.escape(name)}\b", " ".join(words)))


def recover_title(text: str) -> str:
    """The title that a DPR/ComLQ-style chunk repeats at its start, or "" if it does not look like one.

    "Allen Ginsberg Irwin Allen Ginsberg (; June 3, 1926 – ...) was ..." -> "Allen Ginsberg".
    A prefix is the title when the text goes on by repeating it ("Aaron Aaron (...) is ..."), or
    by a first sentence that names all its words in order and starts with a function word ("Alcohol
    In chemistry, an alcohol is ...") or with a name holding the title's words ("Irwin Allen Ginsberg"),
    or by a lead's full name that ends in the title's last word before a parenthesis ("Randy Couture
    Randall Duane Couture (; born ...").
    A repeat or a function word ends the title; among the name-led ones the longest wins. A
    disambiguator "(film)" belongs to the title but need not recur.
    """
    words = text.split(" ")
    found = ""
    for k in range(1, min(MAX_TITLE_WORDS, len(words) - 2) + 1):
        title, nxt = words[:k], words[k]
        if re.search(r"[.;:!?\"]$", title[-1]) and not re.fullmatch(r"[A-Z]\.", title[-1]) \
                or not (title[0][:1].isupper() or title[0][:1].isdigit()):
            break  # (an initial ends no title: "I. M. Pei")
        if not nxt[:1].isupper() or title[-1].endswith(",") or _key(title[-1]) in _FUNCTION_WORDS:
            continue
        rest = words[k:]
        if [_name_key(w) for w in rest[:k]] == [_name_key(w) for w in title]:
            return " ".join(title)  # the body starts here: no longer title
        if _key(title[0]) in _FUNCTION_WORDS and _key(title[0]) != "the":  # "The Thad Jones/Mel Lewis Orchestra"
            continue
        name = " ".join(title)
        bare = re.sub(r"\s*\([^()]*\)$", "", name)  # "Peter Hermann (actor)" -> "Peter Hermann"
        content = [_key(w) for w in bare.split() if _key(w) and _key(w) not in _FUNCTION_WORDS]
        run = _name_run(rest)  # the capitalised name the text goes on with ("Emperor Xuānzong of Tang")
        after = rest[len(run)] if len(rest) > len(run) else ""
        # (the title's last word inside the full name before a bracket: "Diego Serna Diego Alonso Serna Lopera (born")
        ends = run[-1:] == content[-1:] or after[:1] == "(" and _in_order(content, run)
        if len(content) >= 2 and len(run) >= len(content) and run != content and ends \
                and (after[:1] == "(" or rest[len(run) - 1].endswith(",") and after.strip(",").isupper()):
            # "Randy Couture Randall Duane Couture (; born ...)": a lead's full name, the title's short one (or a
            # post-nominal first: "I. M. Pei Ieoh Ming Pei, FAIA, RIBA (born ...)", "Wilbur Dartnell William
            # Thomas Dartnell, VC (...", not "John Smith Jane Smith, his wife, ...")
            found = name
            continue
        first = _SENTENCE_END.split(" ".join(rest), 1)[0].split()
        if run and _known_as(name, first):
            found = name  # "Lil Jon Jonathan Smith (born ...), better known by his stage name Lil Jon, is ..."
            continue
        if not content or not _in_order(content, [_name_key(w) for w in first]):
            continue
        if _key(nxt) in _FUNCTION_WORDS:
            return name  # "Alcohol In chemistry, ...": the body starts here
        if _in_order(content, run):
            found = name  # "Allen Ginsberg Irwin Allen Ginsberg": a longer prefix may still be the title
    return found


def article_start(text: str) -> str:
    """The title of an article that starts `text`, a sentence inside a chunk that runs on from the end of
    another article into a new one ("... England. William Goate William Goate (or Goat) VC (12 January
    1836 – ...) was"): `recover_title`, held to more. The text goes on by repeating the title, or by a
    name that holds the title's words and ends with its last (a post-nominal "VC" may follow); then
    comes a bracket, a comma or "is"/"was" ("Duran Duran bass player ..." starts no article)."""
    title = recover_title(text)
    if not title:
        return ""
    after = text[len(title):].split()
    bare = re.sub(r"\s*\([^()]*\)$", "", title).split()
    content = [_key(w) for w in bare if _key(w) not in _FUNCTION_WORDS]
    if [_name_key(w) for w in after[:len(bare)]] == [_name_key(w) for w in bare]:
        name = len(bare)
    else:
        run = _name_run(after)
        while run and after[len(run) - 1].strip(",").isupper() and len(after[len(run) - 1]) > 1:
            run = run[:-1]  # "Joseph John Farmer VC"
        bracket = after[len(run)][:1] == "(" if len(after) > len(run) else False  # "Diego Alonso Serna Lopera (born"
        if not run or not _known_as(title, after[:40]) and (
                not _in_order(content, run) or run[-1] != content[-1] and not bracket):
            return ""  # (a stage name: "Lil Jon Jonathan Smith (born ...), better known by his stage name Lil Jon")
        name = len(run)
    while name < len(after) and after[name].strip(",").isupper():
        name += 1  # a post-nominal after the name: "VC", "KBE"
    then = after[name] if name < len(after) else ""
    return title if after[name - 1].endswith(",") or then[:1] == "(" or then in ("is", "was", "are", "were") else ""
