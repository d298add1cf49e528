"""Questions about a procedural scene (:mod:`.procedural`), every reference answer computed from its events.

Each kind has at least four phrasings (templates). All questions are asked at the end of the scene + 2 s. People
are named by what they said ("the person who said 'bin blue at f two now'"); references are in the formats the
strict judge reads: a bare count, "Yes..."/"No...", a person, a sentence, "in the <place>", "mm:ss", or an
abstention for what memory cannot know. A kind is skipped in a scene when its answer would be ambiguous or
degenerate (ties, time edges near speech, a place nobody spoke in). The splits are fixed here, before any tuning:
tune = TUNE_SEEDS x phrasings 0-1, report = REPORT_SEEDS x phrasings 2+. The first report split (seeds 200-207) was
looked at while tuning on 2026-11-26 (its misses guided fixes), so it became ``seen`` (kept to watch for regressions)
and the report split moved to seeds nobody had run.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from .procedural import PLACE_POOL, SceneDef
from .procedural_phrasings import PHRASINGS
from .questions import Question

TUNE_SEEDS = range(100, 104)
REPORT_SEEDS = range(400, 408)        # fresh since 2026-11-26 (never run before they became the report split)
SEEN_SEEDS = range(200, 208)          # the first report split: looked at while tuning, no longer a report
FRESH_SEEDS = range(500, 1000)        # one-off checks after a report changed: each seed run once, then retired
TUNE_PHRASINGS = range(0, 2)          # phrasings 2 and up are the report split's
CLIP_S = 30.0                         # the memorization clip length (ClipAssembler / the node's clip_seconds)
ASK_AFTER_S = 1.0                     # questions come this long after the end of the last clip
WINDOW_SPEECH_MARGIN_S = 1.5          # a window edge is at least this far from any audible speech
WINDOW_EDGE_MARGIN_S = 0.3            # ... and inside a pause, this far from the clips around it
AT_TURN_MARGIN_S = 0.8                # "who was speaking at t": t this far inside the turn (and inside its speech)
AT_PLACE_MARGIN_S = 2.0               # "where was I at t": t this far from any drive
ORDINALS = ("first", "second", "third", "fourth", "fifth")
NAMES = ("Anna", "Ben", "Carlos", "Dana", "Emma", "Felix", "Grace", "Hugo", "Iris", "Jonas", "Lena", "Omar")
GRAMMAR = (("bin", "lay", "place", "set"), ("blue", "green", "red", "white"), ("at", "by", "in", "with"),
           tuple("abcdefghijklmnopqrstuvxyz"),
           ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
           ("again", "now", "please", "soon"))
NOT_SAID = "I don't remember anyone saying that"


@dataclass
class SceneQuestion:
    id: str
    kind: str
    phrasing: int
    question: str
    answer: str                 # the reference
    answerable: bool
    at: float                   # scene seconds at which it is asked
    params: dict = field(default_factory=dict)   # what the question is about (letters, places, seconds)


def clock(t: float) -> str:
    """Question time "m:ss"."""
    return f"{int(t) // 60}:{int(t) % 60:02d}"


def mmss(t: float) -> str:
    """Reference time "mm:ss" (whole seconds, rounded down)."""
    return f"{int(t) // 60:02d}:{int(t) % 60:02d}"


def times(k: int) -> str:
    return {1: "once", 2: "twice"}.get(k, f"{k} times")


class Facts:
    """What the scene's events say, for the question makers."""

    def __init__(self, scene: SceneDef) -> None:
        self.scene = scene
        self.events = sorted(scene.events, key=lambda e: e.start)
        self.turns = [e for e in self.events if e.kind == "voice"]
        self.count = Counter(e.person for e in self.turns)
        self.speakers = list(dict.fromkeys(e.person for e in self.turns))         # by first turn
        self.seen = list(dict.fromkeys(e.person for e in self.events))
        self.silent = [p for p in self.seen if p not in self.count]
        self.spoken_places = list(dict.fromkeys(e.place for e in self.turns))
        self.visited = list(dict.fromkeys(p for _, p in scene.path))

    def who(self, p: str) -> str:
        return f"the person who said '{self.scene.sentences[p]}'"

    def first(self, p: str, voice: bool = True) -> int:
        return next(i for i, e in enumerate(self.events) if e.person == p and (e.kind == "voice" or not voice))

    def window_edges(self) -> list[int]:
        gaps = [(s.start, s.start + s.seconds) for s in self.scene.segments if s.kind == "gap"]
        speech = [x for e in self.turns for x in (e.speech or (e.start, e.end))]
        return [t for t in range(1, int(self.scene.duration))
                if any(a + WINDOW_EDGE_MARGIN_S <= t <= b - WINDOW_EDGE_MARGIN_S for a, b in gaps)
                and all(abs(t - x) >= WINDOW_SPEECH_MARGIN_S for x in speech)]

    def windows(self, ok: Callable[[list], bool]) -> list[tuple[int, int]]:
        edges = self.window_edges()
        return [(a, b) for a in edges for b in edges if 8 <= b - a <= 35
                and ok([e for e in self.turns if a <= e.start and e.end <= b])]

    def times_in_turns(self) -> list[tuple[int, str]]:
        out = []
        for e in self.turns:
            lo = max(e.start + AT_TURN_MARGIN_S, (e.speech or (e.start, e.end))[0] + 0.2)
            hi = min(e.end - AT_TURN_MARGIN_S, (e.speech or (e.start, e.end))[1] - 0.2)
            out += [(t, e.person) for t in range(int(lo), int(hi) + 1) if lo <= t <= hi]
        return out

    def in_place(self, place: str, person: str | None = None) -> list:
        return [e for e in self.turns if e.place == place and person in (None, e.person)]

    def unique(self, counts: Counter, most: bool) -> str | None:
        """The one person with the most (fewest) turns, None on a tie."""
        best = (max if most else min)(counts.values())
        top = [p for p, c in counts.items() if c == best]
        return top[0] if len(top) == 1 else None

    def fake_sentence(self, r: random.Random) -> str:
        """A GRID-grammar sentence nobody in the scene said, at least 3 words away from every clip's sentence."""
        said = [s.split() for s in self.scene.sentences.values()]
        pool = list(self.scene.other_sentences) if r.random() < 0.5 else []
        while True:
            words = (pool.pop(r.randrange(len(pool))) if pool else " ".join(r.choice(g) for g in GRAMMAR)).split()
            if all(sum(a != b for a, b in zip(words, s, strict=False)) >= 3 for s in said):
                return " ".join(words)


Made = tuple[str, dict] | None
Maker = Callable[[Facts, random.Random, bool], Made]


def _pick(r: random.Random, xs: list):
    return r.choice(xs) if xs else None


def _count_window(f: Facts, r: random.Random, people: bool) -> Made:
    def size(turns: list) -> int:
        return len({e.person for e in turns}) if people else len(turns)

    w = _pick(r, f.windows(lambda ts: size(ts) >= (1 if people else 2)))
    if w is None:
        return None
    return str(size([e for e in f.turns if w[0] <= e.start and e.end <= w[1]])), {"a": w[0], "b": w[1]}


def _place_q(f: Facts, r: random.Random, people: bool) -> Made:
    place = r.choice(f.spoken_places)
    turns = f.in_place(place)
    return str(len({e.person for e in turns}) if people else len(turns)), {"place": place}


def _exactly_k(f: Facts, r: random.Random, yes: bool) -> Made:
    k = r.choice(sorted(set(f.count.values())))
    return str(sum(c == k for c in f.count.values())), {"k": k}


def _person_place(f: Facts, r: random.Random, yes: bool) -> Made:
    p, place = r.choice(sorted({(e.person, e.place) for e in f.turns}))
    return str(len(f.in_place(place, p))), {"p": p, "place": place}


def _more_than_k(f: Facts, r: random.Random, yes: bool) -> Made:
    p = r.choice(f.speakers)
    n = f.count[p]
    yes = yes and n >= 2
    k = r.randint(max(1, n - 2), n - 1) if yes else r.randint(n, n + 1)
    return f"{'Yes' if yes else 'No'}, {times(n)}", {"p": p, "k": k}


def _spoke_in_place(f: Facts, r: random.Random, yes: bool) -> Made:
    p = r.choice(f.speakers)
    there = sorted({e.place for e in f.turns if e.person == p})
    not_there = [x for x in f.visited if x not in there]
    yes = yes or not not_there
    return ("Yes" if yes else "No"), {"p": p, "place": r.choice(there if yes else not_there)}


ROLES = {"first": ("spoke first", "speak first"), "last": ("spoke last", "speak last"),
         "most": ("spoke the most", "speak the most")}


def role_person(f: Facts, role: str) -> str | None:
    return {"first": f.speakers[0], "last": f.turns[-1].person, "most": f.unique(f.count, True)}[role]


def _same_person(f: Facts, r: random.Random, yes: bool) -> Made:
    role = r.choice([x for x in ROLES if role_person(f, x)])
    q = role_person(f, role)
    p = q if yes else r.choice([x for x in f.speakers if x != q])
    return ("Yes, the same person" if p == q else "No, they are different people"), {"p": p, "role": role}


def _spoke_before(f: Facts, r: random.Random, yes: bool) -> Made:
    a, b = sorted(r.sample(f.speakers, 2), key=f.first)
    p1, p2 = (a, b) if yes else (b, a)
    return ("Yes" if yes else "No"), {"p1": p1, "p2": p2}


def _neighbour(f: Facts, p: str, step: int) -> str | None:
    """The speaker right before (step -1) / after (+1) p's first turn, when that is another person's turn."""
    i = f.first(p) + step
    if not 0 <= i < len(f.events) or f.events[i].kind != "voice" or f.events[i].person == p:
        return None
    return f.events[i].person


def _around(f: Facts, r: random.Random, step: int, said: bool) -> Made:
    ps = [p for p in f.speakers if _neighbour(f, p, step)]
    if not ps:
        return None
    p = r.choice(ps)
    q = _neighbour(f, p, step)
    assert q is not None
    return (f.scene.sentences[q] if said else f.who(q)), {"p": p}


def _unique(f: Facts, counts: Counter, most: bool, params: dict) -> Made:
    p = f.unique(counts, most) if counts else None
    return (f.who(p), params) if p else None


def _only_once(f: Facts, r: random.Random, yes: bool) -> Made:
    once = [p for p, c in f.count.items() if c == 1]
    return (f.who(once[0]), {}) if len(once) == 1 else None


def _most_in_place(f: Facts, r: random.Random, yes: bool) -> Made:
    ok = [x for x in f.spoken_places if len({e.person for e in f.in_place(x)}) >= 2
          and f.unique(Counter(e.person for e in f.in_place(x)), True)]
    if not ok:
        return None
    place = r.choice(ok)
    return _unique(f, Counter(e.person for e in f.in_place(place)), True, {"place": place})


def _at_time(f: Facts, r: random.Random, said: bool) -> Made:
    t, p = r.choice(f.times_in_turns())
    return (f.scene.sentences[p] if said else f.who(p)), {"t": t}


def _more_of_two(f: Facts, r: random.Random, yes: bool) -> Made:
    pairs = [(a, b) for a in f.speakers for b in f.speakers if a != b and f.count[a] != f.count[b]]
    if not pairs:
        return None
    a, b = r.choice(pairs)
    return f.who(a if f.count[a] > f.count[b] else b), {"p1": a, "p2": b}


def _when(f: Facts, r: random.Random, last: bool) -> Made:
    ps = [p for p in f.speakers if f.count[p] >= 2] if last else f.speakers
    if not ps:
        return None
    p = r.choice(ps)
    mine = [e for e in f.turns if e.person == p]
    return mmss((mine[-1] if last else mine[0]).start), {"p": p}


def _where_spoke(f: Facts, r: random.Random, yes: bool) -> Made:
    ps = [p for p in f.speakers if len({e.place for e in f.turns if e.person == p}) == 1]
    if not ps:
        return None
    p = r.choice(ps)
    return f"in the {next(e.place for e in f.turns if e.person == p)}", {"p": p}


def _where_saw(f: Facts, r: random.Random, last: bool) -> Made:
    p = r.choice(f.speakers)
    mine = [e for e in f.events if e.person == p]
    return f"in the {(mine[-1] if last else mine[0]).place}", {"p": p}


def _place_at_time(f: Facts, r: random.Random, yes: bool) -> Made:
    ts = [t for a, b, _ in f.scene.stays() for t in range(int(a + AT_PLACE_MARGIN_S) + 1, int(b - AT_PLACE_MARGIN_S))]
    t = r.choice(ts)
    return f"in the {f.scene.place_at(t)}", {"t": t}


def _unknown_place(f: Facts, r: random.Random, yes: bool) -> Made:
    place = r.choice([x for x in PLACE_POOL if x not in f.visited])
    return f"I don't know: I was never in the {place}", {"place": place}


def _future(f: Facts, r: random.Random, yes: bool) -> Made:
    t = int(f.scene.duration) + r.randint(40, 180)
    return "I don't know: that is after the last thing I remember", {"t": t}


# kind: (answerable, maker); the phrasings are in procedural_phrasings.PHRASINGS.
KINDS: dict[str, tuple[bool, Maker]] = {
    "count_people_total": (True, lambda f, r, y: (str(len(f.seen)), {})),
    "count_people_window": (True, lambda f, r, y: _count_window(f, r, True)),
    "count_people_place": (True, lambda f, r, y: _place_q(f, r, True)),
    "count_people_exactly_k": (True, _exactly_k),
    "count_silent_people": (True, lambda f, r, y: (str(len(f.silent)), {})),
    "count_places": (True, lambda f, r, y: (str(len(f.visited)), {})),
    "count_turns_person": (True, lambda f, r, y: (str(f.count[(p := r.choice(f.speakers))]), {"p": p})),
    "count_turns_place": (True, lambda f, r, y: _place_q(f, r, False)),
    "count_turns_window": (True, lambda f, r, y: _count_window(f, r, False)),
    "count_turns_person_place": (True, _person_place),
    "said_exists_yes": (True, lambda f, r, y: ("Yes", {"s": f.scene.sentences[r.choice(f.speakers)]})),
    "said_exists_no": (True, lambda f, r, y: ("No, nobody said that", {"s": f.fake_sentence(r)})),
    "more_than_k": (True, _more_than_k),
    "spoke_in_place": (True, _spoke_in_place),
    "same_person": (True, _same_person),
    "spoke_before": (True, _spoke_before),
    "first_speaker": (True, lambda f, r, y: (f.who(f.speakers[0]), {})),
    "last_speaker": (True, lambda f, r, y: (f.who(f.turns[-1].person), {})),
    "nth_speaker": (True, lambda f, r, y: (f.who(f.speakers[(n := r.randint(2, len(f.speakers))) - 1]), {"n": n})),
    "right_before": (True, lambda f, r, y: _around(f, r, -1, False)),
    "right_after": (True, lambda f, r, y: _around(f, r, 1, False)),
    "only_once": (True, _only_once),
    "most_talkative": (True, lambda f, r, y: _unique(f, f.count, True, {})),
    "least_talkative": (True, lambda f, r, y: _unique(f, f.count, False, {})),
    "most_in_place": (True, _most_in_place),
    "speaker_at_time": (True, lambda f, r, y: _at_time(f, r, False)),
    "spoke_more_of_two": (True, _more_of_two),
    "what_nth": (True, lambda f, r, y: (f.scene.sentences[f.speakers[(n := r.randint(1, len(f.speakers))) - 1]],
                                        {"n": n})),
    "what_right_before": (True, lambda f, r, y: _around(f, r, -1, True)),
    "what_at_time": (True, lambda f, r, y: _at_time(f, r, True)),
    "when_first_spoke": (True, lambda f, r, y: _when(f, r, False)),
    "when_last_spoke": (True, lambda f, r, y: _when(f, r, True)),
    "where_spoke": (True, _where_spoke),
    "where_first_saw": (True, lambda f, r, y: _where_saw(f, r, False)),
    "where_last_saw": (True, lambda f, r, y: _where_saw(f, r, True)),
    "place_at_time": (True, _place_at_time),
    "first_place": (True, lambda f, r, y: (f"in the {f.scene.path[0][1]}", {})),
    "last_place": (True, lambda f, r, y: (f"in the {f.scene.path[-1][1]}", {})),
    "unknown_quote_count": (False, lambda f, r, y: (NOT_SAID, {"s": f.fake_sentence(r)})),
    "unknown_place": (False, _unknown_place),
    "unknown_name": (False, lambda f, r, y: ("I don't know: nobody told me anyone's name", {"name": r.choice(NAMES)})),
    "future_time": (False, _future),
}


def _fields(f: Facts, params: dict) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in params.items():
        if k in ("p", "p1", "p2"):
            out[k] = f.who(v)
        elif k in ("a", "b", "t"):
            out[k] = clock(v)
        elif k == "k":
            out[k] = times(v)
        elif k == "n":
            out[k] = ORDINALS[v - 1]
        elif k == "role":
            out["role"], out["role_base"] = ROLES[v]
        else:
            out[k] = str(v)
    return out


def scene_questions(scene: SceneDef, kinds: list[str] | None = None) -> list[SceneQuestion]:
    """Every kind x phrasing that is well defined in this scene (each with its own draw of what it asks about)."""
    f = Facts(scene)
    # the last clip ends on the clip grid (a clip's end time is its slot's end, not the stream's), and only
    # committed clips are visible at the question time: ask after the last slot, so the whole scene is memory
    at = round(math.ceil(scene.duration / CLIP_S) * CLIP_S + ASK_AFTER_S, 2)
    out = []
    for kind, (answerable, make) in KINDS.items():
        phrasings = PHRASINGS[kind]
        if kinds and kind not in kinds:
            continue
        for i, template in enumerate(phrasings):
            made = make(f, random.Random(f"{scene.seed}/{kind}/{i}"), i % 2 == 0)
            if made is None:
                continue
            answer, params = made
            out.append(SceneQuestion(f"s{scene.seed}_{kind}_{i}", kind, i, template.format(**_fields(f, params)),
                                     answer, answerable, at, params))
    return out


def split_of(seed: int, phrasing: int) -> str | None:
    if seed in TUNE_SEEDS and phrasing in TUNE_PHRASINGS:
        return "tune"
    if seed in REPORT_SEEDS and phrasing not in TUNE_PHRASINGS:
        return "report"
    if seed in SEEN_SEEDS and phrasing not in TUNE_PHRASINGS:
        return "seen"
    if seed in FRESH_SEEDS and phrasing not in TUNE_PHRASINGS:
        return "fresh"
    return None


def split_seeds(split: str) -> range:
    return {"tune": TUNE_SEEDS, "report": REPORT_SEEDS, "seen": SEEN_SEEDS, "fresh": FRESH_SEEDS[:4]}[split]


def split_questions(scene: SceneDef, split: str, kinds: list[str] | None = None) -> list[SceneQuestion]:
    return [q for q in scene_questions(scene, kinds) if split_of(scene.seed, q.phrasing) == split]


def bag_questions(scene: SceneDef, phrasings: set[int] | None = None) -> list[Question]:
    """The scene's questions (of these phrasings; all when None) as bag annotations (types: the kind, and
    "unanswerable" where it is)."""
    return [Question(q.id, q.question, q.answer, q.at, [q.kind] + ([] if q.answerable else ["unanswerable"]),
                     mmss(q.at)) for q in scene_questions(scene) if phrasings is None or q.phrasing in phrasings]
