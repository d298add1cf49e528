"""Questions no one frame says, answered by code over several frames (or one frame's result regrouped):

- ``groups_room`` / ``groups_part`` / ``groups_person``: a measure of the turns (turns, speakers, seconds, silences,
  turn lengths) in each room, part of the recording or person, the most (least) or every group's
  (:mod:`.measure_groups`)
- ``ref_between`` / ``ref_before`` / ``ref_after`` / ``ref_until`` / ``ref_nearest`` / ``ref_next`` / ``ref_previous``:
  what is asked around one turn, silence or moment named by its place in the talk ("A's third turn", "the first turn
  in the lab", "the longest silence", "the middle of the recording") (:mod:`.ref_turns`)
- ``follow_share``: how many (what share) of one person's turns came right after (before) another's
  (:mod:`.follow_share`)
- ``order``: which of the listed people came first / last (:mod:`.choice`)
- ``first_or_last``: whether one person spoke first or last, both asked at once (:mod:`.first_or_last`)
- ``counts``: which of three or more listed people spoke most / least often (:mod:`.choice`)
- ``right_after`` / ``right_before``: who came right after A, of the people listed as choices (:mod:`.choice`)
- ``listed_count`` / ``listed_which`` / ``listed_any``: how many (which, any) of the listed people spoke in the
  frame's place and window (:mod:`.listed_people`)
- ``side``: before or after a moment (:mod:`.sides`)
- ``first_repeat``: who spoke (whether someone did) before anyone had spoken twice (:mod:`.first_repeat`)
- ``room_tallies_mean`` / ``room_tallies_same``: turns per room on average, people who spoke as often in two rooms
  (:mod:`.room_tallies`)
- ``long_turns``: turns against a length, how many or whether any (:mod:`.long_turns`)
- ``mentions``: colours, numbers or letters mentioned in the turns' words (:mod:`.mentions`)
- ``only_speaker``: whether one person was the only one heard in a place or window (:mod:`.only_speaker`)
- ``runs_without`` / ``runs_alternate`` / ``runs_than_before``: the longest run of turns without one person, the
  longest back-and-forth of two, turns longer than the one before (:mod:`.turn_runs`)
- ``pair_gap``: how close in time a turn of one person's came to one of another's (:mod:`.pair_gaps`)
- ``than_all``: turns (in a room) shorter (longer) than every one of one person's turns (:mod:`.length_limits`)
- ``nearest_length`` / ``longest_where``: the turn closest in length to one of one person's, whether the recording's
  longest turn was in a room (:mod:`.length_limits`)
- ``neighbours``: the turns right before and right after one person's turn, asked at once (:mod:`.turn_neighbours`)
- ``count_relation``: one person's turns (seconds) against a multiple of another's, or against everyone else's
  together (:mod:`.count_relations`); ``count_between``: the people whose turns (seconds) lie between two others',
  ``count_equal``: the people whose numbers of turns tie (:mod:`.count_between`)
- ``heard_before``: a room's turns (people) by people already heard in another (:mod:`.heard_before`);
  ``heard_earlier``: whether a room's first (n-th, last) turn came from someone heard before it (:mod:`.heard_earlier`)
- ``room_turns``: two rooms' first (last, n-th) turns compared by length (:mod:`.room_turns`); ``length_anchor``: the
  turn right before (after) someone's longest (shortest) turn (:mod:`.length_anchor`)
- ``turn_lengths``: two turns (two people's, or one person's two) compared by their own length (:mod:`.turn_lengths`)
- ``room_people``: rooms by their number of different people ("which room had just one speaker?")
  (:mod:`.room_people`)
- ``each_room``: the first (last) speaker or words in each room, or after each move (:mod:`.each_room`)
- ``each_next``: who spoke right after (before) each of one person's turns (:mod:`.each_turn_next`)
- ``turn_rooms``: whether two of one person's turns were in the same room (:mod:`.turn_rooms`)
- ``rooms``: people by the places they were in: both rooms, only one, only the kitchen, the most rooms (:mod:`.rooms`);
  ``places_compared``: two people by their number of places (:mod:`.places_compared`)
- ``span``: how long the talk went on, first words to last; ``ranked_span``: people ranked by their own first words
  to last (:mod:`.talk_span`)
- ``trip``: the robot's way from one room to another, how long and how much of it moving, or all its moving
  (:mod:`.trips`)
- ``stays_compared``: the robot's time in two places compared (:mod:`.stays_compared`); ``before_move``: its time
  from the start of its track to its arrival in a place (:mod:`.before_move`)
- ``room_changes`` / ``robot_at``: how many times the robot changed rooms, whether it was in a room at a clock
  time (:mod:`.room_changes`); ``robot_when``: whether it was in a room when someone (first, last) spoke
  (:mod:`.robot_when`)
- ``room_ends``: one room's first (last) speaker against another's, or one person against every room's
  (:mod:`.room_ends`)
- ``solo``: the longest stretch one person (or anyone) spoke alone, turns in a row (:mod:`.solo_stretches`)
- ``near_move_nearest`` / ``near_move_to_last``: the turn nearest a move of the robot's, the time from an arrival to
  the last turn heard (:mod:`.near_moves`)
- ``within`` / ``delay`` / ``between``: turns within N seconds of a moment, the time from the start (or a move of
  the robot's) to the first words, the turns between a move (or the start) and someone's words (:mod:`.anchored`)
- ``longest`` / ``shortest`` / ``distinct`` / ``most_said`` / ``repeated``: one turn's own length, the sentences
  heard grouped by what they said (:mod:`.sentences`)
- ``mood``: one person's mood, as the expressions noted on their face (:mod:`.moods`)
- ``seen_heard``: people both seen and heard, or heard and never seen (:mod:`.seen_heard`)
- ``quiet``: whether one person stayed quiet (never spoke) in a place or window; ``hush``: whether nobody did
  (:mod:`.quiet`)
- ``talk_total``: one person's seconds of talk against a number (:mod:`.talk_total`); ``speech_total``: everyone's
  speech added up in a place or window, ``room_share`` one room's part of it (:mod:`.speech_total`)
- ``turn_average``: one person's (everyone's) turns, their average length (:mod:`.turn_average`)
- ``stats_difference`` / ``stats_share`` / ``stats_rate`` / ``stats_covered`` / ``stats_length``: how much one
  person out-talked another, one person's share (or whether it was more than half), turns a minute, how much of the
  recording had speech, how long the recording is (:mod:`.turn_stats`)
- ``speech_places``: rooms compared by their seconds of speech ("which room was quieter?"), or by one person's
  ("where did A talk for the longest time?") (:mod:`.speech_places`)
- ``person_gap``: the longest time one person went without speaking, whether it was over a time, their average wait
  between turns, or who waited longest between their own turns (:mod:`.person_gaps`)
- ``turn_gaps``: the average silence between turns, whether two people's turns overlapped, the turns begun within N
  seconds of the one before ending, the quickest reply (:mod:`.turn_gaps`)
- ``silence``: the longest silence between turns, or those longer than a time (:mod:`.silences`)
- ``place_counts``: one person's turns in two places compared (:mod:`.place_counts`)
- ``window_counts``: the turns (people) of two spans of time compared; ``minute``: the busiest (quietest) minute
  (:mod:`.window_counts`)
- ``not_yet``: the people not heard yet at a moment; ``first_in_place`` /
  ``last_in_place``: first (last) heard in a place (:mod:`.not_yet`)
- ``places_together`` / ``than_two``: counts added up: two places together, two people against a third
  (:mod:`.added_counts`)
- ``in_a_row`` / ``ever_after`` / ``last_new`` / ``every_change``: turns of one person in a row, one person right
  after any turn of another's, the last new voice, whether the speaker changed at every turn (:mod:`.turn_sequence`);
  ``pairs``: the two people whose turns most (least) often came one right after the other (:mod:`.turn_pairs`);
  ``minutes_spoken``: people by the different minutes they spoke in (:mod:`.minutes_spoken`)
- ``roles``: whether one person held two roles ("was the second speaker also the last one?"); ``role_figure``: one
  role's turns or seconds ("how many turns did the least frequent speaker take?"); ``person_role``: one person against
  such a role, a tie said ("was A the most frequent speaker in the lab?") (:mod:`.role_match`)
- ``both``: people who spoke both in a place and before / after a time, or on both sides of two times
  (:mod:`.both_conditions`)
- ``everyone``: whether every person heard spoke a number of times (:mod:`.everyone`)
- ``others_times`` / ``others_people`` / ``others_who``: everyone but one person, their turns counted, they counted
  or named (:mod:`.others_than`)
- ``about``: what someone said about a topic, or that they said nothing about it; ``same_words``: whether they
  always said the same thing (:mod:`.said_about`)
- ``speaking_order`` / ``turns_gap``: everyone in the order of their first (last) words, the time between the n-th
  and m-th turns (:mod:`.turn_order`); ``to_end``: one person's turn to the end of the last words heard
  (:mod:`.turn_to_end`)

The model still writes the frame (its window, place and act are kept); the plan says how the frame's checks read the
question, which of their complaints still stand (the people, for instance, are read from the question by the plan),
and runs the frames. What it answers is built from the executed results and checked against them like any frame's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from m3_memory.store.where import load_places

from . import (
    added_counts,
    anchored,
    before_move,
    both_conditions,
    choice,
    count_between,
    count_relations,
    each_room,
    each_turn_next,
    everyone,
    first_or_last,
    first_repeat,
    follow_share,
    heard_before,
    heard_earlier,
    length_anchor,
    length_limits,
    listed_people,
    long_turns,
    measure_groups,
    mentions,
    minutes_spoken,
    moods,
    near_moves,
    not_yet,
    only_speaker,
    others_than,
    pair_gaps,
    person_gaps,
    place_counts,
    places_compared,
    quiet,
    ref_turns,
    robot_when,
    role_match,
    room_changes,
    room_ends,
    room_people,
    room_tallies,
    room_turns,
    rooms,
    said_about,
    seen_heard,
    sentences,
    sides,
    silences,
    solo_stretches,
    speech_places,
    speech_total,
    stays_compared,
    talk_span,
    talk_total,
    trips,
    turn_average,
    turn_gaps,
    turn_lengths,
    turn_neighbours,
    turn_order,
    turn_pairs,
    turn_rooms,
    turn_runs,
    turn_sequence,
    turn_stats,
    turn_to_end,
    window_counts,
)
from .execute import QueryExecutor
from .frame import Query
from .question_place import place_of_question
from .result import QueryResult


@dataclass(frozen=True)
class Plan:
    kind: str
    run: Callable[[QueryExecutor, Query, float | None], tuple[str, QueryResult]]
    prepare: Callable[[Query], Query] = lambda q: q            # the model's frame, before the checks
    check_question: str | None = None                         # the question as the checks read it (None: as asked)
    people_from_question: bool = True                         # the checks' complaints about people do not stand

    def keeps(self, missing: str) -> bool:
        """Whether one of the checks' complaints still stands: the plan reads people (and more) itself."""
        return not self.people_from_question or missing.startswith("the time ")


# "In the library, whose turns were longest on average?": the place said first, read as said last
_LEAD_PLACE = re.compile(r"^\s*(?P<lead>(?:in|inside)\s+the\s+[a-z]+(?:\s+room)?|while\s+(?:I|we)\s+(?:was|were)\s+"
                         r"in\s+the\s+[a-z]+(?:\s+room)?)\s*,\s*(?P<rest>(?:who|whose|which|what|how|did|was|were|when)\b.+?)"
                         r"(?P<end>[?.!]*)\s*$", re.IGNORECASE)


def lead_place_last(question: str) -> str:
    """The question with a leading "In the X," moved to its end ("Whose turns were longest on average in the
    library?"); other questions as asked."""
    m = _LEAD_PLACE.match(question)
    if m is None:
        return question
    rest = m.group("rest")
    return f"{rest[0].upper()}{rest[1:]} {m.group('lead')[0].lower()}{m.group('lead')[1:]}{m.group('end') or '?'}"


def plan_for(question: str) -> Plan | None:
    """The plan for a question no one frame says, else None (the frame runs as written)."""
    question = lead_place_last(question)
    either = sides.either_form(question)     # "did B speak before 0:15 or after?" ("... more before 0:15 or after?"
    if sides.asks_side(either) and window_counts.asks_window_counts(question) is None:     # compares two spans)
        return Plan("side", lambda ex, q, t: sides.answer(ex, q, either, t), prepare=sides.prepare,
                    check_question=sides.check_question(either), people_from_question=False)
    grouped = measure_groups.asks_groups(question)
    if grouped is not None:
        return Plan(f"groups_{grouped.groups}", lambda ex, q, t: measure_groups.answer(ex, q, grouped, question, t),
                    prepare=measure_groups.prepare)
    ref = ref_turns.asks_ref(question)
    if ref is not None:
        return Plan(f"ref_{ref.kind}", lambda ex, q, t: ref_turns.answer(ex, q, ref, t), prepare=ref_turns.prepare)
    share = follow_share.asks_share(question)
    if share is not None:
        return Plan("follow_share", lambda ex, q, t: follow_share.answer(ex, q, share, t), prepare=follow_share.prepare)
    solo = solo_stretches.asks_solo(question)
    if solo is not None:
        return Plan("solo", lambda ex, q, t: solo_stretches.answer(ex, q, solo, question, t),
                    prepare=solo_stretches.prepare)
    pairs = turn_pairs.asks_pairs(question)
    if pairs is not None:
        return Plan("pairs", lambda ex, q, t: turn_pairs.answer(ex, q, pairs, t), prepare=turn_pairs.prepare)
    spread = minutes_spoken.asks_minutes_spoken(question)
    if spread is not None:
        return Plan("minutes_spoken", lambda ex, q, t: minutes_spoken.answer(ex, q, spread, t),
                    prepare=minutes_spoken.prepare, check_question=minutes_spoken.check_question(question))
    by_people = room_people.asks_room_people(question)
    if by_people is not None:
        return Plan("room_people", lambda ex, q, t: room_people.answer(ex, q, by_people, question, t),
                    prepare=room_people.prepare, check_question=room_people.check_question(question, by_people))
    rooms_each = each_room.asks_each_room(question)
    if rooms_each is not None:
        return Plan("each_room", lambda ex, q, t: each_room.answer(ex, q, rooms_each, t), prepare=each_room.prepare)
    each_next = each_turn_next.asks_each_next(question)
    if each_next is not None:
        return Plan("each_next", lambda ex, q, t: each_turn_next.answer(ex, q, each_next, t),
                    prepare=each_turn_next.prepare)
    two_rooms = turn_rooms.asks_turn_rooms(question)
    if two_rooms is not None:
        return Plan("turn_rooms", lambda ex, q, t: turn_rooms.answer(ex, q, two_rooms, t), prepare=turn_rooms.prepare)
    known = heard_before.asks_heard_before(question)
    if known is not None:
        return Plan("heard_before", lambda ex, q, t: heard_before.answer(ex, q, known, t),
                    prepare=heard_before.prepare, people_from_question=False)
    room_share = speech_total.asks_room_share(question)
    if room_share is not None:
        return Plan("room_share", lambda ex, q, t: speech_total.answer_share(ex, q, room_share, t),
                    prepare=lambda q: q)
    longest_where = length_limits.asks_longest_where(question)
    if longest_where is not None:
        return Plan("longest_where", lambda ex, q, t: length_limits.answer_where(ex, q, longest_where, t),
                    prepare=lambda q: q)
    only = only_speaker.asks_only(question)
    if only is not None:
        return Plan("only_speaker", lambda ex, q, t: only_speaker.answer(ex, q, only, t),
                    prepare=only_speaker.prepare)
    runs = turn_runs.asks_runs(question)
    if runs is not None:
        return Plan(f"runs_{runs.kind}", lambda ex, q, t: turn_runs.answer(ex, q, runs, t), prepare=turn_runs.prepare)
    pair_gap = pair_gaps.asks_pair_gap(question)
    if pair_gap is not None:
        return Plan("pair_gap", lambda ex, q, t: pair_gaps.answer(ex, q, pair_gap, t), prepare=pair_gaps.prepare)
    than_all = length_limits.asks_than_all(question)
    if than_all is not None:
        return Plan("than_all", lambda ex, q, t: length_limits.answer_than_all(
            ex, q, than_all, place_of_question(question, [p.name for p in load_places(ex.store)]), t),
            prepare=lambda q: q)
    nearest = length_limits.asks_nearest_length(question)
    if nearest is not None:
        return Plan("nearest_length", lambda ex, q, t: length_limits.answer_nearest(ex, q, nearest, t),
                    prepare=lambda q: q)
    neighbours = turn_neighbours.asks_neighbours(question)
    if neighbours is not None:
        return Plan("neighbours", lambda ex, q, t: turn_neighbours.answer(ex, q, neighbours, t),
                    prepare=turn_neighbours.prepare)
    if count_between.asks_equal(question):
        return Plan("count_equal", lambda ex, q, t: count_between.answer_equal(ex, q, question, t),
                    prepare=count_between.prepare)
    between = count_between.asks_between(question)
    if between is not None:
        return Plan("count_between", lambda ex, q, t: count_between.answer(ex, q, between, t),
                    prepare=count_between.prepare)
    relation = count_relations.asks_count_relation(question)
    if relation is not None:
        return Plan("count_relation", lambda ex, q, t: count_relations.answer(ex, q, relation, t),
                    prepare=count_relations.prepare)
    earlier = heard_earlier.asks_heard_earlier(question)
    if earlier is not None:
        return Plan("heard_earlier", lambda ex, q, t: heard_earlier.answer(ex, q, earlier, t),
                    prepare=heard_earlier.prepare, check_question=question.replace(earlier.said, " "),
                    people_from_question=False)
    repeat = first_repeat.asks_first_repeat(question)
    if repeat is not None:
        return Plan("first_repeat", lambda ex, q, t: first_repeat.answer(ex, q, repeat, question, t),
                    prepare=first_repeat.prepare, check_question=question.replace(repeat.said, " "))
    tallies = room_tallies.asks_room_tallies(question)
    if tallies is not None:
        return Plan(f"room_tallies_{tallies.kind}", lambda ex, q, t: room_tallies.answer(ex, q, tallies, t),
                    prepare=room_tallies.prepare, people_from_question=False)
    mentioned = mentions.asks_mentions(question)
    if mentioned is not None:
        return Plan("mentions", lambda ex, q, t: mentions.answer(ex, q, mentioned, t), prepare=mentions.prepare)
    against = long_turns.asks_long_turns(question)
    if against is not None:
        return Plan("long_turns", lambda ex, q, t: long_turns.answer(ex, q, against, t),
                    prepare=lambda q: turn_gaps.prepare(q, question), people_from_question=False)
    by_room = room_turns.asks_room_turns(question)
    if by_room is not None:
        return Plan("room_turns", lambda ex, q, t: room_turns.answer(ex, q, by_room, t), prepare=room_turns.prepare,
                    people_from_question=False)
    anchor = length_anchor.asks_length_anchor(question)
    if anchor is not None:
        return Plan("length_anchor", lambda ex, q, t: length_anchor.answer(ex, q, anchor, t),
                    prepare=length_anchor.prepare)
    lengths = turn_lengths.asks_lengths(question)
    if lengths is not None:
        return Plan("turn_lengths", lambda ex, q, t: turn_lengths.answer(ex, q, lengths, question, t),
                    prepare=turn_lengths.prepare)
    stats = turn_stats.asks_stats(question)
    if stats is not None:
        return Plan(f"stats_{stats.kind}", lambda ex, q, t: turn_stats.answer(ex, q, stats, t),
                    prepare=turn_stats.prepare)
    between = turn_gaps.asks_turn_gaps(question)
    if between is not None:
        return Plan(f"turn_gaps_{between.kind}", lambda ex, q, t: turn_gaps.answer(ex, q, between, t),
                    prepare=lambda q: turn_gaps.prepare(q, question), check_question=turn_gaps.check_question(question))
    gap = person_gaps.asks_person_gap(question)
    if gap is not None:
        return Plan("person_gap", lambda ex, q, t: person_gaps.answer(ex, q, gap, t), prepare=person_gaps.prepare)
    ranked_span = talk_span.asks_ranked_span(question)
    if ranked_span is not None and silences.asks_silence(question) is None:  # (not "... the longest quiet stretch?")
        return Plan("ranked_span", lambda ex, q, t: talk_span.answer_ranked_span(ex, q, ranked_span, t),
                    prepare=talk_span.prepare)
    average = turn_average.asks_average(question)
    if average is not None:
        return Plan("turn_average", lambda ex, q, t: turn_average.answer(ex, q, average, t),
                    prepare=turn_average.prepare)
    stays = stays_compared.asks_stays_compared(question)
    if stays is not None:
        return Plan("stays_compared", lambda ex, q, t: stays_compared.answer(ex, stays, t))
    trip = trips.asks_trip(question)
    if trip is not None:
        return Plan("trip", lambda ex, q, t: trips.answer(ex, trip, t), people_from_question=False)
    went = before_move.asks_before_move(question)
    if went is not None:
        return Plan("before_move", before_move.answer, prepare=lambda q: before_move.prepare(went),
                    people_from_question=False)
    robot_at = room_changes.asks_robot_at(question)
    if robot_at is not None:
        return Plan("robot_at", lambda ex, q, t: room_changes.answer_robot_at(ex, *robot_at, t))
    when = robot_when.asks_robot_when(question)
    if when is not None:
        return Plan("robot_when", lambda ex, q, t: robot_when.answer(ex, when, t))
    if room_changes.asks_room_changes(question):
        return Plan("room_changes", lambda ex, q, t: room_changes.answer(ex, q, t))
    ends = room_ends.asks_room_ends(question)
    if ends is not None:
        return Plan("room_ends", lambda ex, q, t: room_ends.answer(ex, q, ends, question, t), prepare=room_ends.prepare)
    start = turn_order.asks_person_start(question)     # ("how long did it take for a third person to speak?")
    if start is not None:
        return Plan(start.kind, lambda ex, q, t: turn_order.answer(ex, q, start, t), prepare=turn_order.prepare,
                    people_from_question=False)
    near = near_moves.asks_near_move(question)
    if near is not None:
        return Plan(f"near_move_{near.kind}", lambda ex, q, t: near_moves.answer(ex, q, near, t),
                    prepare=near_moves.prepare, people_from_question=False)
    moment = anchored.asks_anchored(question)
    if moment is not None:
        return Plan(moment.kind, lambda ex, q, t: anchored.answer(ex, q, moment, question, t), prepare=anchored.prepare,
                    check_question=anchored.check_question(question, moment))
    loud = speech_places.asks_speech_places(question)
    if loud is not None:
        return Plan("speech_places", lambda ex, q, t: speech_places.answer(ex, q, loud, t),
                    prepare=speech_places.prepare)
    if moods.asks_mood(question):
        return Plan("mood", lambda ex, q, t: moods.answer(ex, q, question, t), prepare=moods.prepare)
    senses = seen_heard.asks_seen_heard(question)
    if senses is not None:
        return Plan(f"seen_heard_{senses}", lambda ex, q, t: seen_heard.answer(ex, q, senses, question, t),
                    prepare=seen_heard.prepare)
    silence = silences.asks_silence(question)
    if silence is not None and silence.whole_minute:   # "was there a whole minute without speech?": no moment's hush
        return _silence_plan(silence, question)
    if quiet.asks_hush(question):
        pause = quiet.asks_pause(question)
        return Plan("hush", lambda ex, q, t: quiet.answer_hush(ex, q, t, pause), prepare=quiet.prepare,
                    check_question=quiet.hush_question(question), people_from_question=False)
    hush = quiet.asks_quiet(question)
    if hush is not None:
        return Plan("quiet", lambda ex, q, t: quiet.answer(ex, q, question, t), prepare=quiet.prepare,
                    check_question=quiet.check_question(question, hush))
    if speech_total.asks_speech_total(question):
        return Plan("speech_total", lambda ex, q, t: speech_total.answer(ex, q, t), prepare=speech_total.prepare,
                    people_from_question=False)
    total = talk_total.asks_total(question)
    if total is not None:
        return Plan("talk_total", lambda ex, q, t: talk_total.answer_total(ex, q, total, question, t),
                    prepare=talk_total.prepare, check_question=talk_total.check_question(question, total))
    sentence = sentences.asks_sentences(question)
    if sentence is not None:
        return Plan(sentence.kind, lambda ex, q, t: sentences.answer(ex, q, sentence, question, t),
                    prepare=sentences.prepare, check_question=sentences.check_question(question, sentence))
    if silence is not None:
        return _silence_plan(silence, question)
    minute = window_counts.asks_busiest_minute(question)
    if minute is not None:
        return Plan("minute", lambda ex, q, t: window_counts.answer_minute(ex, q, *minute, t),
                    prepare=lambda q: window_counts.prepare(q, minute[1]), people_from_question=False)
    spans = window_counts.asks_window_counts(question)
    if spans is not None:
        return Plan("window_counts", lambda ex, q, t: window_counts.answer(ex, q, spans, question, t),
                    prepare=lambda q: window_counts.prepare(q, spans.people),
                    check_question=window_counts.check_question(question))
    yet = not_yet.asks_not_yet(question)
    if yet is not None:
        return Plan("not_yet", lambda ex, q, t: not_yet.answer(ex, q, yet, t, not_yet.nth_of(question)),
                    prepare=not_yet.prepare,
                    people_from_question=False)
    new_after = not_yet.asks_first_after(question)
    if new_after is not None:
        return Plan("first_after", lambda ex, q, t: not_yet.answer_first_after(ex, q, *new_after, t),
                    prepare=not_yet.prepare, people_from_question=False)
    gone_there = not_yet.asks_last_in_place(question)
    if gone_there is not None:
        return Plan("last_in_place", lambda ex, q, t: not_yet.answer_first_in_place(ex, q, gone_there, t, last=True),
                    prepare=not_yet.prepare_place, people_from_question=False)
    new_there = not_yet.asks_first_in_place(question)
    if new_there is not None:
        return Plan("first_in_place", lambda ex, q, t: not_yet.answer_first_in_place(ex, q, new_there, t,
                                                                                     not_yet.nth_of(question)),
                    prepare=not_yet.prepare_place, people_from_question=False)
    compared = places_compared.asks_places_compared(question)
    if compared is not None:
        return Plan("places_compared", lambda ex, q, t: places_compared.answer(ex, q, compared, question, t),
                    prepare=places_compared.prepare)
    together = added_counts.asks_places_together(question)
    if together is not None:
        return Plan("places_together", lambda ex, q, t: added_counts.answer_places(ex, q, together, question, t),
                    prepare=lambda q: added_counts.prepare(q, together.people))
    than_two = added_counts.asks_than_two(question)
    if than_two is not None:
        return Plan("than_two", lambda ex, q, t: added_counts.answer_than_two(ex, q, than_two, t),
                    prepare=added_counts.prepare)
    listed = listed_people.asks_listed(question)
    if listed is not None:
        return Plan(f"listed_{listed.kind}", lambda ex, q, t: listed_people.answer(ex, q, listed, t),
                    prepare=listed_people.prepare)
    rel = choice.relation_choice(question)
    if rel is not None:
        return Plan(rel, lambda ex, q, t: choice.answer_relation(ex, q, rel, question, t))
    most = choice.count_choice(question)
    if most is not None:
        return Plan(f"counts_{most}", lambda ex, q, t: choice.answer_counts(ex, q, most, question, t))
    which = choice.order_choice(question)
    if which is not None:
        return Plan(f"order_{which}", lambda ex, q, t: choice.answer(ex, q, which, question, t))
    either = first_or_last.asks_first_or_last(question)
    if either is not None:
        return Plan("first_or_last", lambda ex, q, t: first_or_last.answer(ex, q, either, t),
                    prepare=first_or_last.prepare)
    seq = turn_sequence.asks_sequence(question)
    if seq is not None:
        return Plan(seq, lambda ex, q, t: turn_sequence.answer(ex, q, seq, question, t), prepare=turn_sequence.prepare)
    roles = role_match.asks_roles(question)
    if roles is not None:
        return Plan("roles", lambda ex, q, t: role_match.answer(ex, q, roles, t), prepare=role_match.prepare)
    person_role = role_match.asks_person_role(question)
    if person_role is not None:
        return Plan("person_role", lambda ex, q, t: role_match.answer_person_role(ex, q, person_role, t),
                    prepare=role_match.prepare)
    role_figure = role_match.asks_role_figure(question)
    if role_figure is not None:
        return Plan("role_figure", lambda ex, q, t: role_match.answer_figure(ex, q, role_figure, t),
                    prepare=role_match.prepare)
    every = everyone.asks_everyone(question)
    if every is not None:
        return Plan("everyone", lambda ex, q, t: everyone.answer(ex, q, every, t), prepare=everyone.prepare)
    others = others_than.asks_others_than(question)
    if others is not None:
        return Plan(f"others_{others.kind}", lambda ex, q, t: others_than.answer(ex, q, others, t),
                    prepare=others_than.prepare)
    if said_about.asks_same_words(question):
        return Plan("same_words", lambda ex, q, t: said_about.answer_same_words(ex, q, question, t),
                    prepare=said_about.prepare)
    about = said_about.asks_about(question)
    if about is not None:
        return Plan("about", lambda ex, q, t: said_about.answer(ex, q, about, question, t), prepare=said_about.prepare)
    counts = place_counts.asks_place_counts(question)
    if counts is not None:
        return Plan("place_counts", lambda ex, q, t: place_counts.answer(ex, q, counts, question, t),
                    prepare=lambda q: place_counts.prepare(q, counts.people, question))
    both = both_conditions.asks_both(question)
    if both is not None:
        return Plan("both", lambda ex, q, t: both_conditions.answer(ex, q, both, question, t),
                    prepare=both_conditions.prepare)
    ask = rooms.asks_rooms(question)
    if ask is not None:
        return Plan(f"rooms_{ask.kind}", lambda ex, q, t: rooms.answer(ex, q, ask, question, t),
                    prepare=rooms.prepare)
    if talk_span.asks_span(question):
        return Plan("span", lambda ex, q, t: talk_span.answer(ex, q, t, question), prepare=talk_span.prepare)
    to_end = turn_to_end.asks_to_end(question)
    if to_end is not None:
        return Plan("to_end", lambda ex, q, t: turn_to_end.answer(ex, q, to_end, t), prepare=turn_to_end.prepare,
                    people_from_question=True)
    turns = turn_order.asks_turns(question)
    if turns is not None:
        return Plan(turns.kind, lambda ex, q, t: turn_order.answer(ex, q, turns, t), prepare=turn_order.prepare,
                    people_from_question=any(turns.people))     # (two people's turns: read from the question)
    return None


def _silence_plan(silence: silences.SilenceAsk, question: str) -> Plan:
    return Plan("silence", lambda ex, q, t: silences.answer(ex, q, silence, question, t), prepare=silences.prepare,
                check_question=silences.check_question(question, silence), people_from_question=False)
