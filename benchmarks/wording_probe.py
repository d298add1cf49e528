"""Question kinds and wordings the procedural benchmark does not ask, on its scenes' kept stores.

    python benchmarks/wording_probe.py SEED [SEED ...] --keep DIR [--set A..Z, or several: STUV] [--only-new]

A probe of how answers hold on questions nobody wrote phrasings for: relations to someone's *last* turn, the first
speaker after / the last before a clock time, counts after a time, who spoke first / last in a place, the first /
last words heard, who spoke exactly k times, and two questions about words nobody said (to decline). Each kind has
ten wordings (sets A-J), written before any run on them; sets G-J also ask eleven kinds no earlier set asked
(:data:`NEW_WORDINGS`: people before someone's first turn, the most talkative after a time, counts before a time,
in how many places someone spoke, where someone spoke last, who spoke between two people; ``--only-new`` asks
only those); set K adds six more kinds (:data:`NEWER_WORDINGS`) and set L six more (:data:`LATEST_WORDINGS`:
the second speaker in a room, the first words and first time in a room, people between two people, the room with
the least talk, people in a room before a time) and set M six more (:data:`RECENT_WORDINGS`: the second speaker
after a time, someone's turns after another's last, who never spoke in a room, when someone first spoke in a room,
the last speaker in a room before a time, who spoke in both of two rooms) and a time question about words nobody
said, set N six more (:data:`NEWEST_WORDINGS`: someone in a room after a time, the most talkative in a room before
a time, the last time someone spoke in a room, where / when someone spoke for the n-th time, how many people spoke
more than k times) and a question about the n-th time of words nobody said; sets O-R ask only twelve kinds of
their own (``wording_kinds_op.py``); references come from
the scene definition (:class:`m3_agent_ros.bags.procedural_questions.Facts`). DIR is a ``scene_bench.py --keep``
folder holding ``seed_SEED/memory.db``. Prints every question with its reference, answer and replies, then right /
asked.

History (docs/benchmarks.md, "Question kinds nobody wrote phrasings for"): set A then B on seed 528 were looked at
while fixing; each later set was run once held out on fresh seeds (C 529, D 530-531, E 532-533, F 534, G 535-536,
H 537-538, I 539-540, J 541-542, K 543-544, L 545-546, M 547-548, N 549-550, O 555-556, m 571 and n 572) before
its misses were looked at. Sets m-n (``wording_blind_mn.py``) ask every kind of sets A-N in two wordings a helper
wrote blind.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).parent))
from scene_bench import GRID, _answerer, declined  # noqa: E402
from wording_blind_mn import BLIND_SETS, BLIND_WORDINGS  # noqa: E402
from wording_kinds_compose import COMPOSE_SETS, compose_questions  # noqa: E402
from wording_kinds_gap import GAP_SETS, gap_questions  # noqa: E402
from wording_kinds_move import MOVE_SETS, move_questions  # noqa: E402
from wording_kinds_op import OP_SETS, op_questions  # noqa: E402
from wording_kinds_rank import RANK_SETS, rank_questions  # noqa: E402

from m3_agent_ros.bags.procedural import make_scene  # noqa: E402
from m3_agent_ros.bags.procedural_questions import NOT_SAID, Facts, clock, mmss, scene_questions, times  # noqa: E402

# kind -> wordings A-F ({t} a clock time, {p} {p1} {p2} people, {pl} a place, {k} a count, {s} a sentence)
SETS = "ABCDEFGHIJKLMN"
WORDINGS: dict[str, tuple[str, ...]] = {
    "first_after_t": ("After {t}, who was the first to speak?",
                      "Who was the first person I heard once it was past {t}?",
                      "Once the clock passed {t}, whose voice came first?",
        "Who started talking first when it was later than {t}?",
        "Who spoke first after the clock showed {t}?",
        "Beginning at {t}, who was the first voice I heard?",
        "Whose was the first voice I heard after {t}?",
        "Who spoke first in the time after {t}?",
        "Who was heard first after the time {t}?",
        "Past {t}, who was the first one talking?",
        "Who said the first thing I heard after {t}?",
        "Once it was after {t}, whose voice did I hear first?",
        "Can you tell me who spoke first after {t}?",
        "First speaker after {t}?"),
    "count_after_t": ("How many times did anyone speak after {t}?", "From {t} on, how many times was someone talking?",
                      "After {t}, how many turns of speech were there?",
        "How many times was somebody talking after the {t} mark?",
        "How many utterances did I hear after {t}?",
        "Counting from {t}, how many times did anyone talk?",
        "In the time after {t}, how many times did people talk?",
        "What number of times did someone speak after {t}?",
        "How many separate times did people speak after {t}?",
        "How many times was anyone heard speaking after {t}?",
        "How many turns of talking came after {t}?",
        "After {t}, how many times did I hear someone speak?",
        "Tell me how many times someone spoke after {t}.",
        "Number of times anyone spoke after {t}?"),
    "people_after_t": ("How many different people spoke after {t}?", "How many distinct speakers did I hear later "
                       "than {t}?", "How many people talked at some point after {t}?",
        "After {t}, how many individuals did I hear?",
        "How many different voices did I hear after {t}?",
        "Since {t}, how many different people have spoken?",
        "Once {t} had gone by, how many separate people spoke?",
        "Counting from {t}, how many people did I hear?",
        "How many speakers were there after {t}?",
        "From {t} onward, how many different people talked?",
        "How many people did I hear talking after {t}?",
        "How many separate speakers talked after {t}?",
        "Do you know how many different people talked after {t}?",
        "How many folks talked after {t}?"),
    "last_before_t": ("Before {t}, who spoke last?", "Who was the most recent person to speak as of {t}?",
                      "Who had spoken most recently right before {t}?",
        "Up to {t}, who was the last one to say something?",
        "Who was the final speaker before {t}?",
        "Who was the last to talk before it was {t}?",
        "Who had the last turn to speak before {t}?",
        "Before the clock reached {t}, who had spoken last?",
        "Which person spoke last before {t}?",
        "Who was the last speaker I heard before {t}?",
        "Whose voice was the last I heard before {t}?",
        "Who said something last before {t}?",
        "Do you remember who was talking last before {t}?",
        "I'm trying to remember who spoke last before {t}."),
    "right_after_last": ("Who spoke immediately after {p} spoke for the last time?", "After {p} finished speaking for "
                         "good, who was the next to talk?", "Who was the next speaker after {p} spoke their final "
                         "words?",
        "Who talked right after {p} said something for the last time?",
        "Who spoke directly after {p} had their last say?",
        "Once {p} had spoken for the last time, who talked next?",
        "Following the final turn of {p}, who spoke next?",
        "Who was the very next to speak after {p} talked for the final time?",
        "When {p} spoke for the last time, who spoke next?",
        "Who took the next turn after {p} spoke for the final time?",
        "Who talked next after the last time {p} spoke?",
        "Who was the next one to talk after {p} spoke for the last time?",
        "Tell me who spoke next after {p} spoke for the last time.",
        "Who came right after {p}'s final turn?"),
    "right_before_last": ("Who spoke just before the last time {p} spoke?", "Whose turn came right before {p} spoke "
                          "for the final time?", "Just before {p} talked for the last time, who was speaking?",
        "Who spoke immediately before {p} spoke one last time?",
        "Who had the turn just before {p} spoke for the last time?",
        "Who was speaking right before the final time {p} spoke?",
        "Who was talking immediately prior to the final turn of {p}?",
        "The last time {p} spoke, who had spoken just before?",
        "Right before {p} spoke their last words, who was talking?",
        "Whose turn came just before the final time {p} talked?",
        "Who spoke immediately before {p} said something for the final time?",
        "Who talked just before {p}'s final turn?",
        "Can you tell me who spoke right before {p} spoke for the last time?",
        "Who'd been speaking right before {p} spoke for the last time?"),
    "where_first_heard": ("Which room was I in the first time I heard {p}?", "When {p} first spoke, what place was I "
                          "in?", "In which place did {p} speak for the first time?",
        "Where was I the first time {p} talked?",
        "Where did I first hear {p}?",
        "What room was I in when {p} first talked?",
        "Where was I when {p} spoke for the first time?",
        "In what place was I when I heard {p} for the first time?",
        "In which room did I hear {p} for the first time?",
        "Where was I when I first heard {p}?",
        "In which room was I when {p} said something for the first time?",
        "Which room was I in when I heard {p} for the very first time?",
        "Do you remember which room I was in when {p} first spoke?",
        "Room I was in when {p} first spoke?"),
    "count_before_other": ("Before {p2} first spoke, how many times had {p1} spoken?", "How many times had I heard "
                           "{p1} by the time {p2} said anything?", "Up until {p2} first spoke, how often had {p1} "
                           "talked?",
        "How many times did {p1} speak before {p2} ever said a word?",
        "Prior to the first time {p2} spoke, how many times did {p1} speak?",
        "How many times did {p1} talk before {p2} spoke for the first time?",
        "By the time {p2} first opened their mouth, how many times had {p1} talked?",
        "How often had {p1} spoken before the first words of {p2}?",
        "Before {p2} spoke at all, how many times had {p1} talked?",
        "How many times did {p1} speak before {p2} said anything?",
        "How many times had {p1} talked before the first time I heard {p2}?",
        "How many turns had {p1} taken before {p2} first spoke?",
        "Tell me how many times {p1} spoke before {p2} first said something.",
        "How many turns did {p1} take before {p2}'s first turn?"),
    "spoke_after_others_last": ("Did I hear {p1} again after {p2} spoke for the last time?", "Once {p2} had spoken "
                                "for the last time, did {p1} still say something?", "Did {p1} talk at all after the "
                                "final time {p2} spoke?",
        "After {p2} spoke for the very last time, was {p1} heard again?",
        "Was {p1} still talking after {p2} had said their last words?",
        "Did {p1} say anything after {p2} spoke for the last time?",
        "After the final turn of {p2}, did {p1} speak again?",
        "Was {p1} heard after the last time {p2} spoke?",
        "Did {p1} say anything more after {p2} was done speaking for good?",
        "Did {p1} speak again once {p2} had spoken for the last time?",
        "After the last time {p2} talked, did {p1} say anything?",
        "Did {p1} talk again after {p2} had spoken for the last time?",
        "Do you remember whether {p1} spoke again after {p2}'s last turn?",
        "After {p2}'s final turn, did {p1} ever speak again?"),
    "first_in_place": ("In the {pl}, who spoke first?", "Who was the first person to talk while I was in the {pl}?",
                       "Who opened the talking in the {pl}?",
        "Who was the first one I heard in the {pl}?",
        "In the {pl}, who was the first to say something?",
        "Who spoke first when I was in the {pl}?",
        "Whose voice came first in the {pl}?",
        "Who was the first to speak while I was in the {pl}?",
        "Who did I hear first in the {pl}?",
        "In the {pl}, whose voice came first?",
        "Who spoke first in the {pl}?",
        "Who was heard first in the {pl}?",
        "Tell me who talked first in the {pl}.",
        "First person to talk in the {pl}?"),
    "last_in_place": ("Who was the last person I heard in the {pl}?", "While I was in the {pl}, who spoke last?",
                      "In the {pl}, whose voice did I hear last?",
        "Who said something last in the {pl}?",
        "Who had the last word in the {pl}?",
        "Who was the final person to speak in the {pl}?",
        "Who was the last speaker in the {pl}?",
        "Of everyone in the {pl}, who spoke last?",
        "Who was the last voice in the {pl}?",
        "Who spoke last in the {pl}?",
        "In the {pl}, who was the last to talk?",
        "Whose voice was the last one in the {pl}?",
        "Can you remember who spoke last in the {pl}?",
        "Who's the last one that spoke in the {pl}?"),
    "first_thing_said": ("What was the very first thing anyone said?", "What were the first words I heard?",
                         "What was said first of all?",
        "What's the first thing I heard anyone say?",
        "What were the opening words I heard?",
        "What is the earliest thing I heard someone say?",
        "What was the first sentence anyone spoke?",
        "What was the first thing that was said?",
        "What did I hear first?",
        "What were the first words someone said?",
        "What did the first speaker say first?",
        "What was the first thing I heard anyone say?",
        "Tell me the first thing anybody said.",
        "First words anyone said?"),
    "last_thing_said": ("What were the last words I heard?", "What was the final thing someone said?",
                        "What was the most recent thing anyone said?",
        "What was the last sentence anyone spoke?",
        "What did I hear most recently?",
        "What was the latest thing said?",
        "What was the last thing I heard somebody say?",
        "What were the final words spoken?",
        "What was the last thing said?",
        "What was the very last thing I heard?",
        "What were the last words anyone said?",
        "What was the final sentence I heard?",
        "Can you tell me the last thing somebody said?",
        "Last words I heard?"),
    "who_exactly_k": ("Which person did I hear exactly {k} times?", "Who talked {k} times, no more and no less?",
                      "Whose voice did I hear precisely {k} times?",
        "Which speaker did I hear {k} times in all?",
        "Who spoke {k} times exactly?",
        "Who did I hear talking exactly {k} times?",
        "Who was heard a total of exactly {k} times?",
        "Who did I hear speak exactly {k} times?",
        "Who spoke a total of {k} times?",
        "Which person spoke exactly {k} times?",
        "Who did I hear speak {k} times and no more?",
        "Who spoke {k} times, exactly?",
        "Can you tell me who spoke exactly {k} times?",
        "Who's the one I heard exactly {k} times?"),
    "unknown_right_after": ("Who spoke right after the person who said '{s}'?", "Who talked next after somebody said "
                            "'{s}'?", "Who talked after someone said '{s}'?",
        "Who answered the person who said '{s}'?",
        "Who replied to the person who said '{s}'?",
        "Who was speaking just after I heard '{s}'?",
        "Who spoke directly after somebody said '{s}'?",
        "Who talked immediately after the words '{s}'?",
        "After someone said '{s}', who spoke?",
        "Who spoke right after I heard '{s}'?",
        "Who spoke after the words '{s}'?",
        "Who talked right after someone said '{s}'?",
        "Do you remember who spoke after someone said '{s}'?",
        "I'm trying to remember who spoke right after someone said '{s}'."),
    "unknown_where": ("Which room was I in when the person who said '{s}' talked?", "Where was I when I heard '{s}'?",
                      "In what room did somebody say '{s}'?",
        "Where did someone tell me '{s}'?",
        "Where was I when someone said '{s}'?",
        "Which place was I in when I heard someone say '{s}'?",
        "Where was I when '{s}' was said?",
        "In which room were the words '{s}' said?",
        "Where did I hear the words '{s}'?",
        "Which room was I in when somebody said '{s}'?",
        "Which room was I in when I heard the words '{s}'?",
        "In which room did someone say '{s}'?",
        "Tell me where I was when someone said '{s}'.",
        "Room I was in when someone said '{s}'?"),
}


# Kinds no earlier set asks (nor scene_bench), written before their first run: wordings for sets G-J.
NEW_SETS = "GHIJKLMN"
NEW_WORDINGS: dict[str, tuple[str, ...]] = {
    "people_before_other": ("How many different people had spoken before {p} first spoke?",
                            "Before {p} said anything, how many distinct people had I heard?",
        "How many people spoke before {p} did for the first time?",
        "Before the first time {p} spoke, how many different people had talked?",
        "Until {p} first spoke, how many different people had I heard?",
        "How many distinct speakers had I heard before {p} spoke for the first time?",
        "Tell me how many different people I had heard before {p} first spoke.",
        "Number of different people I'd heard before {p}'s first turn?"),
    "most_after_t": ("After {t}, who spoke the most?", "Who talked most often once it was past {t}?",
        "Since {t}, who has talked the most?",
        "Who was the most talkative after {t}?",
        "Who spoke most often after {t}?",
        "From {t} on, who did I hear the most?",
        "Can you tell me who talked the most after {t}?",
        "Who did most of the talking after {t}?"),
    "count_person_before_t": ("How many times had {p} spoken by {t}?", "Before {t}, how often did {p} talk?",
        "Up to {t}, how many times did {p} speak?",
        "How many turns had {p} taken before {t}?",
        "Before {t}, how many times had I heard {p}?",
        "How many times did {p} talk before {t}?",
        "Do you know how many times {p} had talked before {t}?",
        "Number of times {p} spoke before {t}?"),
    "places_person_spoke": ("In how many different places did {p} speak?", "How many rooms did I hear {p} in?",
        "How many different rooms was I in when {p} spoke?",
        "In how many rooms did {p} talk?",
        "How many different places was I in when {p} talked?",
        "In how many places did I hear {p}?",
        "Tell me in how many different rooms I heard {p}.",
        "Number of rooms where I heard {p}?"),
    "spoke_before_t": ("Had {p} said anything before {t}?", "Did {p} speak at all before {t}?",
        "Was {p} heard before {t}?",
        "Did I hear {p} at all before {t}?",
        "Had I heard {p} before {t}?",
        "Before {t}, had {p} spoken at all?",
        "Do you remember if {p} spoke before {t}?",
        "Any words from {p} before {t}?"),
    "where_last_speaker": ("Where was I when the last person spoke?",
                           "Which room was I in when I heard the final speaker?",
        "In which room did the final turn of speech happen?",
        "Where was I when the final speaker spoke?",
        "Where was I when the last thing was said?",
        "Which room was I in when I heard the last speaker?",
        "Tell me where I was when the last words were spoken.",
        "Room I was in for the last turn of speech?"),
    "count_place_before_t": ("How many times did anyone speak in the {pl} before {t}?",
                             "Before {t}, how many turns of speech were there in the {pl}?",
        "In the {pl}, how many times did people speak before {t}?",
        "Before {t}, how often did people speak in the {pl}?",
        "How many times was someone talking in the {pl} before {t}?",
        "How many turns of speech did I hear in the {pl} before {t}?",
        "Can you tell me how many times people talked in the {pl} before {t}?",
        "Number of turns of speech in the {pl} before {t}?"),
    "more_after_t": ("After {t}, who spoke more times, {p1} or {p2}?",
                     "Who talked more often after {t}: {p1} or {p2}?",
        "After {t}, did {p1} or {p2} speak more often?",
        "Who spoke more often after {t}, {p1} or {p2}?",
        "Who talked more after {t}, {p1} or {p2}?",
        "After {t}, who spoke more: {p1} or {p2}?",
        "Tell me who talked more after {t}: {p1} or {p2}.",
        "Between {p1} and {p2}, who spoke more after {t}?"),
    "where_last_heard": ("Where was I the last time {p} spoke?", "In which room did I last hear {p}?",
        "Where was I when {p} spoke for the last time?",
        "Which room was I in the last time I heard {p}?",
        "Where was I when I heard {p} for the last time?",
        "In which room was I the last time {p} talked?",
        "Do you remember where I was the last time {p} talked?",
        "Room where I last heard {p}?"),
    # added after sets G and H were first run, with the code that answers them (seen, not held out)
    "who_between": ("Who spoke between {p1} and {p2}?", "Whose voice did I hear in between {p1} and {p2}?",
        "Who talked after {p1} and before {p2}?",
        "Who spoke in the time between {p1} and {p2}?",
        "Who did I hear between {p1} and {p2}?",
        "Who talked in between {p1} and {p2}?",
        "Tell me who talked between {p1} and {p2}.",
        "Whose turn came between {p1} and {p2}?"),
    "count_between": ("How many times did someone talk between {p1} and {p2}?",
                      "Between {p1} and {p2} speaking, how many turns were there?",
        "How many turns of speech came between {p1} and {p2}?",
        "How many times did people speak in between {p1} and {p2}?",
        "How many turns of speech were there between {p1} and {p2}?",
        "How many times did anyone speak between {p1} and {p2}?",
        "Can you tell me how many times people spoke between {p1} and {p2}?",
        "Number of turns between {p1} and {p2}?"),
}


def _adder(out: list[dict], table: dict[str, tuple[str, ...]], which: int):  # noqa: ANN202
    """``add(kind, reference, **fields)``: one answerable question in wording ``which`` of ``table``, onto ``out``."""
    def add(kind: str, ref: str, **fields: str) -> None:
        out.append({"kind": kind, "q": table[kind][which].format(**fields), "a": ref, "answerable": True})

    return add


def _start(scene, table: dict[str, tuple[str, ...]], which: int, mul: int, salt: int):  # noqa: ANN001, ANN202
    """A question maker's start: the scene's facts, its turns, the list of questions, the maker's own random
    stream (``seed * mul + salt``) and its adder for wording ``which`` of ``table``."""
    f, out = Facts(scene), []
    return f, f.turns, out, random.Random(scene.seed * mul + salt), _adder(out, table, which)


# Kinds first asked by set K, written before its first run (one wording each; later sets add theirs).
NEWER_SETS = "KLMN"
NEWER_WORDINGS: dict[str, tuple[str, ...]] = {
    "what_first_after_t": ("What was the first thing someone said after {t}?",
        "After {t}, what were the first words I heard?",
        "Tell me the first words someone said after {t}.",
        "First words said after {t}?"),
    "what_last_before_t": ("What were the last words I heard before {t}?",
        "What was the last thing said before {t}?",
        "Do you remember what was said last before {t}?",
        "Last words spoken before {t}?"),
    "what_after_last": ("What was said right after {p} spoke for the last time?",
        "What were the words spoken right after {p} spoke for the last time?",
        "Tell me what was said right after {p}'s last turn.",
        "Words spoken right after {p}'s final turn?"),
    "place_most_turns": ("In which room did people talk the most?",
        "Which room had the most talking?",
        "Tell me which room had the most speaking.",
        "Room with the most talking?"),
    "people_place_after_t": ("How many different people spoke in the {pl} after {t}?",
        "After {t}, how many different people talked in the {pl}?",
        "Can you tell me how many different people spoke in the {pl} after {t}?",
        "Number of different people who spoke in the {pl} after {t}?"),
    "who_first_after_other": ("Who was the first to speak after {p} first spoke?",
        "Once {p} had first spoken, who was the first person to talk after that?",
        "Do you remember who spoke first after {p} first talked?",
        "First person to speak after {p}'s first turn?"),
}


def newer_questions(scene, which: int) -> list[dict]:  # noqa: ANN001
    """The kinds of :data:`NEWER_WORDINGS` in wording ``which`` of :data:`NEWER_SETS`."""
    f, turns, out, r, add = _start(scene, NEWER_WORDINGS, which, 13, 5)
    edges = f.window_edges()
    for t in r.sample(edges, min(2, len(edges))):
        after = [e for e in turns if e.start > t]
        before = [e for e in turns if e.end < t]
        if after:
            add("what_first_after_t", scene.sentences[after[0].person], t=clock(t))
        if before:
            add("what_last_before_t", scene.sentences[before[-1].person], t=clock(t))
        pl = r.choice(f.spoken_places)
        add("people_place_after_t", str(len({e.person for e in after if e.place == pl})), pl=pl, t=clock(t))
    for p in f.speakers:
        idx = [i for i, e in enumerate(turns) if e.person == p]
        if idx[-1] + 1 < len(turns):
            add("what_after_last", scene.sentences[turns[idx[-1] + 1].person], p=f.who(p))
        if idx[0] + 1 < len(turns) and turns[idx[0] + 1].person != p:
            add("who_first_after_other", f.who(turns[idx[0] + 1].person), p=f.who(p))
    places = Counter(e.place for e in turns)
    top = max(places.values())
    if sum(c == top for c in places.values()) == 1:
        add("place_most_turns", f"in the {places.most_common(1)[0][0]}")
    return out

# Kinds first asked by set L, written before its first run.
LATEST_SETS = "LMN"
LATEST_WORDINGS: dict[str, tuple[str, ...]] = {
    "second_in_place": ("Who was the second person to speak in the {pl}?",
        "In the {pl}, who was the second to talk?",
        "Second person to speak in the {pl}?"),
    "what_first_in_place": ("What was the first thing said in the {pl}?",
        "Tell me the first words spoken in the {pl}.",
        "First words I heard in the {pl}?"),
    "people_between": ("How many different people spoke between {p1} and {p2}?",
        "Can you tell me how many different people talked between {p1} and {p2}?",
        "Number of different people who talked between {p1} and {p2}?"),
    "when_first_in_place": ("When did I first hear someone speak in the {pl}?",
        "At what time did someone first talk in the {pl}?",
        "Time someone first spoke in the {pl}?"),
    "place_least_turns": ("In which room did I hear the least talking?",
        "Which room had the fewest turns of speech?",
        "Room with the least talking?"),
    "people_place_before_t": ("How many different people had spoken in the {pl} before {t}?",
        "Before {t}, how many different people did I hear in the {pl}?",
        "Number of different people heard in the {pl} before {t}?"),
}


def latest_questions(scene, which: int) -> list[dict]:  # noqa: ANN001
    """The kinds of :data:`LATEST_WORDINGS` in wording ``which`` of :data:`LATEST_SETS`."""
    f, turns, out, r, add = _start(scene, LATEST_WORDINGS, which, 17, 7)
    for pl in f.spoken_places:
        here = f.in_place(pl)
        order = list(dict.fromkeys(e.person for e in here))
        if len(order) >= 2:
            add("second_in_place", f.who(order[1]), pl=pl)
        add("what_first_in_place", scene.sentences[here[0].person], pl=pl)
        add("when_first_in_place", mmss(here[0].start), pl=pl)
    firsts = [next(i for i, e in enumerate(turns) if e.person == p) for p in f.speakers]
    pairs = [(i, j) for i in range(len(firsts)) for j in range(i + 1, len(firsts))]
    for i, j in r.sample(pairs, min(2, len(pairs))):
        inside = turns[firsts[i] + 1:firsts[j]]
        add("people_between", str(len({e.person for e in inside})), p1=f.who(f.speakers[i]), p2=f.who(f.speakers[j]))
    places = Counter(e.place for e in turns)
    low = min(places.values())
    if len(places) >= 2 and sum(c == low for c in places.values()) == 1:
        add("place_least_turns", f"in the {min(places, key=places.get)}")
    edges = f.window_edges()
    for t in r.sample(edges, min(2, len(edges))):
        pl = r.choice(f.spoken_places)
        add("people_place_before_t", str(len({e.person for e in turns if e.place == pl and e.end < t})), pl=pl,
            t=clock(t))
    return out

# Kinds first asked by set M, written before its first run.
RECENT_SETS = "MN"
RECENT_WORDINGS: dict[str, tuple[str, ...]] = {
    "second_after_t": ("Who was the second person to speak after {t}?",
        "After {t}, who was the second person to talk?"),
    "count_after_others_last": ("How many times did {p1} speak after {p2} spoke for the last time?",
        "After {p2} had spoken for the last time, how many times did {p1} speak?"),
    "never_in_place": ("Which of the people I heard never spoke in the {pl}?",
        "Who among the people I heard didn't speak in the {pl}?"),
    "when_person_first_in_place": ("When did {p} first speak in the {pl}?",
        "What time did {p} first talk in the {pl}?"),
    "last_in_place_before_t": ("Who spoke last in the {pl} before {t}?",
        "Before {t}, who was the last to speak in the {pl}?"),
    "both_places": ("Who spoke in both the {pl1} and the {pl2}?",
        "Who talked in the {pl1} and also in the {pl2}?"),
}


def recent_questions(scene, which: int) -> list[dict]:  # noqa: ANN001
    """The kinds of :data:`RECENT_WORDINGS` in wording ``which`` of :data:`RECENT_SETS`, and one question about
    words nobody said ("When did someone say ...?", to decline)."""
    f, turns, out, r, add = _start(scene, RECENT_WORDINGS, which, 19, 11)
    edges = f.window_edges()
    for t in r.sample(edges, min(2, len(edges))):
        order = list(dict.fromkeys(e.person for e in turns if e.start > t))
        if len(order) >= 2:
            add("second_after_t", f.who(order[1]), t=clock(t))
        pl = r.choice(f.spoken_places)
        before = [e for e in f.in_place(pl) if e.end < t]
        if before:
            add("last_in_place_before_t", f.who(before[-1].person), pl=pl, t=clock(t))
    pairs = [(a, b) for a in f.speakers for b in f.speakers if a != b]
    for p1, p2 in r.sample(pairs, min(3, len(pairs))):
        last2 = max(i for i, e in enumerate(turns) if e.person == p2)
        add("count_after_others_last", str(sum(e.person == p1 for e in turns[last2 + 1:])), p1=f.who(p1),
            p2=f.who(p2))
    for pl in f.spoken_places:
        here = {e.person for e in f.in_place(pl)}
        never = [p for p in f.speakers if p not in here]
        if len(never) == 1:
            add("never_in_place", f.who(never[0]), pl=pl)
        p = r.choice(sorted(here))
        add("when_person_first_in_place", mmss(f.in_place(pl, p)[0].start), p=f.who(p), pl=pl)
    for i, a in enumerate(f.spoken_places):
        for b in f.spoken_places[i + 1:]:
            both = [p for p in f.speakers if f.in_place(a, p) and f.in_place(b, p)]
            if len(both) == 1:
                add("both_places", f.who(both[0]), pl1=a, pl2=b)
    if which < 2:   # sets M-N (the blind sets m-n have no wording of their own for it)
        asked = ("When did someone say '{s}'?", "At what time did I hear someone say '{s}'?")[which]
        out.append({"kind": "unknown_when", "q": asked.format(s=f.fake_sentence(r)), "a": NOT_SAID,
                    "answerable": False})
    return out


# Kinds first asked by set N, written before its first run.
NEWEST_SETS = "N"
NEWEST_WORDINGS: dict[str, tuple[str, ...]] = {
    "person_place_after_t": ("Did {p} speak in the {pl} after {t}?",),
    "most_in_place_before_t": ("Who spoke the most in the {pl} before {t}?",),
    "when_last_in_place": ("When did I last hear someone in the {pl}?",),
    "where_nth_turn": ("Where was I the {nth} time {p} spoke?",),
    "when_nth_turn": ("When did {p} speak for the {nth} time?",),
    "count_people_more_than_k": ("How many people spoke more than {k}?",),     # {k}: once, twice, 3 times
}
_NTH = {2: "second", 3: "third", 4: "fourth"}


def newest_questions(scene, which: int) -> list[dict]:  # noqa: ANN001
    """The kinds of :data:`NEWEST_WORDINGS` in wording ``which`` of :data:`NEWEST_SETS`, and one question about
    words nobody said ("Where was I the second time someone said ...?", to decline)."""
    f, turns, out, r, add = _start(scene, NEWEST_WORDINGS, which, 23, 13)
    edges = f.window_edges()
    for t in r.sample(edges, min(2, len(edges))):
        p, pl = r.choice(f.speakers), r.choice(f.spoken_places)
        add("person_place_after_t", "Yes" if any(e.start > t for e in f.in_place(pl, p)) else "No", p=f.who(p),
            pl=pl, t=clock(t))
        before = Counter(e.person for e in f.in_place(pl) if e.end < t)
        best = f.unique(before, True) if before else None
        if best:
            add("most_in_place_before_t", f.who(best), pl=pl, t=clock(t))
    for pl in f.spoken_places:
        add("when_last_in_place", mmss(f.in_place(pl)[-1].start), pl=pl)
    for p in f.speakers:
        mine = [e for e in turns if e.person == p]
        if len(mine) >= 2:
            n = r.choice([k for k in _NTH if k <= len(mine)])
            add("where_nth_turn", f"in the {mine[n - 1].place}", p=f.who(p), nth=_NTH[n])
            add("when_nth_turn", mmss(mine[n - 1].start), p=f.who(p), nth=_NTH[n])
    counts = sorted(set(f.count.values()))
    for k in r.sample(counts[:-1], min(2, len(counts) - 1)):
        add("count_people_more_than_k", str(sum(c > k for c in f.count.values())), k=times(k))
    fake = f.fake_sentence(r)
    out.append({"kind": "unknown_nth", "q": f"Where was I the second time someone said '{fake}'?", "a": NOT_SAID,
                "answerable": False})
    return out


def new_questions(scene, which: int) -> list[dict]:  # noqa: ANN001
    """The new kinds' questions in wording ``which`` of :data:`NEW_SETS`; references from the scene definition."""
    f, turns, out, r, add = _start(scene, NEW_WORDINGS, which, 11, 3)
    for p in f.speakers[1:]:
        first = next(i for i, e in enumerate(turns) if e.person == p)
        add("people_before_other", str(len({e.person for e in turns[:first]})), p=f.who(p))
    for p in f.speakers:
        mine = [e for e in turns if e.person == p]
        add("places_person_spoke", str(len({e.place for e in mine})), p=f.who(p))
        add("where_last_heard", f"in the {mine[-1].place}", p=f.who(p))
    add("where_last_speaker", f"in the {turns[-1].place}")
    firsts = [next(i for i, e in enumerate(turns) if e.person == p) for p in f.speakers]
    pairs = [(i, j) for i in range(len(firsts)) for j in range(i + 1, len(firsts))]
    for i, j in r.sample(pairs, min(3, len(pairs))):
        p1, p2 = f.speakers[i], f.speakers[j]
        inside = turns[firsts[i] + 1:firsts[j]]
        if r.random() < 0.5:
            p1, p2 = p2, p1
        add("count_between", str(len(inside)), p1=f.who(p1), p2=f.who(p2))
        if len({e.person for e in inside}) == 1:
            add("who_between", f.who(inside[0].person), p1=f.who(p1), p2=f.who(p2))
    edges = f.window_edges()
    for t in r.sample(edges, min(2, len(edges))):
        after = Counter(e.person for e in turns if e.start > t)
        best = f.unique(after, True) if after else None
        if best:
            add("most_after_t", f.who(best), t=clock(t))
        p = r.choice(f.speakers)
        n = sum(e.person == p and e.end < t for e in turns)
        add("count_person_before_t", str(n), p=f.who(p), t=clock(t))
        add("spoke_before_t", "Yes" if n else "No", p=f.who(p), t=clock(t))
        pl = r.choice(f.spoken_places)
        add("count_place_before_t", str(sum(e.place == pl and e.end < t for e in turns)), pl=pl, t=clock(t))
        if len(f.speakers) >= 2:
            p1, p2 = r.sample(f.speakers, 2)
            if after[p1] != after[p2]:
                add("more_after_t", f.who(p1 if after[p1] > after[p2] else p2), p1=f.who(p1), p2=f.who(p2),
                    t=clock(t))
    return out


def questions(scene, which: int) -> list[dict]:  # noqa: ANN001
    f = Facts(scene)
    turns, out = f.turns, []

    def add(kind: str, ref: str, answerable: bool = True, **fields: str) -> None:
        out.append({"kind": kind, "q": WORDINGS[kind][which].format(**fields), "a": ref, "answerable": answerable})

    r = random.Random(scene.seed * 7 + 1)
    edges = f.window_edges()
    for t in r.sample(edges, min(2, len(edges))):
        after = [e for e in turns if e.start > t]
        before = [e for e in turns if e.end < t]
        if after:
            add("first_after_t", f.who(after[0].person), t=clock(t))
            add("count_after_t", str(len(after)), t=clock(t))
            add("people_after_t", str(len({e.person for e in after})), t=clock(t))
        if before:
            add("last_before_t", f.who(before[-1].person), t=clock(t))
    for p in f.speakers:
        idx = [i for i, e in enumerate(turns) if e.person == p]
        if idx[-1] + 1 < len(turns):
            add("right_after_last", f.who(turns[idx[-1] + 1].person), p=f.who(p))
        if idx[-1] > 0 and turns[idx[-1] - 1].person != p:
            add("right_before_last", f.who(turns[idx[-1] - 1].person), p=f.who(p))
        add("where_first_heard", f"in the {turns[idx[0]].place}", p=f.who(p))
    for p1 in f.speakers:
        for p2 in f.speakers:
            if p1 == p2:
                continue
            first2 = next(i for i, e in enumerate(turns) if e.person == p2)
            last2 = max(i for i, e in enumerate(turns) if e.person == p2)
            n = sum(e.person == p1 for e in turns[:first2])
            if n:
                add("count_before_other", str(n), p1=f.who(p1), p2=f.who(p2))
            add("spoke_after_others_last", "Yes" if any(e.person == p1 for e in turns[last2 + 1:]) else "No",
                p1=f.who(p1), p2=f.who(p2))
    for pl in f.spoken_places:
        here = f.in_place(pl)
        add("first_in_place", f.who(here[0].person), pl=pl)
        add("last_in_place", f.who(here[-1].person), pl=pl)
    add("first_thing_said", scene.sentences[turns[0].person])
    add("last_thing_said", scene.sentences[turns[-1].person])
    for k in sorted(set(f.count.values())):
        who = [p for p, c in f.count.items() if c == k]
        if len(who) == 1 and k >= 2:
            add("who_exactly_k", f.who(who[0]), k=str(k))
    fake = f.fake_sentence(r)
    add("unknown_right_after", NOT_SAID, False, s=fake)
    add("unknown_where", NOT_SAID, False, s=fake)
    return out


# sets m-n: every kind above in two more wordings, written blind (wording_blind_mn.py)
for _table in (WORDINGS, NEW_WORDINGS, NEWER_WORDINGS, LATEST_WORDINGS, RECENT_WORDINGS, NEWEST_WORDINGS):
    for _kind in _table:
        _table[_kind] = _table[_kind] + BLIND_WORDINGS[_kind]
SETS, NEW_SETS, NEWER_SETS, LATEST_SETS, RECENT_SETS, NEWEST_SETS = (
    s + BLIND_SETS for s in (SETS, NEW_SETS, NEWER_SETS, LATEST_SETS, RECENT_SETS, NEWEST_SETS))


def _questions(scene, which: str, only_new: bool) -> list[dict]:  # noqa: ANN001
    """Set ``which``'s questions about ``scene``."""
    qs = [] if only_new or which not in SETS else questions(scene, SETS.index(which))
    for letters, make in ((NEW_SETS, new_questions), (NEWER_SETS, newer_questions), (LATEST_SETS, latest_questions),
                          (RECENT_SETS, recent_questions), (NEWEST_SETS, newest_questions), (OP_SETS, op_questions),
                          (RANK_SETS, rank_questions), (MOVE_SETS, move_questions),
                          (GAP_SETS, gap_questions), (COMPOSE_SETS, compose_questions)):
        if which in letters:
            qs += make(scene, letters.index(which))
    return qs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int, nargs="+")
    ap.add_argument("--keep", required=True, help="a scene_bench.py --keep folder with seed_SEED/memory.db")
    ap.add_argument("--set", default="C", help="one set (A..Z, a..d) or several, e.g. STUV: the model loads once")
    ap.add_argument("--only-new", action="store_true", help="ask only the new kinds (sets G-N)")
    ap.add_argument("--grid", default=str(GRID))
    ap.add_argument("--json", default="", help="the results file ({seed} and {set} are filled in)")
    args = ap.parse_args()
    from m3_control.evaluation.judge import make_judge
    from m3_memory import MemoryStore

    known = SETS + OP_SETS + RANK_SETS + MOVE_SETS + GAP_SETS + COMPOSE_SETS
    bad = [x for x in args.set if x not in known]
    if bad:
        ap.error(f"unknown set(s) {bad}: {known}")
    judge, shared = make_judge(None), None
    for seed in args.seed:
        scene = make_scene(seed, args.grid)
        at = scene_questions(scene)[0].at
        store = MemoryStore(Path(args.keep) / f"seed_{seed}" / "memory.db", readonly=True)
        ans = _answerer(store, shared)
        if shared is None:
            ans.load()
            shared = ans
        for which in args.set:
            _probe(ans, judge, seed, which, _questions(scene, which, args.only_new), at, args.json)


def _probe(ans, judge, seed: int, which: str, qs: list[dict], at: float, json_out: str) -> None:  # noqa: ANN001
    rows = []
    for q in qs:
        t = time.perf_counter()
        a = ans.answer(q["q"], at, 5)
        lat = time.perf_counter() - t
        text = a.answer or a.error
        ok = judge.judge(q["q"], q["a"], text).correct
        rows.append(q | {"answer": text, "correct": ok, "latency_s": lat, "declined": declined(text),
                         "replies": [x.get("reply", "") for x in a.trace.get("rounds", [])]})
        print("OK  " if ok else "MISS", f"{lat:4.1f}s", q["kind"], "|", q["q"], "| ref:", q["a"], "| got:", text[:160],
              "|", rows[-1]["replies"], flush=True)
    right = sum(r["correct"] for r in rows)
    lat = sorted(r["latency_s"] for r in rows)
    print(f"set {which}, seed {seed}: {right}/{len(rows)} right; p50 {lat[len(lat) // 2]:.2f} s")
    acc, p50 = right / max(1, len(rows)), lat[len(lat) // 2]
    print(tabulate([["strict accuracy (issue 26's overall target)", ">= 95%", f"{acc:.1%}", "met" if acc >= 0.95 else
                     "NOT MET"], ["answer latency p50", "<= 2 s", f"{p50:.2f} s", "met" if p50 <= 2.0 else "NOT MET"]],
                   headers=["metric", "target", "measured", ""]))
    out = Path(json_out.format(seed=seed, set=which) if json_out else
               Path(__file__).parent / "results" / f"wording_probe_{seed}_{which}.json")
    out.write_text(json.dumps({"seed": seed, "set": which, "right": right, "n": len(rows), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
