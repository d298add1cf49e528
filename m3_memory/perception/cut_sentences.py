"""One person's sentence cut in two by the diarizer: join the short piece's speaker to the speaker it was cut from.

The segment diarizer splits a stretch of speech at a change point it finds in the voice, with no silence between
the two parts. On a short piece (well under the 1.6 s embedding window) the print is unreliable, and the piece may be
filed under a speaker of its own: procedural fresh scene 574, "set blue" (0.7 s) / "with E5 now" (1.2 s) three
times in one clip, the three heads one speaker of their own, so one person became two characters (one of them a
voice nobody was ever seen with) and every question about them was answered about half a person.

A clip speaker is joined to another when every one of its turns is such a piece: short (<= ``head_s``), not
overlapped, touching a turn of that same other speaker with no gap between (<= ``touch_s``: the diarizer's own cut,
not a pause between two people), and no face evidence against it (a face alone on camera during both parts must be
the same face). One such piece alone needs that face as evidence for it; two or more, each glued to the same
speaker's speech, are joined on the timing alone. The joined turns stay as they were: the turn records read two
pieces of one person with nobody between as one utterance (m3_memory/people.py). The speaker's print is the longer
part's alone (the piece's is what was wrong).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from ..store.av_links import AVParams, alone_credit
from ..writing.base import ClipEvidence
from .voices import Speaker, VoiceTurn

log = logging.getLogger(__name__)

HEAD_S = 1.2       # a piece longer than this has a print of its own worth trusting
TOUCH_S = 0.05     # the diarizer's cut: the two parts share a boundary


def _touching(t: VoiceTurn, others: dict[int, Speaker], touch_s: float) -> list[tuple[int, VoiceTurn]]:
    return [(k, u) for k, spk in others.items() for u in spk.turns
            if not u.overlapped and (abs(u.start - t.end) <= touch_s or abs(t.start - u.end) <= touch_s)]


def join_cut_sentences(speakers: dict[int, Speaker], ev: ClipEvidence | None = None, p: AVParams | None = None,
                       head_s: float = HEAD_S, touch_s: float = TOUCH_S
                       ) -> tuple[dict[int, Speaker], list[tuple[int, list[int]]]]:
    """(the speakers with every cut-off piece's speaker joined to the one it was cut from, [(kept key, [kept key,
    joined key])]). ``ev``: the clip's faces and frame times (face evidence for and against; None: timing only)."""
    p = p or AVParams()
    out = dict(speakers)
    joins: list[tuple[int, list[int]]] = []
    for k in sorted(speakers):
        spk = out.get(k)
        if spk is None or not spk.turns:
            continue
        others = {o: s for o, s in out.items() if o != k}
        partner: set[int] = set()
        vouched = False
        for t in spk.turns:
            touch = _touching(t, others, touch_s) if t.end - t.start <= head_s and not t.overlapped else []
            if len(touch) != 1:
                break
            o, u = touch[0]
            if ev is not None and ev.frame_times:
                fa, fb = alone_credit(ev, t.start, t.end, p), alone_credit(ev, u.start, u.end, p)
                if fa and fb and set(fa) != set(fb):
                    break                      # two faces alone on camera: two people
                vouched |= bool(fa) and set(fa) == set(fb)
            partner.add(o)
        else:
            if len(partner) == 1 and (len(spk.turns) >= 2 or vouched):
                keep = partner.pop()
                for t in spk.turns:
                    t.speaker = keep
                out[keep].turns = sorted(out[keep].turns + spk.turns, key=lambda t: t.start)
                del out[k]
                joins.append((keep, [keep, k]))
                log.info("clip speaker %d joined to %d: its %d turn(s) are pieces cut from %d's speech", k, keep,
                         len(spk.turns), keep)
    return out, joins


def move_cut_pieces(speakers: dict[int, Speaker], continuous: Callable[[float], bool],
                    ev: ClipEvidence | None = None, p: AVParams | None = None, head_s: float = HEAD_S,
                    touch_s: float = TOUCH_S) -> tuple[dict[int, Speaker], list[tuple[int, int, int]]]:
    """Pieces cut from another speaker's sentence, filed under a speaker who also has whole turns of their own:
    moved to the speaker they were cut from. (the speakers, [(from key, to key, pieces moved)])

    Procedural fresh scene 620: "lay" (0.5 s) of "lay blue at x four now" went three times in one clip to the voice
    of "set blue with e five now", who had a turn of their own there, so :func:`join_cut_sentences` (every turn a
    piece) left them, and "lay blue at x four now"'s speaker was heard second instead of first. A piece moves when
    it is short, not overlapped, touches a turn of exactly one other speaker, and the speech runs on through the
    cut (``continuous(t)``: no pause at all there, where one person hands over to another), with no face alone
    on camera against it; two or more such pieces glued to the same speaker move on the timing alone, one needs a
    face alone on camera during both parts (as for joins)."""
    p = p or AVParams()
    moves: list[tuple[int, int, int]] = []
    for k in sorted(speakers):
        spk = speakers[k]
        by_partner: dict[int, list[VoiceTurn]] = {}
        vouched: dict[int, bool] = {}
        for t in spk.turns:
            if t.end - t.start > head_s or t.overlapped:
                continue
            touch = _touching(t, {o: s for o, s in speakers.items() if o != k}, touch_s)
            if len(touch) != 1:
                continue
            o, u = touch[0]
            if not continuous(t.end if abs(u.start - t.end) <= touch_s else t.start):
                continue
            if ev is not None and ev.frame_times:
                fa, fb = alone_credit(ev, t.start, t.end, p), alone_credit(ev, u.start, u.end, p)
                if fa and fb and set(fa) != set(fb):
                    continue                   # two faces alone on camera: two people
                vouched[o] = vouched.get(o, False) or (bool(fa) and set(fa) == set(fb))
            by_partner.setdefault(o, []).append(t)
        for o, pieces in by_partner.items():
            if len(pieces) == len(spk.turns) or not (len(pieces) >= 2 or vouched.get(o)):
                continue   # (every turn a piece: join_cut_sentences' case)
            for t in pieces:
                t.speaker = o
            spk.turns = [t for t in spk.turns if t.speaker == k]
            speakers[o].turns = sorted(speakers[o].turns + pieces, key=lambda t: t.start)
            moves.append((k, o, len(pieces)))
            log.info("clip speaker %d: %d piece(s) cut from %d's speech moved to %d", k, len(pieces), o, o)
    return speakers, moves
