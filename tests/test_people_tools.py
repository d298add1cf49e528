"""Who-said-what-when facts and the entity tools over a real SQLite store: counts, orders and identities are
computed from turn records, honour the question's time, and name the records they came from."""

from __future__ import annotations

import pytest

from m3_control.tools import EntityTools, ToolError, parse_call
from m3_memory.people import PeopleFacts, similarity

from .people_helpers import meeting_store


@pytest.fixture
def meeting(db_at):
    store, ids = meeting_store(db_at("m.db"))
    yield store, ids, EntityTools(store)
    store.close()


def test_turns_are_recorded_and_linked_to_the_memory_quoting_them(meeting):
    store, ids, _ = meeting
    rows = store.conn.execute("SELECT t.id, t.kind, t.entity_id, t.text, m.memory_id, n.text FROM turns t "
                              "JOIN turn_memories m ON m.turn_id = t.id JOIN nodes n ON n.id = m.memory_id "
                              "WHERE t.kind = 'voice' ORDER BY t.start_time").fetchall()
    assert len({r[0] for r in rows}) == 9
    for _, _, ent, text, _, mem_text in rows:
        assert f"<voice_{ent}>" in mem_text and text in mem_text
    ann_clip0 = [r[4] for r in rows if r[2] == ids["ann"]["voice"] and "folder" in r[3]]
    assert len(ann_clip0) == 2 and len(set(ann_clip0)) == 2  # the same words twice: one memory each
    faces = store.conn.execute("SELECT count(*) FROM turns WHERE kind = 'face'").fetchone()[0]
    assert faces == 10  # one appearance per turn (frames of a turn are close together) + Dee


def test_counts_honour_the_question_time(meeting):
    _, _, tools = meeting
    assert tools.run("count_people()", 31.0).value == 2          # Ann, Bo
    assert tools.run("count_people()", 91.0).value == 4          # + Cy, and Dee who never spoke
    assert tools.run("count_people(30, 60)", 91.0).value == 3    # Cy, Bo, Dee
    assert tools.run('count_people("0:30", "1:00")', 91.0).value == 3   # clock times as the question wrote them
    assert tools.run('times_spoke("Ann")', 31.0).value == 2
    r = tools.run('times_spoke("Ann")', 91.0)
    assert r.value == 4 and r.answer == "Ann spoke 4 times."
    r = tools.run("times_spoke(\"the person who said 'I will call the technician'\")", 91.0)
    assert r.value == 3
    assert tools.run("times_spoke(\"I will call the technician\")", 31.0).value is None  # not met yet
    assert "no memory" in tools.run("times_spoke(\"I will call the technician\")", 31.0).answer


def test_order_and_identity_are_computed(meeting):
    _, _, tools = meeting
    r = tools.run('spoke_before("the coffee machine is broken", "I will call the technician")', 91.0)
    assert r.value is True and r.answer.startswith("Yes")
    r = tools.run('spoke_before("I will call the technician", "the coffee machine is broken")', 91.0)
    assert r.value is False and r.answer.startswith("No")
    r = tools.run('same_person("put the red folder on the desk", "bye everyone")', 91.0)
    assert r.value is True and r.answer.startswith("Yes")
    r = tools.run('same_person("put the red folder on the desk", "see you tomorrow")', 91.0)
    assert r.value is False and r.answer.startswith("No")


def test_after_different_and_more_often_keep_the_question_polarity(meeting):
    _, _, tools = meeting
    # Bo first spoke at 0:10, Cy at 0:35; Ann 4 turns, Cy 3, Bo 2 (by 1:31)
    r = tools.run('spoke_after("I will call the technician", "the coffee machine is broken")', 91.0)
    assert r.value is True and r.answer.startswith("Yes")
    r = tools.run('spoke_after("the coffee machine is broken", "I will call the technician")', 91.0)
    assert r.value is False and r.answer.startswith("No")
    r = tools.run('different_people("put the red folder on the desk", "see you tomorrow")', 91.0)
    assert r.value is False and r.answer == "Yes, they are two different people."
    r = tools.run('different_people("put the red folder on the desk", "bye everyone")', 91.0)
    assert r.value is True and r.answer == "No, that is the same person."
    r = tools.run('spoke_more("Ann", "I will call the technician")', 91.0)
    assert r.value is True and r.answer.startswith("Yes, Ann spoke more often (4 times)")
    r = tools.run('spoke_more("the coffee machine is broken", "Ann")', 91.0)   # the one who did is named first
    assert r.value is False and r.answer.startswith("No, Ann spoke more often (4 times) than")
    r = tools.run('spoke_less("the coffee machine is broken", "I will call the technician")', 91.0)
    assert r.value is True and "(twice) than" in r.answer and "(3 times)" in r.answer
    assert tools.run('spoke_more("Ann", "the coffee machine is broken")', 31.0).value is True     # 2 vs 1 by 0:31
    r = tools.run('spoke_more("Ann", "the coffee machine is broken")', 61.0)
    assert r.value is False and r.answer == "No, they spoke equally often (twice each)."   # 2 vs 2 by 1:01
    assert {t.start for t in r.turns} == {2.0, 20.0, 10.0, 40.0}                          # provenance: their turns
    r = tools.run('last_seen("I will call the technician")', 91.0)
    assert r.answer.endswith("from 01:20 to 01:22.")


def test_tool_answers_say_yes_or_no_only_to_yes_no_questions():
    from m3_control.tool_loop import fit_polarity

    a = "No, Ann spoke more often (4 times) than Bo (twice)."
    assert fit_polarity("Did Bo speak more often than Ann?", a) == a
    assert fit_polarity("Who spoke more often, Bo or Ann?", a) == "Ann spoke more often (4 times) than Bo (twice)."
    assert fit_polarity("Are they different people?", "Yes, they are two different people.").startswith("Yes")
    assert fit_polarity("Who spoke first?", "Ann spoke first.") == "Ann spoke first."


def test_who_most_least_first_last(meeting):
    store, ids, tools = meeting
    facts = PeopleFacts(store, 91.0)
    cid = {who: facts._chars.character_of(v["face"]) for who, v in ids.items()}
    assert tools.run("most_talkative()", 91.0).value == [cid["ann"]]
    assert tools.run("least_talkative()", 91.0).value == [cid["bo"]]
    assert tools.run("most_talkative(30, 90)", 91.0).value == [cid["cy"]]   # Cy 3, Ann 2 after 0:30
    assert tools.run("first_speaker()", 91.0).value == cid["ann"]
    assert tools.run("first_speaker(30)", 91.0).value == cid["cy"]
    assert tools.run("last_speaker()", 91.0).value == cid["ann"]
    assert tools.run("last_speaker()", 61.0).value == cid["bo"]              # clip 2 is not visible yet
    r = tools.run("people(30, 60)", 91.0)
    assert r.value == [cid["cy"], cid["bo"], cid["dee"]]
    assert "who did not speak" in tools.run("people()", 91.0).answer          # Dee is described by sight
    assert tools.run('last_seen("Ann")', 61.0).value == pytest.approx(22.0)


def test_speech_references_are_fuzzy_but_not_loose(meeting):
    store, ids, _ = meeting
    facts = PeopleFacts(store, 91.0)
    bo = facts._chars.character_of(ids["bo"]["voice"])
    assert facts.resolve("the person who said 'the coffe machine is brokn'").character_id == bo  # ASR-like typos
    assert facts.resolve("who said bananas are yellow today").character_id is None
    assert similarity("bin blue at f two now", "Bimblue F2 now.") > similarity("bin blue at f two now",
                                                                              "Lay blue at X4 now.")


def test_provenance_names_turn_records_and_memories_in_the_store(meeting):
    store, _, tools = meeting
    r = tools.run('times_spoke("Ann")', 91.0)
    assert len(r.turns) == 4 and len(r.memory_ids) == 4
    texts = dict(store.conn.execute(
        f"SELECT id, text FROM nodes WHERE id IN ({','.join(map(str, r.memory_ids))})").fetchall())
    assert set(texts) == set(r.memory_ids) and all("says:" in t for t in texts.values())
    prov = r.provenance()
    assert {p["turn_id"] for p in prov} == {t.id for t in r.turns}
    assert store.conn.execute(f"SELECT count(*) FROM turns WHERE id IN ({','.join(str(p['turn_id']) for p in prov)})"
                              ).fetchone()[0] == 4


@pytest.mark.parametrize("call", ['__import__("os").system("true")', "times_spoke(5)", "count_people(-3)",
                                  "nosuch()", "times_spoke(x)", 'times_spoke("a", "b", "c")', "count_people", "",
                                  'count_people("soon")', 'count_people("1:75")',
                                  'spoke_before("' + "x" * 400 + '", "y")', "times_spoke(True)"])
def test_bad_tool_calls_are_refused_with_a_reason(meeting, call):
    _, _, tools = meeting
    with pytest.raises(ToolError) as e:
        tools.run(call, 91.0)
    assert str(e.value)


def test_calls_are_parsed_never_evaluated():
    c = parse_call('spoke_before("a", "b")')
    assert c.name == "spoke_before" and c.args == ["a", "b"]
    with pytest.raises(ToolError):
        parse_call("count_people(1 + 1)")


def test_forget_removes_the_persons_turn_records(meeting):
    store, ids, tools = meeting
    ann = store.characters().character_of(ids["ann"]["voice"])
    store.forget_character(ann)
    left = store.conn.execute("SELECT count(*) FROM turns WHERE entity_id IN (?, ?)",
                              (ids["ann"]["face"], ids["ann"]["voice"])).fetchone()[0]
    assert left == 0
    assert tools.run('times_spoke("put the red folder on the desk")', 91.0).value is None
    assert tools.run("count_people()", 91.0).value == 3


def test_a_renamed_person_is_named_at_once(meeting):
    store, ids, tools = meeting
    assert tools.run('times_spoke("I will call the technician")', 91.0).answer.startswith("The person who said")
    cy = store.characters().character_of(ids["cy"]["voice"])
    store.set_character_name(cy, "Cyrus")
    assert tools.run('times_spoke("I will call the technician")', 91.0).answer == "Cyrus spoke 3 times."


def test_the_question_words_pick_the_polarity_of_a_pair_tool():
    from m3_control.tool_loop import align_polarity

    assert align_polarity("Are A and B different people?", 'same_person("a", "b")') == 'different_people("a", "b")'
    assert align_polarity("Is A the same as B?", 'different_people("a", "b")') == 'same_person("a", "b")'
    assert align_polarity("Did A talk after B?", 'spoke_before("a", "b")') == 'spoke_after("a", "b")'
    assert align_polarity("Did A speak fewer times than B?", 'spoke_more("a", "b")') == 'spoke_less("a", "b")'
    # words inside quoted speech ask nothing; both words, or neither: the model's choice stands
    assert align_polarity("Did the one who said 'I need more time' speak less than Bo?",
                          'spoke_more("I need more time", "Bo")') == 'spoke_less("I need more time", "Bo")'
    assert align_polarity("Did A speak before or after B?", 'spoke_after("a", "b")') == 'spoke_after("a", "b")'
    assert align_polarity("How many people?", "count_people()") == "count_people()"


def test_the_question_words_pick_when_or_where():
    from m3_control.tool_loop import align_polarity

    assert align_polarity("Where did I last see Ann?", 'last_seen("Ann")') == 'last_place("Ann")'
    assert align_polarity("In which room did I last hear Bo?", 'last_seen("Bo")') == 'last_place("Bo")'
    assert align_polarity("When did I last see Ann?", 'last_place("Ann")') == 'last_seen("Ann")'


def test_a_sentence_cut_by_a_clip_boundary_is_one_turn(db_at):
    """Ann talks across the 30 s mark: clip 0 ends on her first half, clip 1 starts with the rest. She spoke once,
    said the whole sentence, and both turn rows and both memories are named. Bo stops 2 s before the mark and
    starts again after it: two turns."""
    script = [(0, "bo", 26.0, 28.0, "The coffee machine"), (0, "ann", 28.6, 30.0, "Put the red folder"),
              (1, "ann", 30.0, 31.4, "on the desk."), (1, "bo", 32.0, 34.0, "is broken again.")]
    store, ids = meeting_store(db_at("m.db"), script=script, silent=[])
    try:
        tools = EntityTools(store)
        r = tools.run('times_spoke("Ann")', 61.0)
        assert r.value == 1, r.answer
        (turn,) = r.turns
        assert turn.text == "Put the red folder on the desk." and len(turn.row_ids) == 2
        assert len(r.memory_ids) == 2 and {p["turn_id"] for p in r.provenance()} == {turn.id}
        assert set(r.provenance()[0]["turn_ids"]) == set(turn.row_ids)
        assert tools.run('times_spoke("Ann")', 31.0).value == 1          # only clip 0 visible: the first half
        assert PeopleFacts(store, 31.0).person(turn.character_id).turns[0].text == "Put the red folder"
        assert tools.run("times_spoke(\"the person who said 'is broken again'\")", 61.0).value == 2
        facts = PeopleFacts(store, 61.0)
        who = facts.resolve("the person who said 'put the red folder on the desk'")
        assert who.character_id == turn.character_id and who.score >= 0.9
        assert len(facts.person(turn.character_id).appearances) == 1     # seen once, across the mark
    finally:
        store.close()


def test_a_sentence_the_diarizer_split_into_two_voices_of_one_person_is_one_turn(db_at):
    """A clip's diarizer heard the halves of Ann's sentence as two voices (two voice nodes); both are later joined
    to Ann's face, so one person said one sentence: one turn, the whole words, both rows named. Bo's two sentences
    with a pause between stay two turns, and so do two halves with someone else's voice between them."""
    script = [(0, "ann", 2.0, 3.2, "Put the red folder"), (0, "ann_b", 3.2, 4.5, "on the desk."),
              (0, "bo", 10.0, 12.0, "The coffee machine"), (0, "bo", 13.0, 14.0, "is broken."),
              (1, "ann", 40.0, 41.0, "Thanks for"), (1, "bo", 41.0, 41.5, "Hm."), (1, "ann_b", 41.5, 42.5, "the help.")]
    store, ids = meeting_store(db_at("m.db"), script=script, silent=[])
    try:
        with store.begin_clip(3, 90.0, 120.0) as w:
            w.add_memory(f"Equivalence: <face_{ids['ann']['face']}>, <voice_{ids['ann_b']['voice']}>", "semantic")
        facts = PeopleFacts(store, 121.0)
        ann = facts.resolve("the person who said 'put the red folder on the desk'")
        assert ann.character_id is not None and ann.score >= 0.9
        turns = facts.person(ann.character_id).turns
        assert [t.text for t in turns] == ["Put the red folder on the desk.", "Thanks for", "the help."]
        assert len(turns[0].row_ids) == 2 and (turns[0].start, turns[0].end) == (2.0, 4.5)
        bo = facts.resolve("the person who said 'the coffee machine'")
        assert [t.text for t in facts.person(bo.character_id).turns] == ["The coffee machine", "is broken.", "Hm."]
        # before the two voices were known to be one person: two people, one turn each
        early = PeopleFacts(store, 61.0)
        assert early.resolve("the person who said 'on the desk'").character_id != \
            early.resolve("the person who said 'put the red folder'").character_id
    finally:
        store.close()
