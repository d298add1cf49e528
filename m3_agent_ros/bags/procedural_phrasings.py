"""Phrasings (templates) of every procedural question kind (:mod:`.procedural_questions`).

Fields: {p} {p1} {p2} a person ("the person who said '...'"), {place}, {a} {b} {t} clock times (m:ss), {k} a
number of times ("once", "twice", "3 times"), {n} an ordinal, {s} a sentence, {name} a first name, {role} /
{role_base} what identifies a person ("spoke first" / "speak first"). Phrasings 0-1 are the tune split's,
2 and up the report split's; every kind has at least four.
"""

PHRASINGS: dict[str, tuple[str, ...]] = {
    "count_people_total": (
        "How many different people did I see in total?", "How many different people did I meet?",
        "How many distinct people were there altogether?", "In total, how many different people have I seen?"),
    "count_people_window": (
        "How many different people spoke between {a} and {b}?", "Between {a} and {b}, how many different people "
        "spoke?", "How many distinct people did I hear talking from {a} to {b}?",
        "From {a} until {b}, how many different people said something?"),
    "count_people_place": (
        "How many different people spoke in the {place}?", "How many different people did I hear in the {place}?",
        "In the {place}, how many distinct people talked?",
        "How many different people said something while I was in the {place}?"),
    "count_people_exactly_k": (
        "How many people spoke exactly {k}?", "How many different people did I hear speak exactly {k}?",
        "How many of the people I met spoke exactly {k}?", "Of the people who spoke, how many spoke exactly {k}?"),
    "count_silent_people": (
        "How many people did I see who never spoke?", "How many of the people I saw never said anything?",
        "How many people appeared but stayed silent the whole time?",
        "How many people did I see that I never heard speak?"),
    "count_places": (
        "How many different places was I in?", "In how many different places have I been?",
        "How many distinct places did I visit?", "How many different rooms or places was I in altogether?"),
    "count_turns_person": (
        "How many times did {p} speak?", "How often did {p} speak?", "How many times did I hear {p} talk?",
        "How many separate times did {p} say something?"),
    "count_turns_place": (
        "How many times did someone speak while I was in the {place}?", "How many times did anyone talk in the "
        "{place}?", "In the {place}, how many times did somebody speak?",
        "How often did someone say something while I was in the {place}?"),
    "count_turns_window": (
        "How many times did someone speak between {a} and {b}?", "Between {a} and {b}, how many times did anyone "
        "talk?", "How often did somebody speak from {a} to {b}?",
        "How many times did I hear someone speak from {a} until {b}?"),
    "count_turns_person_place": (
        "How many times did {p} speak in the {place}?", "In the {place}, how many times did {p} speak?",
        "How often did I hear {p} while I was in the {place}?",
        "How many times did {p} say something while I was in the {place}?"),
    "said_exists_yes": (
        "Did anyone say '{s}'?", "Did someone say '{s}'?", "Did I hear anybody say '{s}'?",
        "Was '{s}' said by anyone?"),
    "said_exists_no": (
        "Did anyone say '{s}'?", "Did someone say '{s}'?", "Did I hear anybody say '{s}'?",
        "Was '{s}' said by anyone?"),
    "more_than_k": (
        "Did {p} speak more than {k}?", "Did {p} talk more than {k}?", "Is it true that {p} spoke more than {k}?",
        "Did I hear {p} more than {k}?"),
    "spoke_in_place": (
        "Did {p} speak in the {place}?", "Did I hear {p} in the {place}?",
        "Was {p} talking while I was in the {place}?", "Did {p} say anything while I was in the {place}?"),
    "same_person": (
        "Is {p} the same person who {role}?", "Was the person who {role} the same one as {p}?",
        "Did {p} also {role_base}?", "Are {p} and the person who {role} the same person?"),
    "spoke_before": (
        "Did {p1} speak for the first time before {p2} did?", "Did I first hear {p1} before I first heard {p2}?",
        "Was {p1} heard for the first time earlier than {p2}?", "Did {p1} start speaking earlier than {p2}?"),
    "first_speaker": (
        "Who spoke first?", "Who was the first person to speak?", "Who did I hear speak first?",
        "Who was the first one to say something?"),
    "last_speaker": (
        "Who spoke last?", "Who was the last person to speak?", "Who did I hear speak last?",
        "Who was the last one to say something?"),
    "nth_speaker": (
        "Who was the {n} person to speak?", "Who was the {n} different person I heard speak?",
        "Counting each person once, who was the {n} to speak?", "Counting each person once, who spoke {n}?"),
    "right_before": (
        "Who spoke right before {p} spoke for the first time?", "Who was speaking just before {p} first spoke?",
        "Right before I first heard {p}, who spoke?",
        "Who was the last person to speak before {p} spoke for the first time?"),
    "right_after": (
        "Who spoke right after {p} spoke for the first time?", "Who was speaking just after {p} first spoke?",
        "Right after I first heard {p}, who spoke?",
        "Who was the next person to speak after {p} spoke for the first time?"),
    "only_once": (
        "Who spoke only once?", "Which person did I hear just one time?", "Who said something exactly once?",
        "Who talked only one time?"),
    "most_talkative": (
        "Who spoke the most?", "Who talked the most often?", "Which person did I hear speaking most often?",
        "Who spoke more times than anyone else?"),
    "least_talkative": (
        "Of the people who spoke, who spoke the least?", "Among the people I heard, who talked the fewest times?",
        "Which of the speakers did I hear least often?", "Who spoke the fewest times, among those who spoke at all?"),
    "most_in_place": (
        "Who spoke the most in the {place}?", "In the {place}, who talked the most often?",
        "Who did I hear most often while I was in the {place}?", "Which person spoke most times in the {place}?"),
    "speaker_at_time": (
        "Who was speaking at {t}?", "Who was talking at {t}?", "At {t}, who was speaking?",
        "Whose voice did I hear at {t}?"),
    "spoke_more_of_two": (
        "Who spoke more often, {p1} or {p2}?", "Who talked more times: {p1} or {p2}?",
        "Which of the two did I hear more often, {p1} or {p2}?", "Between {p1} and {p2}, who spoke more?"),
    "what_nth": (
        "What did the {n} person to speak say?", "What did the {n} different person I heard say?",
        "What was said by the {n} person who spoke?", "Counting each person once, what did the {n} one to speak "
        "say?"),
    "what_right_before": (
        "What was said right before {p} first spoke?", "What did the person who spoke just before {p} first spoke "
        "say?", "Right before I first heard {p}, what was said?",
        "What were the words spoken just before {p} spoke for the first time?"),
    "what_at_time": (
        "What was said at {t}?", "What did I hear someone say at {t}?", "At {t}, what was being said?",
        "What words were spoken at {t}?"),
    "when_first_spoke": (
        "When did {p} first speak?", "At what time did I first hear {p}?", "When did {p} speak for the first time?",
        "At what time did {p} first say something?"),
    "when_last_spoke": (
        "When did {p} last speak?", "At what time did I last hear {p}?", "When did {p} speak for the last time?",
        "At what time did {p} last say something?"),
    "where_spoke": (
        "Where was I when {p} spoke?", "In which place did I hear {p}?", "Where did {p} speak?",
        "Where was I when I heard {p} talking?"),
    "where_first_saw": (
        "Where did I first see {p}?", "Where was I when I first saw {p}?", "In which place did I first meet {p}?",
        "Where did I meet {p} for the first time?"),
    "where_last_saw": (
        "Where did I last see {p}?", "Where was I when I last saw {p}?", "In which place did I see {p} last?",
        "Where did I see {p} for the last time?"),
    "place_at_time": (
        "Where was I at {t}?", "At {t}, where was I?", "Which place was I in at {t}?", "In which room was I at {t}?"),
    "first_place": (
        "Where was I at the beginning?", "Which place was I in first?", "Where did I start out?",
        "What was the first place I was in?"),
    "last_place": (
        "Where was I at the end?", "Which place was I in last?", "Where did I end up?",
        "What was the last place I was in?"),
    "unknown_quote_count": (
        "How many times did the person who said '{s}' speak?", "How often did the person who said '{s}' speak?",
        "How many times did I hear the person who said '{s}'?", "When did the person who said '{s}' first speak?"),
    "unknown_place": (
        "Who did I see in the {place}?", "Who spoke in the {place}?", "What did people say in the {place}?",
        "How many people did I meet in the {place}?"),
    "unknown_name": (
        "What did {name} say?", "When did {name} first speak?", "Where did I meet {name}?",
        "How many times did {name} speak?"),
    "future_time": (
        "Where was I at {t}?", "Who was speaking at {t}?", "What was said at {t}?", "Who did I see at {t}?"),
}
