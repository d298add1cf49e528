"""``m3-memory``: inspect and maintain a memory database from the shell.

    m3-memory stats --db memory.db [--json]
    m3-memory characters --db memory.db [--json]
    m3-memory clip 12 --db memory.db [--json]
    m3-memory search "where are the keys?" --db memory.db [--topk 2] [--threshold 0.5] [--before 300] [--nodes]
    m3-memory import-pickle bedroom_01.pkl --db memory.db [--reembed] [--clip-seconds 30] [--into-existing]
                                                  [--max-bytes N] [--max-nodes N]  (all or nothing; again: 0 added)
    m3-memory export memory.json --db memory.db [--vectors] [--blobs]      (OUT "-" writes to stdout)
    m3-memory forget 3 --db memory.db --yes [--wait 10] [--vacuum]      (exit 3: WAL checkpoint blocked)
    m3-memory checkpoint --db memory.db [--wait 10]                      (exit 3: still blocked)
    m3-memory name 3 Alice --db memory.db
    m3-memory links 3 --db memory.db [--json]        (the equivalences joining a person's faces and voices)
    m3-memory merge 3 7 --db memory.db              m3-memory split 41 --db memory.db   (corrections, logged)
    m3-memory serve memory.db [--port 8765] [--write-token-file FILE]   (memory browser web app, see m3_control.browser)

``--db`` defaults to ``$M3_MEMORY_DB``. Read-only commands open the database read-only, so they are safe next
to a running memorization process. Errors print one line on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .embedders import EmbeddingError
from .store import MemoryStore, StoreError
from .store.pg import is_postgres_url

PROG = "m3-memory"


class CliError(Exception):
    """A user error reported as one line on stderr (exit status 2)."""


# ---------------------------------------------------------------------------------------------- helpers
def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def _json(obj: Any) -> None:
    _out(json.dumps(obj, ensure_ascii=False, indent=2, default=str))


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells)


def _open(args: argparse.Namespace, write: bool = False, create: bool = False) -> MemoryStore:
    if not args.db:
        raise CliError("no database given: pass --db PATH (or a postgresql:// URL) or set M3_MEMORY_DB")
    if is_postgres_url(args.db):
        return MemoryStore(args.db, readonly=not write)
    path = Path(args.db)
    if not create and not path.is_file():
        raise CliError(f"memory database not found: {path}")
    return MemoryStore(path, readonly=not write)


def _fmt_time(t: float | None) -> str:
    return "-" if t is None else f"{t:g}"


# ---------------------------------------------------------------------------------------------- commands
def cmd_stats(args: argparse.Namespace) -> int:
    with _open(args) as store:
        st = store.stats()
    if args.json:
        _json(st)
        return 0
    rows: list[tuple[str, Any]] = []
    for k, v in st.items():
        if k == "nodes":
            v = ", ".join(f"{kind} {n}" for kind, n in v.items())
        elif k == "last_clip" and v:
            v = f"{v[0]} ({_fmt_time(v[1])}-{_fmt_time(v[2])} s)"
        rows.append((k, "-" if v is None else v))
    _out(_table(("key", "value"), rows))
    return 0


def _character_rows(store: MemoryStore) -> list[dict]:
    from .store.export import character_rows, characters_from, snapshot
    from .store.retrieval import character_name

    with snapshot(store) as conn:
        chars, names = characters_from(conn)
        rows = character_rows(conn, chars, names)
    for row in rows:  # no set name: the name the memories state, if any
        row["name_source"] = "set" if row["name"] else None
        if not row["name"]:
            stated = character_name(store, row["id"])
            if stated:
                row["name"], row["name_source"] = stated, "stated"
    return rows


def cmd_characters(args: argparse.Namespace) -> int:
    with _open(args) as store:
        rows = _character_rows(store)
    if args.json:
        _json(rows)
        return 0
    _out(_table(("id", "members", "name", "memories"),
                [(r["id"], " ".join(r["members"]),
                  (r["name"] or "-") + (" (stated)" if r["name_source"] == "stated" else ""), r["n_memories"])
                 for r in rows]))
    return 0


def cmd_clip(args: argparse.Namespace) -> int:
    with _open(args) as store:
        row = store.clip_row(args.clip_id)
        if row is None:
            raise CliError(f"no clip {args.clip_id} in {store.location}")
        mems = store.clip_memories(args.clip_id)
        items = [{"id": m.id, "kind": m.kind, "weight": m.weight, "text": m.text,
                  "translated": store.translate(m.text)} for m in mems]
    if args.json:
        _json({"clip_id": row[0], "start_time": row[1], "end_time": row[2], "source": row[3], "memories": items})
        return 0
    _out(f"clip {row[0]}  [{_fmt_time(row[1])}-{_fmt_time(row[2])} s]" + (f"  source {row[3]}" if row[3] else ""))
    if not items:
        _out("  (no memories)")
    for it in items:
        _out(f"  #{it['id']} {it['kind']} (weight {it['weight']:g})")
        _out(f"    raw:        {it['text']}")
        _out(f"    translated: {it['translated'] or '(equivalence, hidden)'}")
    return 0


def _near(store: Any, near: str | None, place: str | None) -> tuple[float, float, float] | None:
    """--near X,Y,R or --place NAME (a named place of the store) -> (x, y, radius)."""
    if place:
        from .store.where import find_place, load_places

        found = find_place(load_places(store), place)
        if found is None:
            names = ", ".join(p.name for p in load_places(store)) or "none"
            raise SystemExit(f"m3-memory: no place named {place!r} (known: {names})")
        return found.x, found.y, found.radius
    if near:
        try:
            x, y, r = (float(v) for v in near.split(","))
        except ValueError:
            raise SystemExit(f"m3-memory: --near wants X,Y,RADIUS in metres, got {near!r}") from None
        return x, y, r
    return None


def cmd_search(args: argparse.Namespace) -> int:
    with _open(args) as store:
        before = args.before
        near = _near(store, args.near, args.place)
        if near is not None:
            from .store.where import search_near

            args.nodes = True
            mems = search_near(store, args.query, *near, topk=args.topk or 20, before_time=before)
        elif args.nodes:
            mems = store.search_nodes(args.query, topk=args.topk or 20, before_time=before)
        if args.nodes:
            out: list[dict] = [{"id": m.id, "kind": m.kind, "clip_id": m.clip_id, "score": m.score, "text": m.text,
                                "translated": store.translate(m.text, before_time=before)} for m in mems]
        else:
            hits = store.search_clips(args.query, topk=args.topk or 2, threshold=args.threshold, before_time=before)
            out = [{"clip_id": h.clip_id, "score": h.score,
                    "memories": [{"id": m.id, "kind": m.kind, "score": m.score, "text": m.text,
                                  "translated": store.translate(m.text, before_time=before)} for m in h.memories]}
                   for h in hits]
    if args.json:
        _json(out)
        return 0
    if not out:
        _out("no match")
    elif args.nodes:
        for it in out:
            _out(f"{it['score']:.3f}  CLIP_{it['clip_id']}  #{it['id']}  {it['translated']}")
    else:
        for hit in out:
            _out(f"CLIP_{hit['clip_id']}  score {hit['score']:.3f}")
            for m in hit["memories"]:
                if m["translated"]:  # equivalences are hidden, as from the control model
                    score = "    -" if m["score"] is None else f"{m['score']:.3f}"
                    _out(f"  {score}  {m['translated']}")
    return 0


def cmd_import_pickle(args: argparse.Namespace) -> int:
    from .upstream import ImportLimits, import_pickle_file

    if not Path(args.pickle).is_file():
        raise CliError(f"pickle not found: {args.pickle}")
    if not args.db:
        raise CliError("no database given: pass --db PATH or set M3_MEMORY_DB")
    # all or nothing: a new database appears only once complete, an existing one gets one transaction
    report = import_pickle_file(args.pickle, args.db, clip_seconds=args.clip_seconds, reembed=args.reembed,
                                embedder_name=args.text_embedder, into_existing=args.into_existing,
                                limits=ImportLimits.with_caps(max_total_bytes=args.max_bytes,
                                                              max_nodes=args.max_nodes))
    if args.json:
        _json(report.to_dict())
    else:
        _out(report.summary())
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from .store.export import export_json

    with _open(args) as store:
        if args.out == "-":
            export_json(store, sys.stdout, include_vectors=args.vectors, include_blobs=args.blobs)
            return 0
        counts = export_json(store, args.out, include_vectors=args.vectors, include_blobs=args.blobs)
    _out(f"wrote {args.out}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    with _open(args, write=True) as store:
        chars = store.characters()
        cid = chars.resolve_alias(args.character_id)
        if cid is None:
            raise CliError(f"unknown character {args.character_id}")
        members = " ".join(chars.member_tags(cid))
        if not args.yes:
            if not sys.stdin.isatty():
                raise CliError(f"refusing to forget character {cid} ({members}) without --yes "
                               "(non-interactive use)")
            sys.stderr.write(f"Forget character {cid} ({members}): delete its face/voice data and the memories "
                             "about it? [y/N] ")
            sys.stderr.flush()
            if sys.stdin.readline().strip().lower() not in ("y", "yes"):
                raise CliError("not confirmed; nothing was changed")
        report = store.forget_character(cid, checkpoint_timeout_s=args.wait, vacuum=args.vacuum)
        from .store.corrections import record_edit

        record_edit(store, "forget", report.character_id, {   # ids and counts only, as the browser logs it
            "entities": report.entities, "deleted_memories": len(report.deleted_memories),
            "redacted_memories": len(report.redacted_memories), "deleted_turns": report.deleted_turns,
            "checkpointed": report.checkpointed}, "cli")
    if args.json:
        _json(dataclasses.asdict(report))
    else:
        _out(f"forgot character {report.character_id}")
        _out(f"  deleted entities:  {' '.join(map(str, report.entities)) or '-'}  ({members})")
        _out(f"  deleted memories:  {len(report.deleted_memories)}"
             + (f"  ({' '.join(map(str, report.deleted_memories))})" if report.deleted_memories else ""))
        _out(f"  redacted memories: {len(report.redacted_memories)}"
             + (f"  ({' '.join(map(str, report.redacted_memories))})" if report.redacted_memories else ""))
        _out(f"  deleted turns:     {report.deleted_turns}")
        _out(f"  names redacted:    {report.names_redacted} occurrence(s); {report.texts_rewritten} text(s) rewritten")
        if report.needs_reembed:
            _out(f"  vectors dropped:   {len(report.needs_reembed)} rewritten memories need re-embedding (the store's "
                 "embedder is not the running one); they are not searchable until then")
        if report.remains:   # PostgreSQL: what its files, WAL, backups and replicas may still hold
            _out(f"  remains:           {report.remains}")
        else:
            _out("  files:             " + ("secure delete done, WAL checkpointed and truncated"
                                            + (", database vacuumed" if report.vacuumed else "")
                                            if report.checkpointed else "WAL NOT checkpointed (see warning)"))
    if not report.checkpointed and report.remains:
        sys.stderr.write(f"{PROG}: warning: the server refused CHECKPOINT (it needs superuser or pg_checkpoint); "
                         "the deleted rows leave the WAL after the server's next checkpoints\n")
        return 3
    if not report.checkpointed:
        _warn_checkpoint(args.db, args.wait)
        return 3
    return 0


def _warn_checkpoint(db: str, waited: float) -> None:
    sys.stderr.write(
        f"{PROG}: warning: other connections (open readers, or a writer) kept the WAL checkpoint of {db} busy for "
        f"{waited:g} s: the deleted data is gone from every query, but its bytes may remain in {db}-wal or the "
        f"database file until they close. Close them, then run: {PROG} checkpoint --db {db}\n")


def cmd_checkpoint(args: argparse.Namespace) -> int:
    with _open(args, write=True) as store:
        res = store.checkpoint(args.wait)
    if res.ok:
        _out(f"checkpointed {args.db}: WAL copied into the database and truncated")
        return 0
    _warn_checkpoint(args.db, args.wait)
    return 3


def cmd_gaps(args: argparse.Namespace) -> int:
    """Input that did not become memory: per topic and cause, then every recorded span."""
    from .store.stream_records import as_dicts, gap_summary, gaps, runs

    with _open(args) as store:
        rows, summary, run_rows = gaps(store, cause=args.cause, topic=args.topic), gap_summary(store), runs(store)
    if args.json:
        _json({"summary": summary, "gaps": as_dicts(rows), "runs": run_rows})
        return 0
    if not rows:
        _out("no gaps recorded: every input received became memory")
        return 0
    _out(_table(("topic", "cause", "rows", "count", "seconds"),
                [(t, c, v["rows"], v["count"], v["seconds"]) for t, cs in summary.items() for c, v in cs.items()]))
    _out("")
    _out(_table(("start", "end", "topic", "cause", "count", "detail"),
                [(_fmt_time(g.start_time), _fmt_time(g.end_time), g.topic, g.cause, g.count, g.detail[:80])
                 for g in rows[-args.limit:]]))
    crashed = [r for r in run_rows if r["status"] == "crashed"]
    if crashed:
        _out(f"\n{len(crashed)} memorization run(s) died without closing (their lost spans are the crash gaps)")
    return 0


def cmd_name(args: argparse.Namespace) -> int:
    with _open(args, write=True) as store:
        cid = store.characters().resolve_alias(args.character_id)
        if cid is None:
            raise CliError(f"unknown character {args.character_id}")
        from .store.corrections import name_character

        name_character(store, cid, args.name, origin="cli")   # logged in `edits` (without the name)
        name = store.character_names().get(cid)
    _out(f"character {cid} is now named {name!r}")
    return 0


def cmd_links(args: argparse.Namespace) -> int:
    """The equivalence memories that join a character's faces and voices (what ``split`` takes)."""
    from .store.corrections import links

    with _open(args) as store:
        rows = links(store, args.character_id)
        if store.characters().resolve_alias(args.character_id) is None:
            raise CliError(f"unknown character {args.character_id}")
    if args.json:
        _json([{**dataclasses.asdict(lk), "tags": lk.tags} for lk in rows])
        return 0
    if not rows:
        _out("no links: one face or voice only")
        return 0
    _out(_table(("memory", "joins", "known since", "clip", "from", "weight", "confidence", "evidence"),
                [(lk.memory_id, " = ".join(lk.tags), _fmt_time(lk.time), lk.clip_id, lk.source, lk.weight,
                  "" if lk.confidence is None else f"{lk.confidence:.2f}",
                  "" if lk.evidence_s is None else f"{lk.evidence_s:.1f} s alone on camera, {lk.evidence_clips} clips")
                 for lk in rows]))
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    with _open(args, write=True) as store:
        merged = store.merge_characters(args.a, args.b, origin="cli")
    _out(f"characters {args.a} and {args.b} are now character {merged}")
    return 0


def cmd_split(args: argparse.Namespace) -> int:
    with _open(args, write=True) as store:
        after = store.split_link(args.memory_id, origin="cli")
    _out(f"link {args.memory_id} removed (and refused from now on): characters {' '.join(map(str, after))}")
    return 0


def cmd_serve(argv: Sequence[str]) -> int:
    """The memory browser, with every argument after ``serve`` its own. Another package provides it (m3_control:
    its ask page runs the control loop) through the ``m3_memory.commands`` entry point group, so m3_memory knows no
    package above it."""
    from importlib.metadata import distributions

    # every installed distribution, not entry_points()'s first per name: a colcon install puts egg-infos of the same
    # name (without entry points) ahead of the pip install on sys.path
    found = [e for d in distributions() for e in d.entry_points
             if e.group == "m3_memory.commands" and e.name == "serve"]
    if not found:
        print(f"{PROG}: error: no package provides 'serve' (install m3_control: pip install -e .)", file=sys.stderr)
        return 2
    return int(found[0].load()(list(argv), prog=f"{PROG} serve"))


# ---------------------------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", metavar="PATH", default=os.environ.get("M3_MEMORY_DB"),
                        help="memory database (default: $M3_MEMORY_DB)")
    as_json = argparse.ArgumentParser(add_help=False)
    as_json.add_argument("--json", action="store_true", help="print JSON instead of a table")

    p = argparse.ArgumentParser(prog=PROG, description="Inspect and maintain an m3_memory database.")
    p.add_argument("--debug", action="store_true", help="show tracebacks instead of one-line errors")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("stats", parents=[common, as_json], help="counts, embedder, last clip")
    s.set_defaults(fn=cmd_stats)
    s = sub.add_parser("characters", parents=[common, as_json], help="characters: members, name, #memories")
    s.set_defaults(fn=cmd_characters)
    s = sub.add_parser("clip", parents=[common, as_json], help="one clip's memories, raw and translated")
    s.add_argument("clip_id", metavar="ID", type=int, help="clip id (0 is the first 30 s)")
    s.set_defaults(fn=cmd_clip)
    s = sub.add_parser("search", parents=[common, as_json], help="retrieve clips (or memories) for a query")
    s.add_argument("query", metavar="QUERY", help="text to search for (embedded like the memories)")
    s.add_argument("--topk", type=int, default=None, help="clips (default 2) or, with --nodes, memories (20)")
    s.add_argument("--threshold", type=float, default=None, help="min clip score (default: the store's, 0.5)")
    s.add_argument("--before", type=float, default=None, metavar="SECONDS",
                   help="only memories of clips ending by this time")
    s.add_argument("--nodes", action="store_true", help="rank single memories instead of clips")
    s.add_argument("--near", default=None, metavar="X,Y,R",
                   help="only memories written within R metres of (X, Y) in the pose frame (implies --nodes)")
    s.add_argument("--place", default=None, metavar="NAME", help="only memories written inside a named place")
    s.set_defaults(fn=cmd_search)
    s = sub.add_parser("import-pickle", parents=[common, as_json], help="import an upstream VideoGraph pickle")
    s.add_argument("pickle", metavar="PKL", help="upstream M3-Agent VideoGraph .pkl file")
    s.add_argument("--reembed", action="store_true",
                   help="embed the memory texts with the store's embedder (offline search) instead of keeping "
                        "the pickle's text-embedding-3-large vectors")
    s.add_argument("--clip-seconds", type=float, default=30.0, help="length of an upstream clip (default 30)")
    s.add_argument("--into-existing", action="store_true",
                   help="append to a non-empty database (ids, clips and times shifted past its contents)")
    s.add_argument("--text-embedder", default="openai:text-embedding-3-large",
                   help="name recorded for the pickle's text vectors (without --reembed)")
    s.add_argument("--max-bytes", type=int, default=None, metavar="BYTES",
                   help="refuse a pickle that would load and write more than this (default 2 GiB; checked before "
                        "writing anything)")
    s.add_argument("--max-nodes", type=int, default=None, metavar="N",
                   help="refuse a pickle with more nodes than this (default 200000)")
    s.set_defaults(fn=cmd_import_pickle)
    s = sub.add_parser("export", parents=[common], help="dump the database as JSON")
    s.add_argument("out", metavar="OUT.json", help='output file, "-" for stdout')
    s.add_argument("--vectors", action="store_true", help="include embedding vectors")
    s.add_argument("--blobs", action="store_true", help="include binary contents (base64)")
    s.set_defaults(fn=cmd_export)
    s = sub.add_parser("forget", parents=[common, as_json],
                       help="delete a person: face/voice data and memories about them")
    s.add_argument("character_id", metavar="CHARACTER_ID", type=int, help="the character to forget (see characters)")
    s.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    s.add_argument("--wait", type=float, default=10.0, metavar="SECONDS",
                   help="how long to retry the WAL checkpoint while other connections keep it busy (default 10)")
    s.add_argument("--vacuum", action="store_true",
                   help="also rebuild the database file (removes bytes freed before the forget, e.g. capped face "
                        "embeddings; slow on a large store, needs free disk as large as the database)")
    s.set_defaults(fn=cmd_forget)
    s = sub.add_parser("checkpoint", parents=[common],
                       help="checkpoint and truncate the WAL (finish a forget that open readers blocked)")
    s.add_argument("--wait", type=float, default=10.0, metavar="SECONDS",
                   help="how long to retry while other connections keep it busy (default 10)")
    s.set_defaults(fn=cmd_checkpoint)
    s = sub.add_parser("gaps", parents=[common, as_json],
                       help="input that did not become memory (late, bad, gaps, transport, crash...) and why")
    s.add_argument("--cause", default=None, help="only this cause (e.g. no_audio, crash, transport)")
    s.add_argument("--topic", default=None, help="only this topic")
    s.add_argument("--limit", type=int, default=50, help="show the last N spans (default 50)")
    s.set_defaults(fn=cmd_gaps)
    s = sub.add_parser("name", parents=[common], help="set a character's name")
    s.add_argument("character_id", metavar="CHARACTER_ID", type=int, help="the character (see characters)")
    s.add_argument("name", metavar="NAME", help="its name in answers and the browser")
    s.set_defaults(fn=cmd_name)
    s = sub.add_parser("links", parents=[common, as_json], help="the equivalences joining a character's faces/voices")
    s.add_argument("character_id", metavar="CHARACTER_ID", type=int, help="the character (see characters)")
    s.set_defaults(fn=cmd_links)
    s = sub.add_parser("merge", parents=[common], help="join two characters that are one person")
    s.add_argument("a", metavar="CHARACTER_A", type=int, help="a character (see characters)")
    s.add_argument("b", metavar="CHARACTER_B", type=int, help="the same person under another id")
    s.set_defaults(fn=cmd_merge)
    s = sub.add_parser("split", parents=[common], help="remove a wrong link (see links); it is not made again")
    s.add_argument("memory_id", metavar="LINK", type=int, help="the equivalence memory id (see links)")
    s.set_defaults(fn=cmd_split)
    s = sub.add_parser("serve", add_help=False, help="memory browser web app: people, timeline, search, ask; "
                                                     "corrections with a write token (m3-memory serve --help)")
    # main() hands everything after "serve" to the browser
    s.add_argument("rest", nargs=argparse.REMAINDER, help="arguments of the browser (m3-memory serve --help)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        return cmd_serve(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)  # usage errors: argparse prints them and exits with status 2
    try:
        return int(args.fn(args))
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130
    except (CliError, StoreError, EmbeddingError, OSError, ValueError, sqlite3.Error) as e:
        if args.debug:
            raise
        sys.stderr.write(f"{PROG}: error: {e}\n")
        return 2
    except Exception as e:  # anything else: still one line unless --debug
        if args.debug:
            raise
        sys.stderr.write(f"{PROG}: error: {type(e).__name__}: {e}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
