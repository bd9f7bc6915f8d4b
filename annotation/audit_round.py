"""An audit round in Label Studio: one task per query of a BEIR split, its passages graded by
keyboard as in the review, the votes read back as annotation.audit.Judgement records.

The labeling interface is the review's (labeling_config.xml), cut to what an audit asks: the same
passage layout, grade control and keys (Alt+. selects the next passage; 0, 1, 2 grade it), plus
the label "invented" (key F: it answers as written, but the entity looks invented or the
statement false), and an optional comment; none of the review's questions about a generated
item. The passages (the query's labelled ones and the pool) are shown in one group, in a seeded
random order and without their labels, so neither the benchmark's label, a retriever's rank nor
an id can steer a grade. Each audit has its own project; a task is keyed by its query id
(data.item_id), so pushing again creates no task twice.
"""

from __future__ import annotations

import copy
import random
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.audit import INVENTED, Judgement
from annotation.client import (
    connect,
    export_tasks,
    find_project,
    labeling_config,
    project_settings,
    service_errors,
    task_ids_by_item,
    user_emails,
)
from annotation.pull import _annotator
from annotation.results import _comment, _grades
from annotation.tasks import GRADE_CONTROL, LAYOUT_VERSION, PASSAGES_OBJECT, Shown, _Document, layout_regions
from pipeline.config import ReviewConfig
from pipeline.errors import ComlqError
from pipeline.progress import Progress

INVENTED_KEY = "f"
GROUP = "audit"
INSTRUCTIONS = """<h3>Auditing a benchmark's relevance labels</h3>
<p>Each task is one question of an existing benchmark with passages to grade: the ones the benchmark
labels and the ones several retrievers rank high for it, mixed in a random order. The task does not
say which is which: judge each passage against the question <b>as written</b>.</p>
<p><b>Alt+.</b> selects the next passage (or click its heading), then press
<b>2</b>: the passage alone shows that an answer meets every condition of the question;
<b>1</b>: it shows part of it (some of the conditions, or one step of a chain);
<b>0</b>: it shows nothing of it;
<b>F</b> (invented): it would answer the question as written, but the entity looks invented or the
statement false (world knowledge tells you so). A passage still marked <b>?</b> is not graded.
<b>Ctrl+Enter</b> submits; the comment box is optional.</p>"""


@dataclass(frozen=True)
class AuditQuery:
    """What a task shows of a query (plain data: the caller reads the BEIR folder)."""

    id: str
    text: str
    type: str | None = None
    logical_form: str | None = None


def audit_labeling_config() -> str:
    """The review's labeling config with the item's questions taken out and the "invented" label
    added to the grade control: the same passage layout, styles and keys."""
    review = ET.fromstring(labeling_config())
    grade = copy.deepcopy(review.find(f".//HyperTextLabels[@name='{GRADE_CONTROL}']"))
    passages = copy.deepcopy(review.find(f".//HyperText[@name='{PASSAGES_OBJECT}']"))
    comment = copy.deepcopy(review.find(".//TextArea[@name='comment']"))
    style = copy.deepcopy(review.find("Style"))
    if grade is None or passages is None or comment is None or style is None:
        raise ComlqError("annotation/labeling_config.xml: the grade control, passages, comment or style is missing")
    ET.SubElement(grade, "Label", value=INVENTED, background="#722ed1", hotkey=INVENTED_KEY)
    root = ET.Element("View")
    root.append(style)
    columns = ET.SubElement(root, "View", className="comlq-columns")
    left = ET.SubElement(columns, "View", className="comlq-left")
    box = ET.SubElement(left, "View", className="comlq-box")
    for header, name in (("Question", "question"), ("Query type", "query_type"), ("Logical form", "logical_form")):
        ET.SubElement(box, "Header", value=header, size="6")
        ET.SubElement(box, "Text", name=name, value=f"${name}")
    box = ET.SubElement(left, "View", className="comlq-box")
    ET.SubElement(box, "Header", size="5", value="Grade each passage against the question as written: select it "
                  "(Alt+. moves to the next one), then press 0, 1, 2 or F")
    ET.SubElement(ET.SubElement(box, "View", className="comlq-help"), "Header", value=(
        "2 = this passage alone shows that an answer meets every condition; 1 = it shows part of it; 0 = none; "
        "F (invented) = it would answer as written, but the entity looks invented or the statement false. "
        "A passage still marked ? is not graded."))
    box.extend([grade, passages])
    right = ET.SubElement(ET.SubElement(columns, "View", className="comlq-right"), "View", className="comlq-box")
    ET.SubElement(right, "Header", size="5", value="Comment (optional): Ctrl+Enter submits")
    right.append(comment)
    return ET.tostring(root, encoding="unicode")


def display_order(passage_ids: Sequence[str], query_id: str, seed: int) -> list[str]:
    """The passages in a random order of their own (seeded by the audit's seed and the query)."""
    ids = sorted(dict.fromkeys(passage_ids))
    random.Random(f"audit-order:{seed}:{query_id}").shuffle(ids)
    return ids


def audit_task(query: AuditQuery, shown: Sequence[str], passages: Mapping[str, tuple[str, str]]) -> dict[str, Any]:
    """The task's data: the question and every passage of `shown` (ids, in this order), each with a
    heading "[P1] Title" that the layout prediction turns into a gradable region. `passages`:
    passage id -> (title, text)."""
    missing = next((pid for pid in shown if pid not in passages), None)
    if missing is not None:
        raise ComlqError(f"query {query.id}: passage '{missing}' is not in the corpus")
    members = [Shown(pid, GROUP, f"P{n}") for n, pid in enumerate(shown, start=1)]
    doc = _Document()
    regions: dict[str, tuple[int, int]] = {}
    doc.tag('<div class="comlq-group comlq-candidate"><h4>')
    doc.text(f"Passages to grade ({len(members)})")
    doc.tag('</h4><p class="comlq-note">')
    doc.text("Labelled by the benchmark or ranked high by a retriever, in a random order. "
             "Grade each against the question as written.")
    doc.tag("</p>")
    for member in members:
        title, text = passages[member.passage_id]
        doc.tag('<div class="comlq-passage"><b class="comlq-head">')
        regions[member.region] = doc.text(f"[{member.label}] {title or member.label}")
        doc.tag("</b>")
        doc.text(": ")
        doc.text(text)
        doc.tag("</div>")
    doc.tag("</div>")
    return {"item_id": query.id, "question": query.text, "query_type": query.type or "(not given)",
            "logical_form": query.logical_form or "(not given)", "html": "".join(doc.parts),
            "passages": [m.to_dict() for m in members], "offsets": {r: list(span) for r, span in regions.items()}}


def audit_settings(config: ReviewConfig) -> dict[str, Any]:
    """The review project's settings (blind voting, annotations per task) with the audit's interface."""
    return {**project_settings(config), "label_config": audit_labeling_config(), "expert_instruction": INSTRUCTIONS,
            "description": "Audit of a benchmark's relevance labels by pooled judging (comlq review push --beir)."}


@dataclass(frozen=True)
class AuditPush:
    project_id: int
    created: int
    existing: int
    task_ids: dict[str, int]  # query id -> task id


def push_audit(config: ReviewConfig, title: str, tasks: Sequence[dict[str, Any]]) -> AuditPush:
    """Send the tasks (audit_task's data) to the project `title`, created once; a query already on
    the server is not sent again, so a push that failed halfway can simply be run again."""
    client = connect(config)
    with service_errors(config.url, config):
        settings = audit_settings(config)
        project = find_project(client, title)
        if project is None:
            project = client.projects.create(title=title, **settings)
        else:
            client.projects.update(project.id, **settings)
        on_server = task_ids_by_item(config, project.id)
        new = [{"data": data, "predictions": [{"model_version": LAYOUT_VERSION, "score": 1.0,
                                               "result": layout_regions(data)}]}
               for data in tasks if data["item_id"] not in on_server]
        with Progress("review push (audit)", total=len(new), unit="task") as bar:
            for start in range(0, len(new), config.batch_size):
                batch = new[start:start + config.batch_size]
                response = client.projects.import_tasks(project.id, request=batch, return_task_ids=True)
                on_server.update(zip((t["data"]["item_id"] for t in batch), response.task_ids or []))
                bar.update(len(batch))
    ids = {t["item_id"]: on_server[t["item_id"]] for t in tasks}
    return AuditPush(project.id, len(new), len(tasks) - len(new), ids)


def _judgements(task: dict[str, Any], annotation: dict[str, Any], annotator: str) -> list[Judgement]:
    """One annotator's grades on a task: 0/1/2, or "invented" (read as grade 2, invented: it
    answers as written); a passage left at "?" is not judged."""
    labels = _grades(annotation.get("result") or [])
    found = []
    for passage in task["data"]["passages"]:
        label = labels.get(passage["region"])
        if label in ("0", "1", "2", INVENTED):
            found.append(Judgement(task["data"]["item_id"], passage["id"], 2 if label == INVENTED else int(label),
                                   label == INVENTED, annotator))
    return found


@dataclass
class AuditVotes:
    judgements: list[Judgement]
    complete: list[str]  # queries whose task has all its votes, in task order
    pending: list[str]  # queries whose task is still short of votes (left out)
    comments: list[dict[str, str]]  # query_id, annotator, comment


def collect_votes(config: ReviewConfig, title: str) -> AuditVotes:
    """The submitted grades of the audit project `title`: per task the first
    `annotators_per_item` annotators' latest annotations (as the review counts them); a task with
    fewer is pending and gives no judgement."""
    client = connect(config)
    with service_errors(config.url, config):
        project = find_project(client, title)
        if project is None:
            raise ComlqError(f"no Label Studio project titled '{title}' at {config.url} "
                             "(run `comlq review push --beir ...` first)")
        tasks, emails = export_tasks(client, project.id), user_emails(client)
    votes = AuditVotes([], [], [], [])
    for task in sorted(tasks, key=lambda t: t["id"]):
        latest: dict[str, dict[str, Any]] = {}
        for annotation in task.get("annotations") or []:
            who = _annotator(annotation, emails)
            if not annotation.get("was_cancelled") and (annotation.get("id") or 0) >= (
                    latest.get(who, {}).get("id") or 0):
                latest[who] = annotation
        counted = sorted(latest.items(), key=lambda kv: kv[1].get("id") or 0)[:config.annotators_per_item]
        query_id = task["data"]["item_id"]
        if len(counted) < config.annotators_per_item:
            votes.pending.append(query_id)
            continue
        votes.complete.append(query_id)
        for who, annotation in counted:
            votes.judgements += _judgements(task, annotation, who)
            comment = _comment(annotation.get("result") or [])
            if comment:
                votes.comments.append({"query_id": query_id, "annotator": who, "comment": comment})
    return votes
