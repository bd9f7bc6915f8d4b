"""Against the real server: an annotator overwrites another annotator's submitted vote with their
own API token, as Label Studio Community allows (HTTP 200; the author stays `completed_by`, the
editor becomes `updated_by`). The pull counts the author's own version read by an earlier pull, or
leaves the vote out when no pull saw it, and lists the edit in reviewed.jsonl, agreement.json and
`review status`."""

from __future__ import annotations

from typing import Any

import pytest
from label_studio_sdk import LabelStudio

from annotation.client import connect, export_tasks, find_project
from annotation.pull import pull
from annotation.push import Pool, push
from annotation.results import regions
from annotation.status import review_status
from pipeline.records import ReviewVote
from pipeline.schemas import read_json, read_jsonl

pytestmark = pytest.mark.labelstudio

A, B, C = "integrity-a@example.org", "integrity-b@example.org", "integrity-c@example.org"


def _vote(item: dict[str, Any], who: str, correct: bool) -> ReviewVote:
    return ReviewVote(item_id=item["id"], annotator=who, structure_ok=True, evidence_spread=True,
                      answers_correct=correct, answers_complete=True, trivial=False,
                      relevance={e["passage_id"]: 1 for e in item["evidence"]})


def test_a_vote_overwritten_by_another_account_counts_as_its_authors_own_or_not_at_all(ls, tmp_path, make_run):
    run = make_run(tmp_path / "run")
    config = ls.project("vote integrity")
    push(run, config, pool=Pool({}))
    items = {i["id"]: i for i in read_jsonl(run / "items.jsonl", "item")}
    admin = connect(config)
    tasks = {t["data"]["item_id"]: t for t in export_tasks(admin, find_project(admin, config.project_title).id)}
    as_user = {who: LabelStudio(base_url=config.url, api_key=ls.annotator(who)) for who in (A, B, C)}

    def submit(item_id: str, who: str, correct: bool) -> int:
        task = tasks[item_id]
        made = as_user[who].annotations.create(id=task["id"], result=regions(task["data"], _vote(items[item_id], who,
                                                                                                  correct)))
        return made.id

    # r-2i-2: A and C say the answers are correct, B says not: accepted 2-1
    own = submit("r-2i-2", A, True)
    submit("r-2i-2", B, False)
    submit("r-2i-2", C, True)
    assert pull(run, config).counts["accepted"] == 1  # this pull reads A's own vote
    # r-3p-3: A votes after that pull, so no pull has seen A's own vote when B changes it
    submit("r-3p-3", B, False)
    submit("r-3p-3", C, True)
    unseen = submit("r-3p-3", A, True)

    # B overwrites both of A's votes with "answers not correct", through the API with B's own token
    ids = {who: client.users.whoami().id for who, client in as_user.items()}
    for annotation_id, item_id in ((own, "r-2i-2"), (unseen, "r-3p-3")):
        changed = as_user[B].annotations.update(id=annotation_id, result=regions(
            tasks[item_id]["data"], _vote(items[item_id], A, False)))
        assert (changed.completed_by, changed.updated_by) == (ids[A], ids[B])  # A stays the author

    result = pull(run, config)
    reviewed = {r["item"]["id"]: r["review"] for r in read_jsonl(result.reviewed, "reviewed_item")}
    kept = reviewed["r-2i-2"]
    # A's own vote (answers correct) counts: accepted, as A's vote implies; B's version would have rejected it
    assert kept["status"] == "accepted" and kept["answers_correct"] is True
    assert {v["annotator"]: v["answers_correct"] for v in kept["votes"]} == {A: True, B: False, C: True}
    assert "edited_by_another_account" in kept["flags"]
    assert [(e["annotator"], e["editor"], e["annotation_id"], e["kept"]) for e in kept["edits"]] == [(A, B, own, True)]
    left_out = reviewed["r-3p-3"]
    # no pull saw A's own vote: left out, so the item waits for a third vote instead of counting B's
    assert left_out["status"] == "pending" and left_out["reason"] == "2 of 3 votes"
    assert {v["annotator"] for v in left_out["votes"]} == {B, C}
    assert [(e["annotator"], e["editor"], e["annotation_id"], e["kept"]) for e in left_out["edits"]] == \
        [(A, B, unseen, False)]
    assert all(e["edited_at"] for r in (kept, left_out) for e in r["edits"])

    listed = read_json(result.agreement, "agreement")["edits"]
    assert sorted((e["item_id"], e["annotator"], e["editor"], e["kept"]) for e in listed) == \
        [("r-2i-2", A, B, True), ("r-3p-3", A, B, False)]

    again = pull(run, config)  # the kept version stays kept: the last pull wrote it as A's own
    assert {r["item"]["id"]: r["review"]["status"] for r in read_jsonl(again.reviewed, "reviewed_item")
            if r["item"]["id"] in ("r-2i-2", "r-3p-3")} == {"r-2i-2": "accepted", "r-3p-3": "pending"}

    status = review_status(run, config)
    assert status.annotators[A] == (2, 3)  # A did both tasks, whatever B did to them; 3 are left
    table = status.table()
    assert "2 votes edited by another account:" in table
    assert (f"item r-2i-2: {A}'s vote (annotation {own}) was saved by {B} at "
            f"{kept['edits'][0]['edited_at']}; counted as the author's own version from an earlier pull") in table
    assert f"item r-3p-3: {A}'s vote (annotation {unseen}) was saved by {B}" in table
    assert "left out (no earlier pull holds the author's own version)" in table


def test_status_names_project_settings_an_annotator_changed_and_a_push_sets_them_back(ls, tmp_path, make_run):
    run = make_run(tmp_path / "run")
    config = ls.project("settings drift")
    project_id = push(run, config, pool=Pool({})).project_id
    assert review_status(run, config).settings_changed == []  # as pushed: the labeling config and instructions too
    # an annotator's own token may change the project (Label Studio Community has no roles)
    as_annotator = LabelStudio(base_url=config.url, api_key=ls.annotator(A))
    as_annotator.projects.update(project_id, show_annotation_history=True, maximum_annotations=1)
    status = review_status(run, config)
    assert status.settings_changed == ["maximum_annotations", "show_annotation_history"]
    assert ("project settings changed in Label Studio since the push: maximum_annotations, show_annotation_history "
            "(`comlq review push RUN` sets them back)") in status.table()
    push(run, config, pool=Pool({}))
    assert review_status(run, config).settings_changed == []
    project = connect(config).projects.get(id=project_id)
    assert (project.show_annotation_history, project.maximum_annotations) == (False, 3)
