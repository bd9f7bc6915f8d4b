"""Each statement pattern of the passage reader on real Wikipedia sentences (CC BY-SA; from the
shipped sample and from ComLQ's corpus, see tests/kg/fixtures/ATTRIBUTION.md), and title recovery."""

from __future__ import annotations

import pytest

from pipeline.kg.lexicon import broader
from pipeline.kg.mentions import title_and_body, year_value
from pipeline.kg.nlp import load
from pipeline.kg.reading import read_docs
from pipeline.passages import recover_title


def read(title: str, text: str) -> set[tuple[str, str, str, str, str]]:
    """(subject, pattern, object, subject mention, object mention) of every statement."""
    titled = [title_and_body(title, text)]
    reading = next(read_docs(titled, load().pipe([titled[0][1]])))
    found = set()
    for index, s, _, s_text, pattern, o, _, o_text in reading["statements"]:
        sentence = reading["sentences"][index]
        assert sentence in text and s_text in sentence and o_text in sentence  # the evidence contract
        found.add((s, pattern, o, s_text, o_text))
    return found


def test_definition_with_lifespan_from_a_comlq_chunk():
    text = ("Allen Ginsberg Irwin Allen Ginsberg (; June 3, 1926 – April 5, 1997) was an American poet, "
            "philosopher and writer. He is considered to be one of the leading figures of the Beat Generation.")
    found = read("", text)
    mention = "Irwin Allen Ginsberg"
    assert {("Allen Ginsberg", "is a", c, mention, c) for c in ("poet", "philosopher", "writer")} <= found
    assert ("Allen Ginsberg", "nationality", "American", mention, "American") in found
    assert ("Allen Ginsberg", "bear in", "1926", mention, "1926") in found
    assert ("Allen Ginsberg", "die in", "1997", mention, "1997") in found


def test_lifespan_before_christ():
    found = read("Sun Tzu", "Sun Tzu (c. 544 – 496 BC) was a Chinese military general and strategist.")
    assert ("Sun Tzu", "bear in", "544 BC", "Sun Tzu", "544") in found
    assert ("Sun Tzu", "die in", "496 BC", "Sun Tzu", "496") in found


def test_passive_participle_read_actively_and_shared_by_the_conjunction():
    found = read("Breathless", "Breathless is a 1960 French New Wave crime drama film written and directed by "
                 "Jean-Luc Godard. It stars Jean-Paul Belmondo as a wandering criminal named Michel.")
    assert ("Jean-Luc Godard", "direct", "Breathless", "Jean-Luc Godard", "Breathless") in found
    assert ("Jean-Luc Godard", "write", "Breathless", "Jean-Luc Godard", "Breathless") in found
    assert ("Breathless", "be from", "1960", "Breathless", "1960") in found
    # "It stars ...": the film the sentence before is about
    assert ("Breathless", "star", "Jean-Paul Belmondo", "Breathless", "Jean-Paul Belmondo") in found


def test_a_name_cut_by_a_sentence_break_gives_no_evidence():
    """The parser ends a sentence after "2001:"; a statement whose name crosses the break is dropped."""
    found = read("2001: A Space Odyssey", "2001: A Space Odyssey is a 1968 epic science fiction film produced and "
                 "directed by Stanley Kubrick, who co-wrote the screenplay with Arthur C. Clarke.")
    assert not {f for f in found if f[0] == "2001: A Space Odyssey" or f[2] == "2001: A Space Odyssey"}


def test_verb_with_preposition_and_a_list_of_objects():
    found = read("Amu Darya", "The Amu Darya, historically known as the Oxus, is a major river in Central Asia which "
                 "flows through Afghanistan, Tajikistan, Turkmenistan, and Uzbekistan.")
    for country in ("Afghanistan", "Tajikistan", "Turkmenistan", "Uzbekistan"):
        assert ("Amu Darya", "flow through", country, "The Amu Darya", country) in found
    assert ("Amu Darya", "be river in", "Central Asia", "The Amu Darya", "Central Asia") in found


def test_copula_with_a_relational_noun():
    found = read("Algiers", "Algiers is the capital of the Algiers Province; it extends over many communes.")
    assert ("Algiers", "be capital of", "Algiers Province", "Algiers", "the Algiers Province") in found


def test_a_pronoun_names_the_subject_of_the_sentence_before_and_both_are_the_evidence():
    text = ("Andreas Vesalius was an anatomist and physician. Vesalius is often referred to as the founder of modern "
            "human anatomy. He was born in Brussels, which was then part of the Habsburg Netherlands.")
    titled = [title_and_body("Andreas Vesalius", text)]
    reading = next(read_docs(titled, load().pipe([text])))
    born = [st for st in reading["statements"] if st[4] == "bear in"]
    assert [(st[1], st[3], st[5]) for st in born] == [("Andreas Vesalius", "Vesalius", "Brussels")]
    assert reading["sentences"][born[0][0]].startswith("Vesalius is often referred to") and \
        reading["sentences"][born[0][0]].endswith("Habsburg Netherlands.")  # both sentences: they name both ends
    found = read("Andreas Vesalius", text.replace("He was born", "Vesalius was born"))
    assert ("Andreas Vesalius", "bear in", "Brussels", "Vesalius", "Brussels") in found
    # after a sentence about something else, a pronoun names nothing
    found = read("Andreas Vesalius", text.replace("Vesalius is often", "Galen was often"))
    assert not {f for f in found if f[1] == "bear in"}


def test_negated_verbs_state_nothing():
    found = read("Andreas Vesalius", "Andreas Vesalius was not born in Brussels.")
    assert not {f for f in found if f[1] == "bear in"}


def test_a_name_inside_a_longer_name_is_not_the_title():
    found = read("Ankara", "Ankara is the capital of Turkey. Ankara Province borders Kırıkkale.")
    assert not {f for f in found if f[0] == "Ankara" and f[3] == "Ankara Province"}


@pytest.mark.parametrize(("text", "value"), [("June 3, 1926", "1926"), ("c. 470 BC", "470 BC"), ("the 1850s", "1850s"),
                                             ("the 19th century", "19th century"), ("May", None)])
def test_year_values(text, value):
    assert year_value(text) == value


@pytest.mark.parametrize(("text", "title"), [
    ("Aaron Aaron ( or ; \"Ahärôn\") is a prophet, high priest, and the brother of Moses.", "Aaron"),
    ("Allen Ginsberg Irwin Allen Ginsberg (; June 3, 1926 – April 5, 1997) was an American poet.", "Allen Ginsberg"),
    ("Alcohol In chemistry, an alcohol is any organic compound in which the hydroxyl group is bound.", "Alcohol"),
    ("Peter Hermann (actor) Peter Hermann (born August 15, 1967)-is an American actor.", "Peter Hermann (actor)"),
    ("Emperor Xuanzong of Tang (9th century) Emperor Xuānzong of Tang (July 27, 810 – September 10, 859) was an "
     "emperor.", "Emperor Xuanzong of Tang (9th century)"),
    ("The Thad Jones/Mel Lewis Orchestra The Thad Jones/Mel Lewis Jazz Orchestra was a jazz big band formed by "
     "trumpeter Thad Jones and drummer Mel Lewis in New York in 1965.", "The Thad Jones/Mel Lewis Orchestra"),
    ("Randy Couture Randall Duane Couture (; born June 22, 1963) is an American actor.", "Randy Couture"),
    ("Billy DeBeck William Morgan DeBeck (April 15, 1890 – November 11, 1942), better known as Billy DeBeck, was "
     "an American cartoonist.", "Billy DeBeck"),
    # initials, and a post-nominal after the full name (issue 29: "I. M. Pei Ieoh Ming Pei" was one name)
    ("I. M. Pei Ieoh Ming Pei, FAIA, RIBA (born 26 April 1917), commonly known as I. M. Pei, is a Chinese American "
     "architect.", "I. M. Pei"),
    ("Wilbur Dartnell William Thomas Dartnell, VC (6 April 1885 – 3 September 1915) was a soldier.", "Wilbur Dartnell"),
    ("Reggie Hayes Reginald \"Reggie\" C. Hayes (born July 15, 1969) is an American actor.", "Reggie Hayes"),
    ("Lil Jon Jonathan Smith (born January 17, 1971), better known by his stage name Lil Jon, is an American "
     "rapper.", "Lil Jon"),
    # not titles: a chunk that starts mid-article, and one that starts with a longer name
    ("to end extreme poverty, it is also important to focus on the interrelated problems.", ""),
    ("Iowa State University, located in Ames, Iowa, holds the distinction of being the first.", ""),
    ("The International Monetary Fund (IMF) and the World Bank are international institutions.", ""),
    ("Classical Arabic is considered normative, according to the syntactic norms of classical texts.", ""),
    ("The Beatles were an English rock band formed in Liverpool in 1960.", ""),
    ("John Smith Jones (born 1950) is a man.", ""),
    ("John Smith Jane Smith, his wife, was born in 1900.", ""),
])
def test_recover_title(text, title):
    assert recover_title(text) == title


@pytest.mark.parametrize("title, text, mention, cls", [
    # NER cuts the given names off ("Luitpold Himmler"); the parse's compounds keep them.
    ("Heinrich Himmler", "Heinrich Luitpold Himmler was a German politician.", "Heinrich Luitpold Himmler",
     "politician"),
    ("Rudolf Diesel", "Rudolf Christian Karl Diesel was a German inventor.", "Rudolf Christian Karl Diesel",
     "inventor"),
    # The title's words are spread over the subject's whole phrase.
    ("Louis de Broglie", "Louis Victor Pierre Raymond, 7th Duc de Broglie was a French physicist.",
     "Louis Victor Pierre Raymond, 7th Duc de Broglie", "physicist"),
    # NER leaves the year after "of" out of the name.
    ("Hungarian Revolution of 1956", "The Hungarian Revolution of 1956 was a revolution.",
     "The Hungarian Revolution of 1956", "revolution"),
])
def test_the_definition_is_about_the_whole_name_of_the_title(title, text, mention, cls):
    found = {(s, p, o, m) for s, p, o, m, _ in read(title, text)}
    assert (title, "is a", cls, mention) in found
    assert not {s for s, *_ in found} - {title}  # no fact on a fragment of the name


def test_a_year_dates_what_the_verb_made_not_its_maker():
    found = read("Continental Congress", "In June 1775, the Second Continental Congress established the "
                 "Continental Army.")
    assert ("Continental Army", "establish in", "1775") in {t[:3] for t in found}
    assert not {t for t in found if t[1] == "establish in" and t[0] != "Continental Army"}


def test_a_list_is_not_an_apposition():
    found = read("German literature", "This includes literature written in Germany, Austria, the German parts "
                 "of Switzerland and Belgium, Liechtenstein and Luxembourg.")
    assert not {t for t in found if t[1] == "be part of"}
    assert ("Paris", "be capital of", "France") in {t[:3] for t in read("Paris", "Paris, the capital of France, "
                                                                             "is a city.")}


def test_a_name_does_not_end_in_a_preposition():
    found = read("Pune", "Pune is the second largest city in Maharashtra by area and population.")
    objects = {t[2] for t in found}
    assert "Maharashtra" in objects and not any(o.endswith(" by") for o in objects)


def test_alternatives_state_no_class():
    found = {t[:3] for t in read("Hero", "A hero is a real person or fictional character who fights adversity.")}
    assert not {t for t in found if t[1] == "is a"}
    assert ("Hero", "is a", "person") not in found
    found = {t[:3] for t in read("Marie Curie", "Marie Curie was a physicist and chemist.")}
    assert {("Marie Curie", "is a", "physicist"), ("Marie Curie", "is a", "chemist")} <= found  # "and": both


def test_a_by_agent_is_shared_backwards_along_a_conjunction_only():
    found = {t[:3] for t in read("The Grapes of Wrath", "The Grapes of Wrath is a novel written by John Steinbeck "
                                 "and published in 1939.")}
    assert ("John Steinbeck", "write", "The Grapes of Wrath") in found
    assert not {t for t in found if t[1] == "publish"}
    found = {t[:3] for t in read("Psycho", "Psycho is a film produced and directed by Alfred Hitchcock.")}
    assert {("Alfred Hitchcock", "produce", "Psycho"), ("Alfred Hitchcock", "direct", "Psycho")} <= found


def test_a_subject_known_as_the_title_is_the_article():
    found = {t[:3] for t in read("Cardinal Richelieu", "Armand Jean du Plessis, 1st Duke of Richelieu, commonly known "
                                 "as Cardinal Richelieu, was a French Catholic prelate and statesman.")}
    assert {("Cardinal Richelieu", "is a", "prelate"), ("Cardinal Richelieu", "is a", "statesman"),
            ("Cardinal Richelieu", "nationality", "French")} <= found


def test_an_adjective_stays_with_its_noun_when_they_are_a_listed_class():
    found = {t[:3] for t in read("John Milton", "John Milton was an English poet, polemicist, and civil servant.")}
    assert ("John Milton", "is a", "civil servant") in found and ("John Milton", "is a", "servant") not in found
    found = {t[:3] for t in read("Marie Curie", "Marie Curie was a famous physicist.")}
    assert ("Marie Curie", "is a", "physicist") in found  # "famous physicist" is no class


def test_the_head_noun_of_the_title_names_the_article():
    found = {t[:3] for t in read("Bering Strait", "The Bering Strait is a strait between the Pacific and Arctic "
                                 "oceans. The Strait is named after Vitus Bering, a Danish-born Russian navigator.")}
    assert ("Bering Strait", "name after", "Vitus Bering") in found
    # only a listed class noun: "the Antilles" in Greater Antilles's passage are the whole group
    found = read("Greater Antilles", "The Greater Antilles is a grouping of islands. The Antilles lie between the "
                 "Atlantic Ocean and the Caribbean Sea.")
    assert not {t for t in found if t[3] == "The Antilles"}


def test_every_place_of_a_bordering_list_with_directions():
    text = ("Zhejiang is a coastal province in East China. Zhejiang is bordered by Jiangsu and Shanghai to the north, "
            "Anhui to the northwest, Jiangxi to the west and Fujian to the south.")
    found = {t[:3] for t in read("Zhejiang", text)}
    assert {(p, "border", "Zhejiang") for p in ("Jiangsu", "Shanghai", "Anhui", "Jiangxi", "Fujian")} <= found
    text = ("Honduras is a country in Central America. Honduras is bordered to the west by Guatemala, to the "
            "south by the Pacific Ocean at the Gulf of Fonseca, and to the north by the Gulf of Honduras, a large "
            "inlet of the Caribbean Sea.")
    borders = {t[0] for t in read("Honduras", text) if t[1] == "border"}
    assert {"Guatemala", "Pacific Ocean", "Gulf of Honduras"} <= borders
    assert not borders & {"Gulf of Fonseca", "Caribbean Sea"}  # where and what, not neighbours


def test_a_series_of_things_is_no_class_and_a_degree_no_entity():
    found = {t[:3] for t in read("Turkish War of Independence", "The Turkish War of Independence was a series of "
                                 "military campaigns waged by the Turkish National Movement.")}
    assert not {t for t in found if t[1] == "is a"}
    found = {t[:3] for t in read("Barbara McClintock", "Barbara McClintock was an American scientist. McClintock "
                                 "received her PhD in botany from Cornell University in 1927.")}
    assert not {t for t in found if t[2] == "PhD"}


def test_nouns_of_a_copula_keep_their_own_prepositions_and_a_rank_states_no_rule():
    found = {t[:3] for t in read("Phutthayotfa Chulalok", "Phutthayotfa Chulalok was the founder of the Rattanakosin "
                                 "Kingdom and the first King of Siam.")}
    assert ("Phutthayotfa Chulalok", "be founder of", "Rattanakosin Kingdom") in found
    assert ("Phutthayotfa Chulalok", "be king of", "Rattanakosin Kingdom") not in found
    found = {t[:3] for t in read("Algiers", "Algiers is the capital and largest city of Algeria.")}
    assert {("Algiers", "be capital of", "Algeria"), ("Algiers", "be city of", "Algeria")} <= found
    found = {t[:3] for t in read("Stephen the Great", "Stephen the Great was a Moldavian prince. He was one of the "
                                 "most prominent rulers of late medieval Eastern Europe.")}
    assert not {t for t in found if t[1] == "be ruler of"}


def test_a_surname_is_the_full_name_the_passage_gives_and_junk_spans_name_nothing():
    found = {t[:3] for t in read("La Dolce Vita", "La Dolce Vita is a 1960 comedy-drama film directed by Federico "
                                 "Fellini and written by Fellini, Ennio Flaiano and Tullio Pinelli.")}
    assert ("Federico Fellini", "write", "La Dolce Vita") in found
    found = {t[:3] for t in read("Francis Galton", "Francis Galton was an English polymath. He founded the world's "
                                 "first university statistics department at University College London.")}
    assert not {t for t in found if t[2].startswith("first")}


def test_a_name_ner_cut_is_whole_when_it_is_known_as_the_title():
    found = {t[:4] for t in read("Baal Shem Tov", "Israel ben Eliezer, known as the Baal Shem Tov or BeShT, was a "
                                 "Jewish mystic and healer from Poland.")}
    assert ("Baal Shem Tov", "is a", "mystic", "Israel ben Eliezer") in found


def test_infinitives_awards_hyphenated_demonyms_and_fronted_classes():
    found = {t[:3] for t in read("Vivien Leigh", "Vivien Leigh was a British actress. She went on to win the "
                                 "Academy Award for Best Actress twice.")}
    assert ("Vivien Leigh", "win", "Academy Award for Best Actress") in found  # the subject of "went on"
    found = {t[:3] for t in read("Barbara McClintock", "Barbara McClintock was an American scientist who was "
                                 "awarded the 1983 Nobel Prize in Physiology or Medicine.")}
    assert ("Barbara McClintock", "receive", "Nobel Prize in Physiology or Medicine") in found
    found = {t[:3] for t in read("Henry James", "Henry James was an American-British author.")}
    assert {("Henry James", "nationality", "American"), ("Henry James", "nationality", "British")} <= found
    found = {t[:3] for t in read("Jean-Paul Marat", "Jean-Paul Marat was a French political theorist. A journalist "
                                 "and politician during the French Revolution, he was a defender of the poor.")}
    assert {("Jean-Paul Marat", "also a", "journalist"), ("Jean-Paul Marat", "also a", "politician")} <= found


def test_a_regnal_name_is_its_title_and_a_capitalised_office_a_relation():
    found = {t[:3] for t in read("Alexander II of Russia", "Alexander II was Emperor of Russia, King of Poland, "
                                 "and Grand Duke of Finland from 2 March 1855.")}
    assert ("Alexander II of Russia", "be emperor of", "Russia") in found
    found = read("Alexander II of Russia", "Alexander II was Emperor of Russia. Russia defeated Napoleon.")
    assert ("Russia", "defeat", "Napoleon", "Russia", "Napoleon") in found  # "Russia" is no surname of his


def test_known_professionally_both_a_and_a_demonym_before_a_compound():
    found = {t[:3] for t in read("B. B. King", "Riley B. King, known professionally as B. B. King, was an American "
                                 "blues guitarist, singer, songwriter, and record producer.")}
    assert {("B. B. King", "is a", "blues guitarist"), ("B. B. King", "nationality", "American")} <= found
    found = {t[:3] for t in read("A. J. P. Taylor", "A. J. P. Taylor was an English historian. Both a journalist "
                                 "and a broadcaster, he became well known to millions.")}
    assert {("A. J. P. Taylor", "also a", "journalist"), ("A. J. P. Taylor", "also a", "broadcaster")} <= found


def test_a_pronoun_patient_and_object_control():
    found = {t[:3] for t in read("Ghana", "Ghana is a country in West Africa. It is bordered by Ivory Coast, "
                                 "Burkina Faso and Togo.")}
    assert {("Ivory Coast", "border", "Ghana"), ("Togo", "border", "Ghana")} <= found  # "It" as the patient
    found = {t[:3] for t in read("Georgy Zhukov", "Georgy Zhukov was a Soviet general. He ordered Ivan Konev to "
                                 "defend Moscow.")}
    assert not {t for t in found if t[1] == "defend" and t[0] == "Georgy Zhukov"}  # Konev defends


@pytest.mark.parametrize(("title", "text", "prize"), [
    ("Albert Camus", "Albert Camus was a French philosopher. He was the recipient of the 1957 Nobel Prize in "
     "Literature at the age of 44, the second-youngest recipient in history.", "Nobel Prize in Literature"),
    ("Henri Becquerel", "Antoine Henri Becquerel was a French experimental physicist who shared the 1903 Nobel Prize "
     "in Physics with Marie and Pierre Curie for his discovery of radioactivity.", "Nobel Prize in Physics"),
    ("Marlon Brando", "Marlon Brando was an American actor. He won the Academy Award for Best Actor in 1955.",
     "Academy Award for Best Actor"),
])
def test_a_prize_name_ends_where_its_winning_is_described(title, text, prize):
    objects = {t[2] for t in read(title, text) if t[1] != "mention"}
    assert prize in objects and not any(o.startswith(prize + " ") for o in objects)


def test_a_title_named_with_its_realm_is_no_realm():
    """NER reads "King of Italy" as one name: it is not what he was king of (nor emperor of)."""
    found = read("Henry IV, Holy Roman Emperor", "Henry IV was Holy Roman Emperor (1084–1105), King of Germany "
                 "(1054–1105), and King of Italy and Burgundy (1056–1105).")
    assert not any(o.startswith("King of") for _, p, o, _, _ in found if p != "mention")



def test_a_repeated_ranking_is_no_apposition():
    found = read("Vänern", "Vänern is the largest lake in Sweden, the largest lake in the European Union and the "
                 "third-largest lake in Europe after Ladoga and Onega in Russia.")
    assert ("Vänern", "be lake in", "Sweden", "Vänern", "Sweden") in found
    assert not any(s == "Sweden" for s, p, *_ in found if p != "mention")


def test_an_apposition_of_examples_or_of_sides_is_not_the_same_place():
    found = read("Ice skate", "In the chilly landscapes of Scandinavia, especially parts of modern-day Finland and "
                 "Sweden, ancient inhabitants crafted rudimentary skates from animal bones.")
    assert not any(s == "Scandinavia" for s, p, *_ in found if p != "mention")
    found = read("Sea of Okhotsk", "The Sea of Okhotsk is a marginal sea of the western Pacific Ocean. It is located "
                 "between Russia's Kamchatka Peninsula on the east, the Kuril Islands on the southeast, Japan's "
                 "island of Hokkaido on the south.")
    assert not any(s == "Kuril Islands" for s, p, *_ in found if p != "mention")


def test_a_name_ner_began_late_is_the_whole_opening_name():
    found = read("Ferdinand Marcos", "Ferdinand Emmanuel Edralin Marcos Sr. was a Filipino lawyer, dictator, and "
                 "kleptocrat who served as the tenth president of the Philippines from 1965 to 1986.")
    assert ("Ferdinand Marcos", "nationality", "Filipino") in {t[:3] for t in found}
    assert not any("Edralin" in s and "Ferdinand" not in s for s, *_ in found)


def test_head_of_is_a_relation_and_a_year_of_a_verb_with_an_object_dates_the_object():
    found = read("Pope Gregory VII", "Pope Gregory VII, born Hildebrand of Sovana, was head of the Catholic Church "
                 "and ruler of the Papal States from 22 April 1073 to his death in 1085.")
    assert ("Pope Gregory VII", "be head of", "Catholic Church") in {t[:3] for t in found}
    assert not {t for t in found if t[1] == "is a"}
    found = read("HSBC Vietnam", "HSBC Vietnam is a bank. In 2005, HSBC also opened its second branch in Hanoi.")
    assert not {t for t in found if t[1] == "open in" and t[2] == "2005"}


def test_classes_written_before_a_name_and_a_surname_ner_took_for_an_org():
    found = read("Henry James", "Henry James was an American-British author. He was the brother of philosopher and "
                 "psychologist William James and diarist Alice James.")
    assert {("William James", "also a", "philosopher"), ("William James", "also a", "psychologist"),
            ("Alice James", "also a", "diarist")} <= {t[:3] for t in found}
    found = read("Mirror (1975 film)", "Mirror is a 1975 Soviet drama film. It is directed by Andrei Tarkovsky and "
                 "written by Tarkovsky and Aleksandr Misharin.")
    assert {("Andrei Tarkovsky", "write", "Mirror (1975 film)"),
            ("Aleksandr Misharin", "write", "Mirror (1975 film)")} <= {t[:3] for t in found}


def test_names_and_classes_the_parser_hung_elsewhere():
    # the parser reads "Chishū Ryū and Chieko Higashiyama" as one noun phrase, NER the first name as an ORG
    found = {t[:3] for t in read("Tokyo Story", "Tokyo Story is a 1953 Japanese drama film directed by Yasujirō Ozu "
                                 "and starring Chishū Ryū and Chieko Higashiyama, about an aging couple.")}
    assert {("Tokyo Story", "star", "Chishū Ryū"), ("Tokyo Story", "star", "Chieko Higashiyama")} <= found
    # the parser hangs "musician and sitar player" on Norah Jones, as conjuncts
    found = {t[:3] for t in read("Ravi Shankar", "Ravi Shankar was an Indian sitarist. He is also the father of "
                                 "American singer Norah Jones and British-American musician and sitar player "
                                 "Anoushka Shankar.")}
    assert {("Norah Jones", "also a", "singer"), ("Anoushka Shankar", "also a", "musician")} <= found
    assert ("Norah Jones", "also a", "musician") not in found


def test_a_class_before_a_name_is_not_a_relation_or_another_list_item():
    found = {t[:3] for t in read("Konrad Lorenz", "Konrad Lorenz was an Austrian zoologist. He built on research "
                                 "that began with an earlier generation, including his teacher Oskar Heinroth.")}
    assert not {t for t in found if t[0] == "Oskar Heinroth" and t[1] == "also a"}
    found = {t[:3] for t in read("Pyotr Ilyich Tchaikovsky", "Pyotr Ilyich Tchaikovsky was a Russian composer. His "
                                 "works include several symphonies, the opera Eugene Onegin, and the ballets Swan "
                                 "Lake, The Sleeping Beauty and The Nutcracker.")}
    assert ("Swan Lake", "also a", "symphony") not in found
    # "Roland" ends no full name "Song of Roland": the leader is not the poem
    found = {t[:3] for t in read("Song of Roland", "The Song of Roland is an 11th-century chanson de geste based on "
                                 "the deeds of the Frankish military leader Roland at the Battle of Roncevaux Pass.")}
    assert not {t for t in found if t[0] == "Song of Roland" and t[2] == "military leader"}


def test_class_lists_the_parser_did_not_make_conjuncts():
    # "yogi" an apposition (tagged a foreign word), "financier" a modifier of "banker"; initials name the title
    found = {t[:3] for t in read("Paramahansa Yogananda", "Paramahansa Yogananda was an Indian and American Hindu "
                                 "monk, yogi, and guru who founded the Self-Realization Fellowship.")}
    assert {("Paramahansa Yogananda", "is a", c) for c in ("monk", "yogi", "guru")} <= found
    found = {t[:3] for t in read("J. P. Morgan", "John Pierpont Morgan Sr. was an American financier and investment "
                                 "banker who dominated corporate finance on Wall Street throughout the Gilded Age.")}
    assert {("J. P. Morgan", "is a", "financier"), ("J. P. Morgan", "is a", "investment banker"),
            ("J. P. Morgan", "nationality", "American")} <= found


def test_a_two_word_class_before_a_name_and_a_role_in_an_event():
    found = {t[:3] for t in read("Louis Riel", "Louis Riel was a Canadian politician. He led two resistance "
                                 "movements against the Government of Canada and its first prime minister "
                                 "John A. Macdonald.")}
    assert ("John A. Macdonald", "also a", "prime minister") in found
    assert ("John A. Macdonald", "also a", "minister") not in found
    found = {t[:3] for t in read("British Raj", "The British Raj was the period of rule of the British Crown on the "
                                 "Indian subcontinent. India was a participating state in the Summer Olympics in "
                                 "1900, 1920, 1928, 1932, and 1936.")}
    assert ("India", "also a", "state") not in found


def test_a_colony_named_with_its_demonym_is_not_the_region():
    found = {t[:3] for t in read("Mombasa", "Mombasa is a coastal city in southeastern Kenya. It was the first "
                                 "capital of British East Africa.")}
    assert ("Mombasa", "be capital of", "British East Africa") in found
    assert not {t for t in found if t[2] == "East Africa"}


def test_the_article_named_by_its_class_its_lead_name_and_a_lifespan_after_another_name():
    # the given names parsed as adverbs of "was": the run of names up to the subject is the article
    found = {t[:3] for t in read("Benito Mussolini", "Benito Amilcare Andrea Mussolini was an Italian politician, "
                                 "journalist, and dictator who led the Kingdom of Italy.")}
    assert {("Benito Mussolini", "is a", "dictator"), ("Benito Mussolini", "lead", "Kingdom of Italy")} <= found
    assert not {t for t in found if "Andrea Mussolini" in (t[0], t[2])}
    # "the country" right after the sentence naming the country; a bare "the capital" after it
    found = read("Tajikistan", "Tajikistan, officially the Republic of Tajikistan, is a landlocked country located "
                 "in Central Asia. Dushanbe is the capital and largest city of the country, with a population of "
                 "over 1.2 million.")
    assert ("Dushanbe", "be capital of", "Tajikistan", "Dushanbe", "Tajikistan") in found
    found = {t[:3] for t in read("Turkmenistan", "Turkmenistan is a landlocked country in Central Asia. It is one "
                                 "of six independent Turkic states. Ashgabat is the capital and largest city.")}
    assert ("Ashgabat", "be capital of", "Turkmenistan") in found
    # not in a person's passage, and not some other country
    found = {t[:3] for t in read("Ho Chi Minh", "Ho Chi Minh was a Vietnamese revolutionary. Hanoi is the capital "
                                 "of the country.")}
    assert not {t for t in found if t[1] == "be capital of" and t[2] == "Ho Chi Minh"}
    # a lead's name that is not the title, dated; a lifespan after a "known as" name
    found = {t[:3] for t in read("Daniel of Galicia", "Daniel Romanovich (1201–1266) was Prince of Galicia, "
                                 "Volhynia, Grand Prince of Kiev (1240), and King of Ruthenia (1253–1266).")}
    assert {("Daniel of Galicia", "bear in", "1201"), ("Daniel of Galicia", "die in", "1266")} <= found
    found = {t[:3] for t in read("Jayavarman VII", "Jayavarman VII, known posthumously as Mahaparamasaugata "
                                 "(1122–1218), was king of the Khmer Empire.")}
    assert {("Jayavarman VII", "bear in", "1122"), ("Jayavarman VII", "die in", "1218")} <= found
    # a place's former name, dated: no lifespan
    found = read("Volgograd", "Volgograd, formerly Tsaritsyn (1589–1925) and Stalingrad (1925–1961), is the largest "
                 "city and the administrative centre of Volgograd Oblast, Russia.")
    assert not {t for t in found if t[1] in ("bear in", "die in")}


def test_long_class_lists_a_copula_after_a_participle_and_the_next_place_after_in():
    # "screenwriter" an apposition of "novelist", "academic" (tagged an adjective) its conjunct
    found = {t[:3] for t in read("Orhan Pamuk", "Ferit Orhan Pamuk is a Turkish novelist, screenwriter, academic, "
                                 "and recipient of the 2006 Nobel Prize in Literature.")}
    assert {("Orhan Pamuk", "is a", c) for c in ("novelist", "screenwriter", "academic")} <= found
    found = {t[:3] for t in read("Willem Barentsz", "Willem Barentsz, anglicized as William Barents or Barentz, "
                                 "was a Dutch navigator, cartographer, and Arctic explorer.")}
    assert {("Willem Barentsz", "is a", c) for c in ("navigator", "cartographer", "explorer")} <= found
    found = {t[:3] for t in read("Leeds", "Leeds is a city in West Yorkshire, England.")}
    assert {("Leeds", "be city in", "West Yorkshire"), ("Leeds", "be city in", "England")} <= found


def test_a_stance_is_no_class_and_a_name_joined_by_a_particle_is_whole():
    found = {t[:3] for t in read("Antonio Gramsci", "Antonio Francesco Gramsci was an Italian Marxist philosopher. "
                                 "A vocal critic of Benito Mussolini and fascism, he was imprisoned in 1926.")}
    assert ("Antonio Gramsci", "also a", "critic") not in found
    found = {t[:3] for t in read("Umayyad Caliphate", "The Umayyad Caliphate was the second caliphate. The Umayyad "
                                 "family established hereditary rule under Mu'awiya ibn Abi Sufyan, the long-time "
                                 "governor of Syria, who became caliph.")}
    assert not {t for t in found if "Abi Sufyan" in (t[0], t[2]) and "Mu'awiya" not in t[0] + t[2]}


def test_named_in_his_honor_names_each_listed_place_after_the_person():
    text = ("Vitus Jonassen Bering was a Danish-born Russian cartographer. He is known as a leader of two Russian "
            "expeditions. The Bering Strait, the Bering Sea, Bering Island, the Bering Glacier, and Vitus Lake were "
            "all named in his honor.")
    found = {t[:3] for t in read("Vitus Bering", text)}
    named = {t[0] for t in found if t[1:] == ("name after", "Vitus Bering")}
    assert named == {"Bering Strait", "Bering Sea", "Bering Island", "Bering Glacier", "Vitus Lake"}
    # "his" is no one's in a place's passage
    found = {t[:3] for t in read("Bering Sea", "The Bering Sea is a marginal sea of the Pacific Ocean. Vitus Lake "
                                 "was named in his honor.")}
    assert not {t for t in found if t[1] == "name after"}


def test_a_surname_of_a_cut_full_name_bounded_by_and_a_demonym_ner_missed():
    # NER cut "Ferdinand Emmanuel | Edralin Marcos Sr."; "Marcos" is still he, not his son
    text = ("Ferdinand Emmanuel Edralin Marcos Sr. was a Filipino lawyer and dictator. From 1972 to 1981, Marcos "
            "ruled the Philippines under martial law. He was also the father of Bongbong Marcos, the incumbent "
            "president of the Philippines since 2022.")
    found = {t[:3] for t in read("Ferdinand Marcos", text)}
    assert ("Ferdinand Marcos", "rule", "Philippines") in found
    assert not {t for t in found if t[0] == "Bongbong Marcos"}
    found = {t[:3] for t in read("Guatemala", "Guatemala is a country in northern Central America. It is bounded "
                                 "by the Pacific Ocean to the south and the Gulf of Honduras to the northeast.")}
    assert {("Pacific Ocean", "bound", "Guatemala"), ("Gulf of Honduras", "bound", "Guatemala")} <= found
    found = {t[:3] for t in read("Erik Erikson", "Erik Homburger Erikson was a German-American child "
                                 "psychoanalyst and visual artist.")}
    assert {("Erik Erikson", "nationality", "German"), ("Erik Erikson", "nationality", "American")} <= found


def test_the_rules_that_refer_back_or_fill_in_stay_where_they_hold():
    # a city's passage: "the capital" is the country's, not Almaty's; a later sentence naming another country
    assert not {t for t in read("Almaty", "Almaty is the largest city in Kazakhstan. Astana is the capital.")
                if t[1] == "be capital of"}
    found = {t[:3] for t in read("Kenya", "Kenya is a country in East Africa. Kenya borders Uganda to the west. "
                                 "Kampala is the capital of the country.")}
    assert ("Kampala", "be capital of", "Kenya") not in found
    # a modifier in a list of a company's classes; a demonym NER missed but no hyphen joins
    found = {t[:3] for t in read("Amblin Entertainment", "Amblin Entertainment is an American film and television "
                                 "production company.")}
    assert ("Amblin Entertainment", "is a", "film") not in found
    found = {t[:3] for t in read("Jane Doe", "Jane Doe was an American Byzantine art historian.")}
    assert ("Jane Doe", "nationality", "Byzantine") not in found
    # "her honor" in a man's passage; "his honor" after another man is named
    assert not {t for t in read("Prince Albert", "Prince Albert was a German prince. He married Queen Victoria. "
                                "Lake Louise was named in her honor.") if t[1] == "name after"}
    assert not {t for t in read("Alexander Mackenzie", "Alexander Mackenzie was a Scottish explorer. In 1789 he met "
                                "Peter Pond. Pond Inlet was named in his honor.") if t[1] == "name after"}
    # a copula conjoined to a verb that is no participle: "was a member of" says no class
    found = {t[:3] for t in read("Gavrilo Princip", "Gavrilo Princip assassinated Archduke Franz Ferdinand and was "
                                 "a member of Young Bosnia.")}
    assert not {t for t in found if t[1] == "is a"}


def test_a_lead_whose_parse_lost_its_subject_or_took_a_date_for_it():
    # ComLQ chunks (title repeated): "(;" is no emoticon token, the subject NER cut before "y López" is the
    # article, a name's bracket ends the opening name, and a date the parser took for the subject is no one
    found = read("", "Indira Gandhi Indira Priyadarshini Gandhi (; née Nehru; November 19, 1917 – October 31, "
                     "1984), was an Indian politician, stateswoman and a central figure of the Indian National "
                     "Congress.")
    mention = "Indira Priyadarshini Gandhi"
    assert {("Indira Gandhi", "is a", "politician", mention, "politician"),
            ("Indira Gandhi", "nationality", "Indian", mention, "Indian"),
            ("Indira Gandhi", "bear in", "1917", mention, "1917")} <= found
    found = read("", "Juan Negrín Juan Negrín y López (; 3 February 1892 – 12 November 1956) was a Spanish "
                     "politician and physician. He was a leader of the Spanish Socialist Workers' Party (PSOE).")
    mention = "Juan Negrín y López"  # the whole opening name (NER had cut it before "y López")
    assert {("Juan Negrín", "is a", c, mention, c) for c in ("politician", "physician")} <= found
    assert {("Juan Negrín", "nationality", "Spanish", mention, "Spanish"),
            ("Juan Negrín", "die in", "1956", mention, "1956")} <= found
    found = read("", "Douglas Reynolds Douglas Reynolds VC (20 September 1882 – 23 February 1916) was an English "
                     "recipient of the Victoria Cross.")
    assert ("Douglas Reynolds", "bear in", "1882", "Douglas Reynolds VC", "1882") in found
    found = read("", "Anatole France ' (; born ', ; 16 April 1844 – 12 October 1924) was a French poet, journalist, "
                     "and successful novelist with several best-sellers.")
    assert not {f for f in found if f[0] == "16 April 1844"}
    # only names and brackets may stand between the article's name and the copula: not a possessive
    found = read("Tom Hanks", "Tom Hanks's younger brother Jim Hanks (born 1961) is an American actor.")
    assert not {f for f in found if f[0] == "Tom Hanks" and f[1] in ("is a", "nationality", "bear in")}


def test_a_quoted_nickname_in_the_opening_name_is_the_article():
    # NER's 'Marlene" Dietrich' had made the definition a stranger's, and a question asked of 'Marlene" Dietrich'
    found = read("Marlene Dietrich", 'Marie Magdalene "Marlene" Dietrich was a German and American actress.')
    assert {("Marlene Dietrich", "nationality", n) for n in ("German", "American")} <= {f[:3] for f in found}
    assert not {f for f in found if '"' in f[0] or '"' in f[2]}


def test_a_given_name_the_tagger_took_for_an_adverb_still_opens_the_name():
    # spaCy tags "Dolly" RB and names only "Rebecca Parton": the article is still Dolly Parton, not "Rebecca Parton"
    found = read("Dolly Parton", "Dolly Rebecca Parton is an American singer, songwriter and actress.")
    assert ("Dolly Parton", "is a", "singer") in {f[:3] for f in found}
    assert not {f for f in found if f[0] == "Rebecca Parton"}


def test_a_prize_category_cut_after_best_is_whole():
    # NER's "Academy Awards for Best | Director" had made a prize "Academy Awards for Best"
    found = read("John Ford", "John Martin Feeney, better known as John Ford, was an American film director. He "
                              "received a record four Academy Awards for Best Director for The Informer (1935).")
    assert ("John Ford", "receive", "Academy Awards for Best Director") in {f[:3] for f in found}
    assert not {f for f in found if f[2].endswith("Best")}, found


def test_a_prize_category_of_several_words_is_whole():
    # NER may stop at "Best" before a category of several words; the name runs to its last capitalised word
    from spacy.tokens import Span

    from pipeline.kg.names import whole_name
    doc = load()("She won the Academy Award for Best Supporting Actress in 1950.")
    best = next(t.i for t in doc if t.text == "Best")
    assert whole_name(Span(doc, 3, best + 1, label="ORG")).text == "Academy Award for Best Supporting Actress"


def test_a_place_participle_after_of_a_name_places_the_noun_before_it():
    # "a territory of the United States located in the South Pacific": the territory is there, not the country
    found = {f[:3] for f in read("American Samoa", "American Samoa is an unincorporated territory of the United "
                                                   "States located in the South Pacific Ocean, southeast of Samoa.")}
    assert ("American Samoa", "locate in", "South Pacific Ocean") in found
    assert not {f for f in found if f[0] == "United States" and f[1] == "locate in"}, found
    # a participle after a common noun places what the noun stands for
    text = "Lyon is a city in France. It lies near Geneva, a city located in Switzerland."
    found = {f[:3] for f in read("Lyon", text)}
    assert ("Geneva", "locate in", "Switzerland") in found, found


# Issue 29's reading audit: members a sentence lists, titles run into a chunk, facts kept on their owner,
# whole names (ComLQ chunks and wiki-vital leads, CC BY-SA; see tests/kg/fixtures/ATTRIBUTION.md).

def test_every_member_a_cast_list_or_a_co_listing_names():
    # the participle "starring" hangs on "choreographed", and the list goes on after "with"
    found = {t[:3] for t in read("Singin' in the Rain", "Singin' in the Rain is a 1952 American musical romantic "
                                 "comedy film directed and choreographed by Gene Kelly and Stanley Donen, starring "
                                 "Kelly, Donald O'Connor and Debbie Reynolds, with Jean Hagen, Millard Mitchell, "
                                 "Douglas Fowley, Rita Moreno and Cyd Charisse in supporting roles.")}
    cast = ("Gene Kelly", "Donald O'Connor", "Debbie Reynolds", "Jean Hagen", "Millard Mitchell", "Douglas Fowley",
            "Rita Moreno", "Cyd Charisse")
    assert {("Singin' in the Rain", "star", p) for p in cast} <= found
    found = {t[:3] for t in read("Spirited Away", "Spirited Away is a 2001 Japanese animated fantasy film. It stars "
                                 "Rumi Hiiragi, alongside Miyu Irino, Mari Natsuki, Takashi Naito, and Bunta "
                                 "Sugawara.")}
    assert {("Spirited Away", "star", p) for p in ("Rumi Hiiragi", "Miyu Irino", "Bunta Sugawara")} <= found
    # "together with", "along with": more of who did it
    found = {t[:3] for t in read("", "Space Crusade Space Crusade is an adventure board game produced by Milton "
                                 "Bradley together with Games Workshop and was first made in 1990.")}
    assert {("Milton Bradley", "produce", "Space Crusade"), ("Games Workshop", "produce", "Space Crusade")} <= found
    found = {t[:3] for t in read("Jan Smuts", "Jan Smuts was a South African statesman. Smuts, along with Louis "
                                 "Botha, founded the South African Party.")}
    assert {("Jan Smuts", "found", "South African Party"), ("Louis Botha", "found", "South African Party")} <= found
    # a preposition conjoined to the verb: "and then at ..."
    found = {t[:3] for t in read("", "Jean Brillant Jean Baptiste Arthur Brillant (15 March 1890 – 10 August 1918) "
                                 "was a Canadian recipient of the Victoria Cross. Brillant studied at the College "
                                 "of Saint Joseph in Memramcook, New Brunswick, and then at the Séminaire de "
                                 "Rimouski in 1904–5.")}
    assert {("Jean Brillant", "study at", "College of Saint Joseph"),
            ("Jean Brillant", "study at", "Séminaire de Rimouski")} <= found


def test_the_class_of_a_thing_with_the_is_the_thing():
    text = ("Psycho is a 1960 American horror film produced and directed by Alfred Hitchcock. The screenplay, "
            "written by Joseph Stefano, is based on the 1959 novel by Robert Bloch. The film stars Anthony Perkins, "
            "Janet Leigh, Vera Miles, John Gavin, and Martin Balsam.")
    found = read("Psycho (1960 film)", text)
    assert ("Psycho (1960 film)", "star", "Anthony Perkins", "Psycho", "Anthony Perkins") in found
    # not in a person's passage, nor another class: "the film" of an actor's passage is some film
    found = read("Janet Leigh", "Janet Leigh was an American actress. The film stars Anthony Perkins.")
    assert not {t for t in found if t[1] == "star"}


def test_a_title_run_into_the_start_of_a_chunk_is_split_off():
    found = read("", "Frederick Grace Frederick \"Fred\" Grace (29 February 1884 – 23 July 1964) was a lightweight "
                     "boxer. Born in Edmonton, Middlesex, he first became a boxer at Eton Mission Boxing Club.")
    assert ("Frederick Grace", "is a", "boxer", 'Frederick "Fred" Grace', "boxer") in found
    found = {t[:3] for t in read("", "Harry Schell Henry O'Reilly \"Harry\" Schell (June 29, 1921 – May 13, 1960) "
                                 "was an American Grand Prix motor racing driver.")}
    assert {("Harry Schell", "is a", "racing driver"), ("Harry Schell", "bear in", "1921")} <= found
    # a chunk that runs from the end of one article into the start of the next: the new article is read under
    # its own title, the name no longer doubled ("Maria Cebotari Maria Cebotari")
    text = ("The Austrian CD label has issued several of her CDs. Maria Cebotari Maria Cebotari (10 February 1910 – "
            "9 June 1949) was a celebrated Bessarabian-born Austrian soprano and actress.")
    found = read("", text)
    assert {("Maria Cebotari", "is a", "soprano", "Maria Cebotari", "soprano"),
            ("Maria Cebotari", "nationality", "Austrian", "Maria Cebotari", "Austrian"),
            ("Maria Cebotari", "bear in", "1910", "Maria Cebotari", "1910")} <= found
    assert not {t for t in found if "Cebotari Maria" in t[0] + t[2] + t[3] + t[4]}
    found = {t[:3] for t in read("", "His Victoria Cross is displayed in the Regimental Museum at Derby Museum, "
                                 "England. William Goate William Goate (or Goat) VC (12 January 1836 – 24 October "
                                 "1901) was an English recipient of the Victoria Cross.")}
    assert {("William Goate", "bear in", "1836"), ("William Goate", "nationality", "English"),
            ("William Goate", "alias", "Goat")} <= found


@pytest.mark.parametrize(("text", "title"), [
    ('Frederick Grace Frederick "Fred" Grace (29 February 1884 – 23 July 1964) was a boxer.', "Frederick Grace"),
    ("Harry Schell Henry O'Reilly \"Harry\" Schell (June 29, 1921 – May 13, 1960) was a driver.", "Harry Schell"),
    ("Farouk Kaddoumi Farouk al-Kaddoumi (born 1931) is a Palestinian politician.", "Farouk Kaddoumi"),
])
def test_a_title_with_a_nickname_or_a_joined_particle(text, title):
    assert recover_title(text) == title


def test_a_possessive_or_a_parent_keeps_the_fact_on_its_owner():
    text = ("Mark Minenko Mark Minenko (born March 29, 1957) is a former politician in Manitoba, Canada. Minenko's "
            "father was the Very Rev. Tymofiy Minenko, a Ukrainian-born priest in the Ukrainian Orthodox Church; his "
            "mother was Anastasia Krywonos.")
    found = {t[:3] for t in read("", text)}
    assert ("Mark Minenko", "is a", "politician") in found
    assert not {t for t in found if t[0] == "Mark Minenko" and "priest" in t[1] + t[2]}, found
    assert ("Tymofiy Minenko", "also a", "priest") in found
    found = {t[:3] for t in read("Gene Hackman", "Gene Hackman was an American actor. His father, Eugene Ezra Hackman, "
                                 "was a pressman.")}
    assert not {t for t in found if t[0] == "Gene Hackman" and t[2] == "pressman"}


def test_a_year_stays_with_what_its_clause_says_it_of():
    found = {t[:3] for t in read("Rosmini College", "Rosmini College is a school. Rosmini College was founded in "
                                 "1962, and St Joseph's in 1894.")}
    assert ("Rosmini College", "found in", "1962") in found and ("Rosmini College", "found in", "1894") not in found
    found = {t[:3] for t in read("Aikido", "Aikido is a martial art. The earliest independent styles to emerge were "
                                 "Yoseikan Aikido, begun by Minoru Mochizuki in 1931, Yoshinkan Aikido, founded by "
                                 "Gozo Shioda in 1955, and Shodokan Aikido, founded by Kenji Tomiki in 1967.")}
    assert {("Yoshinkan Aikido", "found in", "1955"), ("Shodokan Aikido", "found in", "1967")} <= found
    assert not {("Yoshinkan Aikido", "found in", "1967"), ("Shodokan Aikido", "found in", "1955")} & found
    found = {t[:3] for t in read("Aarhus", "Aarhus is a city. Gaffa and the KaosPilot school were founded in 1983 "
                                 "and 1991 respectively.")}
    assert not {t for t in found if t[1] == "found in"}
    found = {t[:3] for t in read("Strand Theatre", "The Strand Theatre is a theatre. The theatre's longest run was "
                                 "the comedy \"Boeing-Boeing\", starring Patrick Cargill and David Tomlinson, which "
                                 "opened in 1962.")}
    assert not {t for t in found if t[0] == "David Tomlinson"}  # "which" is said of no person


def test_names_are_whole():
    found = {t[:3] for t in read("Cauterize (band)", "Cauterize was an alternative rock band from Canada. In 2003, "
                                 "Cauterize recorded its 3rd CD, \"So Far From Real\", produced by Murray Daigle.")}
    assert ("Murray Daigle", "produce", "So Far From Real") in found
    assert not {t for t in found if "Far From Real" in (t[0], t[2])}
    found = {t[:3] for t in read("Gordon Willis", "Gordon Willis was an American cinematographer. He was a member of "
                                 "the American and British Societies of Cinematographers.")}
    assert not {t for t in found if "Societies" in t[2]}
    found = {t[:3] for t in read("Samudragupta", "Samudragupta was the second emperor of the Gupta Empire of ancient "
                                 "India. As a son of the Gupta emperor Chandragupta I and the Licchavi princess "
                                 "Kumaradevi, he inherited the kingdom.")}
    assert {("Chandragupta I", "also a", "emperor"), ("Chandragupta I", "be emperor of", "Gupta Empire")} <= found


def test_other_names_a_lead_gives():
    found = {t[:3] for t in read("", "Avicenna Avicenna (; also Ibn Sīnā or Abu Ali Sina; ; – June 1037) was a "
                                 "Persian polymath.")}
    assert {("Avicenna", "alias", "Ibn Sīnā"), ("Avicenna", "alias", "Abu Ali Sina")} <= found
    found = {t[:3] for t in read("Corel Linux", "Corel Linux, also known as Corel LinuxOS, was an operating system.")}
    assert ("Corel Linux", "alias", "Corel LinuxOS") in found


def test_people_named_in_passing_with_a_lifespan_and_a_surname_ner_left_untagged():
    # issue 29's second blind round: answers missed because these facts were not read
    found = {t[:3] for t in read("Geoffroy's cat", "Geoffroy's cat is named after the 19th century French "
                                 "zoologist Étienne Geoffroy Saint-Hilaire (1772–1844). It was identified in 1844.")}
    assert {("Étienne Geoffroy Saint-Hilaire", "bear in", "1772"),
            ("Étienne Geoffroy Saint-Hilaire", "die in", "1844")} <= found
    # a place's former name in brackets is no lifespan, nor a bracket not right after the name, nor the years
    # after a name with no occupation before it (a book NER may take for a person), nor a ruler's reign
    found = {t[:3] for t in read("Volgograd", "Volgograd, formerly Tsaritsyn (1589–1925), is a city in Russia. "
                                 "The historian Peter Smith wrote a history (1999–2001) of it. It is named in Das "
                                 "Kapital (1867–1894). The caliph Harun al-Rashid (786–809) never came. Its club "
                                 "hired the Scottish manager Alex Ferguson (1986–2013).")}
    assert not {t for t in found if t[1] in ("bear in", "die in")}, found
    found = read("Polymerase chain reaction", "PCR was invented in 1983 by American biochemist Kary Mullis at "
                 "Cetus Corporation. Mullis and biochemist Michael Smith, who had developed other essential ways of "
                 "manipulating DNA, were jointly awarded the Nobel Prize in Chemistry in 1993.")
    assert ("Kary Mullis", "receive", "Nobel Prize in Chemistry", "Mullis", "the Nobel Prize in Chemistry") in found


def test_a_name_ner_cut_at_its_and_is_one_name():
    found = {t[:3] for t in read("", "Notably, John Hume, a leader of the Social Democratic and Labour Party, was "
                                 "instrumental in the peace process.")}
    assert ("John Hume", "be leader of", "Social Democratic and Labour Party") in found
    assert not {t for t in found if t[2] == "Labour Party"}


def test_someones_words_state_nothing():
    # a ComLQ chunk that opens inside a quote: "teacher" is praise, no occupation (issue 29's third round)
    found = {t[:3] for t in read("", 'Jackie Stewart is a very sensible driver and a very good teacher. He let me go '
                                 'through." Jackie Stewart was a Scottish racing driver. Hill said: "Stewart is a '
                                 'wizard." He won the race.')}
    assert ("Jackie Stewart", "nationality", "Scottish") in found
    assert not {t for t in found if t[2] in ("teacher", "wizard")}, found
    # a quoted title is no one's words, with its own "!" or a comma inside the marks
    found = {t[:3] for t in read("Help!", '"Help!" is a song by the Beatles. "Yesterday," a ballad by Paul McCartney, '
                                 "was recorded in 1965.")}
    assert ("Help!", "is a", "song") in found, found


def test_people_named_in_passing_after_an_occupation_that_ner_or_the_tagger_missed():
    # issue 29's fourth blind round: missed answers to "occupations Swedish/Swiss people had"
    found = {t[:3] for t in read("Celsius", "The degree Celsius is a unit of temperature. It is named after the "
                                 "Swedish astronomer Anders Celsius (1701–1744), who proposed it in 1742.")}
    assert {("Anders Celsius", "also a", "astronomer"), ("Anders Celsius", "nationality", "Swedish"),
            ("Anders Celsius", "bear in", "1701")} <= found
    found = {t[:3] for t in read("Dynamite", "Dynamite is an explosive. It was invented by the Swedish chemist and "
                                 "engineer Alfred Nobel in Geesthacht, Northern Germany, and was patented in 1867.")}
    assert {("Alfred Nobel", "also a", "chemist"), ("Alfred Nobel", "also a", "engineer"),
            ("Alfred Nobel", "nationality", "Swedish")} <= found
    found = {t[:3] for t in read("Peyer's patches", "Peyer's patches are named after the 17th-century Swiss "
                                 "anatomist Johann Conrad Peyer.")}
    assert {("Johann Conrad Peyer", "also a", "anatomist"), ("Johann Conrad Peyer", "nationality", "Swiss")} <= found
    # a lifespan after the subject of a definition inside a chunk that is no article of its own
    found = {t[:3] for t in read("", "He was buried in Washington, D.C. Daniel Hiester (1774–1834) was an American "
                                 "political leader from Pennsylvania.")}
    assert {("Daniel Hiester", "bear in", "1774"), ("Daniel Hiester", "die in", "1834")} <= found


def test_facts_that_belong_to_another_entity_or_to_no_one():
    # "British Indian" (from British India, or British of Indian descent?) and "Swiss German" say neither
    # nationality for sure; "British-American" (hyphen) states two, "French Catholic" one
    found = {t[:3] for t in read("Rabindranath Tagore", "Rabindranath Tagore was a British Indian poet, writer and "
                                 "playwright. He met the Swiss German painter Paul Klee.")}
    assert not {t for t in found if t[1] == "nationality"}, found
    assert ("Rabindranath Tagore", "is a", "poet") in found and ("Paul Klee", "also a", "painter") in found
    found = {t[:3] for t in read("Anoushka Shankar", "Anoushka Shankar is a British-American musician. She met the "
                                 "French Catholic prelate Jean Smith.")}
    assert {("Anoushka Shankar", "nationality", "British"), ("Anoushka Shankar", "nationality", "American"),
            ("Jean Smith", "nationality", "French")} <= found, found  # ("Catholic": no demonym, extract.py drops it)
    # "which" after an agent: the franchise is owned, not its creator (NER took him for an ORG)
    found = {t[:3] for t in read("Final Fantasy", "Final Fantasy is a Japanese science fantasy media franchise "
                                 "created by Hironobu Sakaguchi which is owned, developed, and published by Square "
                                 "Enix.")}
    assert ("Hironobu Sakaguchi", "create", "Final Fantasy") in found
    assert not {t for t in found if t[0] == "Square Enix" and t[2] == "Hironobu Sakaguchi"}, found
    # a chunk's cut start with no finite verb: Italy beat no one
    found = {t[:3] for t in read("", "at the Autodromo Nazionale Monza in Monza, Italy beating Chiron as well as "
                                 "fellow Italian greats, Achille Varzi and Tazio Nuvolari, and defeating Louis "
                                 "Chiron. In 1932, Fagioli won the Grand Prix of Rome driving for Maserati.")}
    assert not {t for t in found if t[0] == "Italy"}, found
    assert ("Fagioli", "win", "Grand Prix of Rome") in found
    # "Technical director" is no director; "the late poet" is a poet
    found = {t[:3] for t in read("Velimir Zajec", "Velimir Zajec is a former footballer and manager. Technical "
                                 "director Velimir Zajec took over. He met the late poet John Smith.")}
    assert ("Velimir Zajec", "also a", "director") not in found
    assert ("John Smith", "also a", "poet") in found


def test_an_article_known_by_its_stage_name_starts_inside_a_chunk():
    found = {t[:3] for t in read("", "It was also included in a video game. Lil Jon Jonathan Smith (born January 17, "
                                 "1971), better known by his stage name Lil Jon, is an American rapper and DJ.")}
    assert ("Lil Jon", "is a", "rapper") in found, found
    assert not {t for t in found if "Jonathan Smith" in t[0]}, found


def test_a_chunk_cut_after_a_name_states_nothing_of_it():
    # "McKellen received a 2007 Primetime Emmy" went on "Award nomination": the chunk's last name may be cut
    for cut in ("", " in", " in the"):
        found = {t[:3] for t in read("Jane Roe", f"Jane Roe is an actress. In 1990 Jane Roe received the Nobel "
                                     f"Prize{cut}")}
        assert ("Jane Roe", "receive", "Nobel Prize") not in found, (cut, found)
    found = {t[:3] for t in read("Jane Roe", "Jane Roe is an actress. In 1990 Jane Roe received the Nobel Prize.")}
    assert ("Jane Roe", "receive", "Nobel Prize") in found
    # a name the cut sentence goes on after is whole
    found = {t[:3] for t in read("", "William Rennie William Rennie VC (1 November 1821 – 22 August 1896) was a "
                                 "Scottish recipient of the Victoria Cross, the highest award that")}
    assert ("William Rennie", "nationality", "Scottish") in found, found


def test_a_surname_ner_took_for_an_organisation_is_the_person_named_before():
    found = {t[:3] for t in read("", "Morihei Ueshiba began his training under Sokaku Takeda. By distancing himself "
                                 "from Daitō-ryū, Ueshiba sought to develop a martial art, thus establishing Aikido.")}
    assert ("Morihei Ueshiba", "establish", "Aikido") in found, found
    assert not {t for t in found if t[0] == "Ueshiba"}, found


def test_a_show_named_after_its_host_is_not_the_host():
    # nor is the show after its title, which the parser made a second complement of "is"
    found = {t[:3] for t in read("", "Soledad O'Brien María de la Soledad Teresa O'Brien (born September 19, 1966) "
                                 "is an American broadcast journalist. Currently, O'Brien is the anchor for \"Matter "
                                 "of Fact with Soledad O'Brien,\" a nationally syndicated weekly political show "
                                 "owned by Hearst Television.")}
    assert ("Soledad O'Brien", "is a", "broadcast journalist") in found, found
    assert not {t for t in found if t[0] == "Hearst Television" or t[2] == "show"}, found


def test_a_hyphenated_first_word_and_a_disambiguated_title_after_a_heading():
    found = {t[:3] for t in read("VOAR (AM)", "VOAR (1210 kHz) is a Canadian AM radio station. VOAR is owned by "
                                 "the Seventh-day Adventist Church in Canada.")}
    assert ("Seventh-day Adventist Church", "own", "VOAR (AM)") in found, found
    # a section heading ends in no stop: the repeated title after it still starts an article, and the heading
    # names no class of it ("John Lyons also a publication year")
    text = ("He died in Naas on 20 April 1867. Listed in order of publication year John Lyons (VC) John Lyons VC "
            "(1824 – 20 April 1867) was an Irish recipient of the Victoria Cross.")
    assert [t for _, t in title_and_body("", text).articles] == ["John Lyons (VC)"]
    assert not {t for t in read("", text) if t[2] == "publication year"}


def test_a_surname_with_an_apostrophe_and_the_occupations_someone_worked_as():
    found = {t[:3] for t in read("", "Soledad O'Brien María de la Soledad Teresa O'Brien (born September 19, 1966) is "
                                 "an American journalist. O'Brien has worked as a television anchor and "
                                 "correspondent on CNN. She served as a producer, and appeared as a nurse in a film.")}
    assert {("Soledad O'Brien", "also a", "television anchor"), ("Soledad O'Brien", "also a", "correspondent"),
            ("Soledad O'Brien", "also a", "producer")} <= found, found
    # (a part played is no occupation)
    assert not {t for t in found if "Teresa O'Brien" in t[0] or t[1] == "also a" and t[2] == "nurse"}, found


def test_the_victoria_cross_after_a_name_in_a_chunk_cut_before_the_sentence_says_it():
    found = {t[:3] for t in read("", "He later achieved the rank of chief boatswain. Joseph Kellaway Joseph Kellaway "
                                 "VC (1 September 1824 – 2 October 1880) was an English recipient of the")}
    assert {("Joseph Kellaway", "be recipient of", "Victoria Cross"), ("Joseph Kellaway", "bear in", "1824"),
            ("Joseph Kellaway", "nationality", "English")} <= found, found


def test_respectively_pairs_two_lists_and_an_elided_particle_ends_a_name():
    found = {t[:3] for t in read("United Kingdom", "The United Kingdom is a country. Edinburgh, Cardiff and Belfast "
                                 "are the national capitals of Scotland, Wales and Northern Ireland, respectively.")}
    assert not {t for t in found if t[0] in ("Edinburgh", "Cardiff", "Belfast")}, found  # no cross product
    found = {t[:3] for t in read("Fabio Cannavaro", "Fabio Cannavaro is an Italian footballer. Cannavaro, who grew "
                                 "up in Naples, won the Ballon d'Or while playing in Spain.")}
    assert ("Fabio Cannavaro", "win", "Ballon d'Or") in found, found


def test_a_partner_the_parser_hung_on_the_object_is_a_subject_too():
    # issue 29's seventh round: "co-authored the ... Act alongside Reims" listed its first author only (and made
    # Reims something she authored); the case in other words
    found = {t[:3] for t in read("", "Senators Ann Whitfield and Peter Lorne backed the reform for years. Whitfield, "
                                 "praised for her committee work, co-wrote the landmark Open Rivers Act alongside "
                                 "Lorne. The act passed.")}
    assert {("Ann Whitfield", "write", "Open Rivers Act"), ("Peter Lorne", "write", "Open Rivers Act")} <= found, found
    assert not {t for t in found if t[2] in ("Lorne", "Peter Lorne")}, found
    # a partner of the subject's kind still shares what it did
    found = {t[:3] for t in read("Jan Smuts", "Jan Smuts was a South African statesman. Smuts, along with Louis "
                                 "Botha, founded the South African Party.")}
    assert ("Louis Botha", "found", "South African Party") in found, found


def test_a_canton_of_a_place_is_no_canton():
    # the shipped sample's "Which place contains the capital of Guangzhou ...?": Canton, Guangzhou's old name, cut
    # from "the Republic and Canton of Geneva"
    found = {t[:3] for t in read("Geneva", "Geneva is a city in Switzerland. Situated where the Rhône exits Lake "
                                 "Geneva, it is the capital of the Republic and Canton of Geneva.")}
    assert not {t for t in found if t[2] == "Canton"}, found


def test_the_review_of_the_seventh_rounds_rules():
    # a firm named after its founder is no surname of his
    found = {t[:3] for t in read("Ford Motor Company", "The Ford Motor Company is an American automobile manufacturer "
                                 "founded by Henry Ford. Ford acquired Volvo Cars in 1999.")}
    assert ("Henry Ford", "acquire", "Volvo Cars") not in found, found
    # "respectively" pairs two lists only: one list and another clause's pairs keep their facts
    found = {t[:3] for t in read("Tom Brown", "Tom Brown is a British politician. Smith and Tom Brown founded the "
                                 "Reform Party in 1990, and their sons were born in 1992 and 1995, respectively.")}
    assert ("Tom Brown", "found", "Reform Party") in found, found
    # the show after its quoted title, the comma outside the quotes
    found = {t[:3] for t in read("Soledad O'Brien", "Soledad O'Brien is an American journalist. Currently, O'Brien is "
                                 "the anchor for \"Matter of Fact\", a weekly political show owned by Hearst "
                                 "Television.")}
    assert not {t for t in found if t[0] == "Hearst Television" or t[2] == "show"}, found
    # a campaigner for a cause, not a candidate for office (WordNet's only sense)
    assert not broader("civil rights campaigner") & {"candidate", "political leader"}


def test_the_ninth_rounds_findings():
    # a stance is no occupation (the unseen corpus's "Voltaire was an advocate of freedom of speech")
    found = {t[:3] for t in read("Voltaire", "Voltaire was a French writer and historian. Voltaire was an "
                                 "advocate of freedom of speech.")}
    assert ("Voltaire", "also a", "historian") in found and not {t for t in found if t[2] == "advocate"}, found
    # a player is said with what he plays: "player" alone is no class (ComLQ's "santoor player", "santoor" tagged an
    # adjective), nor is "a key player"
    found = {t[:3] for t in read("Shivkumar Sharma", "Shivkumar Sharma was an Indian music composer and santoor "
                                 "player.")}
    assert ("Shivkumar Sharma", "is a", "music composer") in found, found
    assert ("Shivkumar Sharma", "is a", "player") not in found, found
    found = {t[:3] for t in read("John Smith", "John Smith was a key player in the negotiations.")}
    assert not {t for t in found if t[1] == "is a"}, found
    found = {t[:3] for t in read("Ravi Shankar", "Ravi Shankar was an Indian sitar player.")}
    assert ("Ravi Shankar", "is a", "sitar player") in found, found
    # a word the tokenizer cut at a hyphen is no class (ComLQ's "a sub-prefecture of the Corrèze department")
    found = {t[:3] for t in read("Brive-la-Gaillarde", "Brive-la-Gaillarde is a commune of France. It is a "
                                 "sub-prefecture of the Corrèze department.")}
    assert ("Brive-la-Gaillarde", "is a", "commune") in found
    assert not {t for t in found if t[1] in ("is a", "also a") and t[2] in ("sub", "-", "prefecture")}, found
    # an office someone served in, with its place after "of", is an occupation too; a critic of someone is not
    found = {t[:3] for t in read("John Robarts", "John Robarts was a Canadian lawyer. He served as premier of "
                                 "Ontario. He was a critic of Pierre Trudeau.")}
    assert ("John Robarts", "also a", "premier") in found and ("John Robarts", "also a", "critic") not in found
    # "there" is the one place of the verb it is joined to (ComLQ's Wei Chen); two places leave it unsaid
    found = {t[:3] for t in read("Wei Chen", "Wei Chen was born in Luoyang and grew up there.")}
    assert ("Wei Chen", "grow in", "Luoyang") in found, found
    found = {t[:3] for t in read("Jane Roe", "Jane Roe was born in Paris or Lyon and grew up there.")}
    assert not {t for t in found if t[1] in ("grow in", "bear in")}, found  # alternatives: neither is stated
    # a place class NER took for the whole name (the unseen corpus's Tenochtitlan)
    found = {t[:3] for t in read("Tenochtitlan", "Tenochtitlan was a city in the Valley of Mexico on the Mexican "
                                 "Central Plateau.")}
    assert ("Tenochtitlan", "be city in", "Valley of Mexico") in found, found
    # the eighth round's misses and wrong facts: the last of a list of classes the parser hung on the adjective
    # after it, and a vice president, who leads nothing
    found = {t[:3] for t in read("Louis Pasteur", "Louis Pasteur was a French chemist, pharmacist, and "
                                 "microbiologist renowned for his discoveries of the principles of vaccination.")}
    assert {("Louis Pasteur", "is a", c) for c in ("chemist", "pharmacist", "microbiologist")} <= found, found
    found = {t[:3] for t in read("Stephen C. Meyer", "Stephen C. Meyer is a former vice president of the Discovery "
                                 "Institute.")}
    assert not {t for t in found if t[1] == "be president of"}, found


def test_the_tenth_rounds_findings():
    # an apposition the parser hung across a clause is none: the unseen corpus's franchise "adapted to other
    # formats, including ..., a 1981 BBC television series, ... and a 2005 feature film" is no film of 1981
    text = ("The Hitchhiker's Guide to the Galaxy is a comedy science fiction franchise created by Douglas Adams. "
            "Originally a radio sitcom broadcast over two series on BBC Radio 4 between 1978 and 1980, it was soon "
            "adapted to other formats, including both novels and comic books, a 1981 BBC television series, a 1984 "
            "text adventure game, stage shows and a 2005 feature film.")
    found = {t[:3] for t in read("The Hitchhiker's Guide to the Galaxy", text)}
    assert ("The Hitchhiker's Guide to the Galaxy", "is a", "fiction franchise") in found, found
    assert not {t for t in found if t[2] in ("feature film", "television series", "1981", "2005")}, found
    # an article that starts inside a chunk with a full name holding the title's words before a bracket
    # (ComLQ's "Diego Serna Diego Alonso Serna Lopera (born ...)": not "Alonso Serna Lopera")
    found = {t[:3] for t in read("", "6, 2012. On May 5, 2014, Serna signed with Miami Dade FC to play the 2014 "
                                 "season. Diego Serna Diego Alonso Serna Lopera (born October 2, 1973 in Medellín) is "
                                 "a Colombian football player.")}
    assert ("Diego Serna", "bear in", "Medellín") in found, found
    assert not {t for t in found if "Alonso Serna Lopera" in (t[0], t[2])}, found
    # "City, Region" is where the city is, however the parser lists it; a list with "and" is a list
    found = {t[:3] for t in read("Donald Murray", "Donald Murray was an American journalist. Murray was born in "
                                 "Boston, Massachusetts, and grew")}
    assert ("Donald Murray", "bear in", "Boston") in found, found
    assert ("Donald Murray", "bear in", "Massachusetts") not in found, found
    found = {t[:3] for t in read("Jane Roe", "Jane Roe was a painter. She lived in Paris, London and Rome.")}
    assert {("Jane Roe", "live in", p) for p in ("Paris", "London", "Rome")} <= found, found
    found = {t[:3] for t in read("Leeds", "Leeds is a city in West Yorkshire, England.")}
    assert {("Leeds", "be city in", "West Yorkshire"), ("Leeds", "be city in", "England")} <= found, found
    # a name that runs on into the article's own surname where a chunk lost a full stop (ComLQ's "Fettes College
    # Anderson")
    found = {t[:3] for t in read("William Herbert Anderson", "William Herbert Anderson VC was a Scottish recipient of "
                                 "the Victoria Cross. He was educated at Fettes College Anderson was 36 years old.")}
    assert not {t for t in found if "Fettes College Anderson" in (t[0], t[2])}, found
    # a multi-word class of a listed expert (ComLQ's Dominic Colenso)
    found = {t[:3] for t in read("Dominic Colenso", "Dominic Colenso is a speaker, communications expert and former "
                                 "professional actor.")}
    assert ("Dominic Colenso", "is a", "communications expert") in found, found


def test_the_eleventh_rounds_findings():
    # a listed class the tagger took for an adjective heads a definition (the unseen corpus's Gauss read nothing)
    found = {t[:3] for t in read("Carl Friedrich Gauss", "Johann Carl Friedrich Gauss was a German mathematician, "
                                 "astronomer, geodesist, and physicist, who contributed to many fields in mathematics "
                                 "and science.")}
    assert {("Carl Friedrich Gauss", "is a", c) for c in ("mathematician", "astronomer", "physicist")} <= found, found
    assert ("Carl Friedrich Gauss", "nationality", "German") in found, found
    # the list of a common noun's preposition is no list of the noun ("part of the largest urban agglomeration in
    # Africa, the Arab world, and the Middle East" made Cairo part of the Middle East only)
    found = {t[:3] for t in read("Cairo", "Cairo is the capital of Egypt. It is also part of the largest urban "
                                 "agglomeration in Africa, the Arab world, and the Middle East.")}
    assert ("Cairo", "be capital of", "Egypt") in found and not {t for t in found if t[1] == "be part of"}, found


def test_the_twelfth_rounds_findings():
    # a person named in apposition to a class with "a" or "another" is of that class (ComLQ's "with another
    # Bulgarian footballer, Kostadin Vidolov"); "his teacher, X" says nothing of X's class
    found = {t[:3] for t in read("Stoyan Kishishev", "Stoyan Kishishev is a Bulgarian footballer. He then played in "
                                 "Turkish side Bursaspor with another Bulgarian footballer, Kostadin Vidolov.")}
    assert {("Kostadin Vidolov", "also a", "footballer"), ("Kostadin Vidolov", "nationality", "Bulgarian")} <= found
    found = {t[:3] for t in read("Jane Roe", "Jane Roe is a painter. She studied with her teacher, John Smith.")}
    assert not {t for t in found if t[0] == "John Smith" and t[1] == "also a"}, found


def test_the_review_of_the_tenth_to_thirteenth_rounds_rules():
    # a word cut at a hyphen is a class whole, with its nationality ("sub" of "sub-prefecture" is none)
    found = {t[:3] for t in read("Joni Mitchell", "Joni Mitchell is a Canadian singer-songwriter and painter.")}
    assert {("Joni Mitchell", "is a", "singer-songwriter"), ("Joni Mitchell", "nationality", "Canadian")} <= found
    # a critic of a newspaper is a critic; "advocate of" a cause is a stance
    found = {t[:3] for t in read("Kenneth Tynan", "Kenneth Tynan was an English theatre critic of The Observer.")}
    assert {("Kenneth Tynan", "is a", "theatre critic"), ("Kenneth Tynan", "nationality", "English")} <= found
    # a vice president beside a founder leaves the founder its "of"
    found = {t[:3] for t in read("Ken Lay", "Ken Lay was the founder and vice president of Enron.")}
    assert ("Ken Lay", "be founder of", "Enron") in found and ("Ken Lay", "be president of", "Enron") not in found
    # a name ending in the article's surname is whole where no verb follows it
    found = {t[:3] for t in read("Jack London", "Jack London was an American novelist. He visited the Tower of "
                                 "London in 1902.")}
    assert ("Jack London", "visit", "Tower of London") in found, found
    # three places a comma joins are a list
    found = {t[:3] for t in read("Karl Weber", "Karl Weber was an Austrian painter. He lived in Vienna, Prague, "
                                 "Budapest before 1900.")}
    assert {("Karl Weber", "live in", p) for p in ("Vienna", "Prague")} <= found, found
