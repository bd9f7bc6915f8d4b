import pytest

from pipeline.logical_form import parse
from retrieval.parse_rules import to_logical_form


@pytest.mark.parametrize("question, form", [
    ("Which films star Caine but were not directed by Nolan?", '"Which films star Caine" AND NOT "directed by Nolan"'),
    ("Which films star Caine but not Bale?", '"Which films star Caine" AND NOT "Bale"'),
    ("Name a painter other than Monet", '"Name a painter" AND NOT "Monet"'),
    ("Lakes in Canada except Lake Superior", '"Lakes in Canada" AND NOT "Lake Superior"'),
    ("Lakes in Canada except for Lake Superior", '"Lakes in Canada" AND NOT "Lake Superior"'),
    ("Rivers of Europe excluding the Danube", '"Rivers of Europe" AND NOT "Danube"'),
    ("Which dishes are made without meat?", '"Which dishes are made" AND NOT "meat"'),
    ("Which player never won the cup?", '"Which player" AND NOT "won the cup"'),
    ("Which actors didn't win an Oscar and were born in Ohio?",
     '"Which actors" AND NOT "win an Oscar" AND "were born in Ohio"'),
    ("Cities in France or Spain, excluding capitals", '("Cities in France" OR "Spain") AND NOT "capitals"'),
    ("Who wrote Hamlet and Macbeth?", '"Who wrote Hamlet" AND "Macbeth"'),
    ("Who is the brother of Moses?", '"Who is the brother of Moses"'),
    ("Excluding films by Nolan, which films star Michael Caine?",
     'NOT "films by Nolan" AND "which films star Michael Caine"'),
    ("Not directed by Nolan, which films star Caine and Bale?",
     'NOT "directed by Nolan" AND "which films star Caine" AND "Bale"'),
    ("Excluding films by Nolan, which films star Caine but not Bale?",
     'NOT "films by Nolan" AND "which films star Caine" AND NOT "Bale"'),
    ("Not directed by Nolan", 'NOT "directed by Nolan"'),
])
def test_cue_words(question, form):
    assert to_logical_form(question) == form
    parse(form)  # always valid ITLR syntax


def test_quotes_in_questions_stay_valid():
    form = to_logical_form('Which songs are called "Help" but not by the Beatles?')
    assert parse(form) is not None
    assert "Beatles" in form
