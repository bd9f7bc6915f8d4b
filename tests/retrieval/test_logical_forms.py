from retrieval.base import Query
from retrieval.logical_forms import GoldParser, LLMParser, RulesParser

QUERIES = [Query("a", "Which films star Caine but not Bale?", logical_form='"Caine" AND NOT "Bale"'),
           Query("b", "Which rivers are not in Europe?")]  # no logical form, as in ComLQ


def test_gold_uses_the_query_form_and_falls_back_to_rules():
    parser = GoldParser()
    assert parser(QUERIES) == ['"Caine" AND NOT "Bale"', '"Which rivers" AND NOT "in Europe"']
    assert parser.counts == {"gold": 1, "rules": 1}


def test_rules_ignores_the_gold_form():
    parser = RulesParser()
    assert parser(QUERIES)[0] == '"Which films star Caine" AND NOT "Bale"'
    assert parser.counts == {"rules": 2}


class ScriptedChat:
    def __init__(self, answers):
        self.answers = answers

    def complete_all(self, prompts, desc):
        assert all("Question: " in p for p in prompts)
        return self.answers


def test_llm_answers_are_cleaned_and_bad_ones_fall_back_to_rules():
    parser = LLMParser(ScriptedChat(['```text\nQuery: "Caine" AND NOT "Bale"\n```', "Caine but not Bale"]))
    assert parser(QUERIES) == ['"Caine" AND NOT "Bale"', '"Which rivers" AND NOT "in Europe"']
    assert parser.counts == {"llm": 1, "rules (LLM answer did not parse)": 1}
