"""Sets m-n of ``wording_probe.py``: two more wordings of each of its 51 kinds (sets A-N's), written by a helper
agent that saw only one example question per kind (what the kind means), no code and no earlier set, committed before
their first run (held out on fresh seeds 571-572, stop 56). ``wording_probe`` appends them to its tables."""

from __future__ import annotations

BLIND_SETS = "mn"
BLIND_WORDINGS: dict[str, tuple[str, str]] = {
    "first_after_t": (
        "Who was the first person I heard talking after {t}?",
        "Once {t} had passed, who was the first one to say something?",
    ),
    "count_after_t": (
        "After {t}, how many times did somebody say something?",
        "How many times was anyone heard talking after {t}?",
    ),
    "people_after_t": (
        "After {t}, how many distinct people did I hear talking?",
        "Tell me, how many different speakers were there after {t}?",
    ),
    "last_before_t": (
        "Who was the last person to speak before {t}?",
        "I'm trying to remember: who was the final one to say something before {t}?",
    ),
    "right_after_last": (
        "The last time {p} spoke, who talked immediately afterwards?",
        "Once {p} had spoken for the final time, who was the very next person to speak?",
    ),
    "right_before_last": (
        "Right before {p} spoke for the last time, who spoke?",
        "Do you know who talked just before the final time {p} said something?",
    ),
    "where_first_heard": (
        "When {p} spoke for the first time, what room was I in?",
        "Do you know which room I was in when I heard {p} for the first time?",
    ),
    "count_before_other": (
        "How many times had {p1} spoken before {p2} said anything for the first time?",
        "By the time {p2} first spoke, how many times had {p1} already talked?",
    ),
    "spoke_after_others_last": (
        "After {p2} spoke for the final time, did {p1} say anything?",
        "Once {p2} had spoken for the last time, was {p1} heard again?",
    ),
    "first_in_place": (
        "Who was the first person to speak in the {pl}?",
        "Do you know who said something first in the {pl}?",
    ),
    "last_in_place": (
        "In the {pl}, who was the final person to speak?",
        "Who was the last one I heard talking in the {pl}?",
    ),
    "first_thing_said": (
        "What's the first thing I ever heard anyone say?",
        "Do you remember the very first words someone said?",
    ),
    "last_thing_said": (
        "What was the final thing anyone said?",
        "Tell me, what was the last thing I heard anyone say?",
    ),
    "who_exactly_k": ("Who spoke exactly {k} times?", "Tell me who I heard say something exactly {k} times?"),
    "unknown_right_after": (
        "Right after the person who said '{s}' spoke, who spoke next?",
        "Who was the next one to talk immediately after the person who said '{s}'?",
    ),
    "unknown_where": (
        "When the person who said '{s}' spoke, which room was I in?",
        "Where was I when the person who said '{s}' was talking?",
    ),
    "people_before_other": (
        "Before {p} spoke for the first time, how many distinct people had already spoken?",
        "How many different people did I hear before {p} first said anything?",
    ),
    "most_after_t": ("Who talked the most after {t}?", "Once it was past {t}, which person spoke the most?"),
    "count_person_before_t": (
        "By {t}, how many times had {p} spoken?",
        "Up to {t}, how many times had {p} said something?",
    ),
    "places_person_spoke": (
        "How many different rooms did {p} speak in?",
        "In how many distinct places did I hear {p} talk?",
    ),
    "spoke_before_t": ("Did {p} say anything before {t}?", "Was {p} heard speaking at all prior to {t}?"),
    "where_last_speaker": (
        "When the last person spoke, where was I?",
        "Where was I when I heard the very last person speak?",
    ),
    "count_place_before_t": (
        "Before {t}, how many times did someone speak in the {pl}?",
        "How many times was anyone heard talking in the {pl} prior to {t}?",
    ),
    "more_after_t": (
        "Who spoke more times after {t}: {p1} or {p2}?",
        "Comparing {p1} and {p2}, which one spoke more times after {t}?",
    ),
    "where_last_heard": (
        "Which room was I in the last time {p} spoke?",
        "When {p} spoke for the final time, where was I?",
    ),
    "who_between": ("Who was speaking in between {p1} and {p2}?", "Do you know who spoke between {p1} and {p2}?"),
    "count_between": (
        "Between {p1} and {p2}, how many times did anyone speak?",
        "How many times was someone heard talking between {p1} and {p2}?",
    ),
    "what_first_after_t": (
        "After {t}, what was the first thing anyone said?",
        "What were the first words I heard after {t}?",
    ),
    "what_last_before_t": (
        "What was the last thing someone said before {t}?",
        "Before {t}, what were the final words I heard?",
    ),
    "what_after_last": (
        "After {p} spoke for the last time, what was said immediately afterwards?",
        "What did someone say right after the final time {p} spoke?",
    ),
    "place_most_turns": ("Which room did people talk the most in?", "Tell me, which room had the most talking?"),
    "people_place_after_t": (
        "After {t}, how many distinct people spoke in the {pl}?",
        "How many different people did I hear talking in the {pl} after {t}?",
    ),
    "who_first_after_other": (
        "After {p} spoke for the first time, who spoke first?",
        "Once {p} had spoken for the first time, who was the first one to speak after that?",
    ),
    "second_in_place": (
        "In the {pl}, who was the second one to speak?",
        "Do you know who the second person to talk in the {pl} was?",
    ),
    "what_first_in_place": (
        "In the {pl}, what was the first thing anyone said?",
        "What were the first words I heard in the {pl}?",
    ),
    "people_between": (
        "Between {p1} and {p2}, how many distinct people spoke?",
        "How many different people did I hear talking between {p1} and {p2}?",
    ),
    "when_first_in_place": (
        "At what time did someone first speak in the {pl}?",
        "When was the first time I heard anyone talking in the {pl}?",
    ),
    "place_least_turns": ("Which room had the least talking?", "Where did I hear people speak the least?"),
    "people_place_before_t": (
        "Before {t}, how many distinct people had spoken in the {pl}?",
        "How many different people had I heard talking in the {pl} prior to {t}?",
    ),
    "second_after_t": (
        "After {t}, who was the second person to speak?",
        "Do you know who the second person to talk after {t} was?",
    ),
    "count_after_others_last": (
        "After {p2} spoke for the final time, how many times did {p1} speak?",
        "Once {p2} had spoken for the last time, how many times did {p1} talk after that?",
    ),
    "never_in_place": (
        "Of everyone I heard, who never said anything in the {pl}?",
        "Which of the speakers I heard never talked in the {pl}?",
    ),
    "when_person_first_in_place": (
        "In the {pl}, when did {p} speak for the first time?",
        "At what time did I first hear {p} talking in the {pl}?",
    ),
    "last_in_place_before_t": (
        "Before {t}, who was the last person to speak in the {pl}?",
        "In the {pl}, who spoke last prior to {t}?",
    ),
    "both_places": (
        "Which person spoke in the {pl1} and also in the {pl2}?",
        "Who did I hear talking in both the {pl1} and the {pl2}?",
    ),
    "person_place_after_t": (
        "After {t}, did {p} say anything in the {pl}?",
        "Was {p} heard speaking in the {pl} after {t}?",
    ),
    "most_in_place_before_t": (
        "Before {t}, who spoke the most in the {pl}?",
        "In the {pl}, who talked the most prior to {t}?",
    ),
    "when_last_in_place": (
        "When was the last time someone spoke in the {pl}?",
        "At what time did I last hear anybody talking in the {pl}?",
    ),
    "where_nth_turn": (
        "When {p} spoke for the {nth} time, where was I?",
        "Which room was I in the {nth} time I heard {p} speak?",
    ),
    "when_nth_turn": (
        "At what time did {p} speak for the {nth} time?",
        "When was the {nth} time that {p} said something?",
    ),
    "count_people_more_than_k": (
        "How many people talked more than {k}?",
        "How many different people did I hear speak more than {k}?",
    ),
}
