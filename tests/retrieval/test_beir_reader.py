import shutil

import pytest

from pipeline.errors import ComlqError
from retrieval.beir import count_negations, load_beir, split_type


def test_fixture_loads_the_split(data):
    assert len(data.corpus) == 30
    assert [q.id for q in data.queries] == [f"q{i:02d}" for i in range(1, 11)]  # q11 is in train
    q1 = data.queries[0]
    assert (q1.type, q1.n_passages, q1.negations) == ("2in", 1, 1)
    assert q1.logical_form.startswith('"film directed by Christopher Nolan"')
    assert data.qrels["q04"] == {"p21": 2, "p23": 2, "p20": 1}
    assert data.violations["q10"] == {"p01", "p02", "p03"}
    assert data.partial == {"q02": {"p01", "p03", "p07"}, "q04": {"p19", "p22"}}
    assert data.branches == {"q04": {"1": {"p21"}, "2": {"p23"}}}
    texts = dict(zip(data.corpus.ids, data.corpus.texts))
    assert texts["p11"].startswith("Lion The lion is")  # title, then text
    assert texts["p01"].startswith("Inception is")  # not twice when the text starts with it


@pytest.mark.parametrize("value, expected", [("2in_2", ("2in", 2)), ("3p_1", ("3p", 1)), ("2in", ("2in", None)),
                                             ("pni_3", ("pni", 3)), (None, (None, None))])
def test_comlq_type_suffix(value, expected):
    assert split_type(value) == expected


def test_negations_fall_back_to_the_type_catalogue(tmp_path, beir_path):
    folder = tmp_path / "beir"
    shutil.copytree(beir_path, folder)
    (folder / "queries.jsonl").write_text('{"_id": "q01", "text": "x?", "type": "3in_2"}\n'
                                          '{"_id": "q02", "text": "y?", "type": "2u"}\n')
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq01\tp01\t1\nq02\tp02\t1\n")
    for labels in ("violations", "partial", "branches"):
        shutil.rmtree(folder / labels)
    data = load_beir(folder, "test")
    assert [(q.type, q.n_passages, q.negations) for q in data.queries] == [("3in", 2, 1), ("2u", None, 0)]
    assert (data.violations, data.partial, data.branches) == (None, None, None)
    assert data.describe()["partial_labels"] is False and data.describe()["shuffled"] is None


@pytest.mark.parametrize("edit, message", [
    (lambda f: (f / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq01\tp01\n"),
     "qrels/test.tsv:2: expected 3 tab-separated columns, got 2"),
    (lambda f: (f / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq01\tp01\thigh\n"),
     "qrels/test.tsv:2: column 'score': 'high' is not a number"),
    (lambda f: (f / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq01\tp99\t1\n"),
     "query 'q01' judges passage 'p99', which is not in corpus.jsonl"),
    (lambda f: (f / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq99\tp01\t1\n"),
     "1 judged queries are not in queries.jsonl (e.g. 'q99')"),
    (lambda f: (f / "corpus.jsonl").write_text('{"_id": "p01", "text": "a"}\n{"text": "b"}\n'),
     "corpus.jsonl:2: field '_id': is missing"),
    (lambda f: (f / "queries.jsonl").write_text('{"_id": "q01", "text": "a"\n'),
     "queries.jsonl:1: bad JSON"),
    (lambda f: (f / "qrels" / "test.tsv").unlink(), "no qrels for split 'test' (available: train)"),
    (lambda f: (f / "queries.jsonl").write_text((f / "queries.jsonl").read_text().splitlines(True)[0] * 2),
     "queries.jsonl:2: duplicate query id 'q01'"),
    (lambda f: (f / "corpus.jsonl").write_text('{"_id": "p01", "text": "a"}\n{"_id": "p01", "text": "b"}\n'),
     "corpus.jsonl:2: duplicate passage id 'p01'"),
    (lambda f: (f / "partial" / "test.tsv").write_text("query-id\tcorpus-id\nq02\tp01\tp02\n"),
     "partial/test.tsv:2: expected 2 tab-separated columns, got 3"),
    (lambda f: (f / "partial" / "test.tsv").write_text("query-id\tcorpus-id\nq02\tp99\n"),
     "partial/test.tsv: query 'q02' names passage 'p99', which is not in corpus.jsonl"),
    (lambda f: (f / "branches" / "test.tsv").write_text("query-id\tbranch\tcorpus-id\nq04\tfirst\tp21\n"),
     "branches/test.tsv:2: column 'branch': 'first' is not a number"),
    (lambda f: (f / "branches" / "test.tsv").write_text("query-id\tcorpus-id\nq04\tp21\n"),
     "branches/test.tsv:1: header needs the columns query-id, corpus-id, branch (missing: branch)"),
    (lambda f: (f / "violations" / "test.tsv").write_text("query-id\tcorpus-id\tviolates\nq01\tp99\t1\n"),
     "violations/test.tsv: query 'q01' names passage 'p99', which is not in corpus.jsonl"),
    # a first line that is a judgement: read as a header, it used to be dropped without a word
    (lambda f: (f / "qrels" / "test.tsv").write_text("q01\tp01\t2\nq02\tp02\t1\n"),
     "qrels/test.tsv:1: no header line: the file starts with a row ('q01\\tp01\\t2'); "
     "add the header line 'query-id\tcorpus-id\tscore'"),
    (lambda f: (f / "violations" / "test.tsv").write_text("q01\tp02\t1\n"), "violations/test.tsv:1: no header line"),
    (lambda f: (f / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq01\tp01\t0\nq02\tp02\t-1\n"),
     "qrels/test.tsv: no judgement has a positive score (all 2 are <= 0)"),
])
def test_bad_folders_name_file_and_line(tmp_path, beir_path, edit, message):
    folder = tmp_path / "beir"
    shutil.copytree(beir_path, folder)
    edit(folder)
    with pytest.raises(ComlqError) as err:
        load_beir(folder, "test")
    assert message in str(err.value)


def test_missing_folder():
    with pytest.raises(ComlqError, match="not a BEIR folder"):
        load_beir("/nonexistent/beir", "test")


@pytest.mark.parametrize("query_type, form, expected", [
    ("2in", '"films" AND NOT "Nolan"', 1),
    ("2in", '"films" AND "NOT a film"', 0),  # the word inside a quoted term is not an operator
    ("3in", 'NOT ("a" OR NOT "b")', 2),
    ("2in", '"unclosed AND NOT', 1),  # does not parse: the type's count
    (None, '"unclosed AND NOT', None),
])
def test_negations_count_not_operators_of_the_parsed_form(query_type, form, expected):
    assert count_negations(query_type, form) == expected


def test_label_files_are_read_by_column_name(tmp_path, beir_path):
    folder = tmp_path / "beir"
    shutil.copytree(beir_path, folder)
    # the order the brief first proposed, `passage-id` for `corpus-id`, and a 0 flag
    (folder / "branches" / "test.tsv").write_text(
        "query-id\tbranch\tpassage-id\nq04\t1\tp21\nq04\t2\tp23\nq04\t2\tp20\n")
    (folder / "partial" / "test.tsv").write_text("query-id\tcorpus-id\nq02\tp01\n")
    (folder / "violations" / "test.tsv").write_text("query-id\tcorpus-id\tviolates\nq01\tp02\t1\nq01\tp03\t0\n")
    data = load_beir(folder, "test")
    assert data.branches == {"q04": {"1": {"p21"}, "2": {"p23", "p20"}}}
    assert data.partial == {"q02": {"p01"}}
    assert data.violations == {"q01": {"p02"}}
