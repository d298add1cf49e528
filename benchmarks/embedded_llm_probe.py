"""Probe of the embedded chat model (Qwen2.5-Coder-1.5B-Instruct Q4_K_M, xllamacpp, CPU): load time, prompt-prefix
(KV) cache reuse, prompt and generation speed, GBNF-constrained replies, memory per context size.

    python benchmarks/embedded_llm_probe.py                   # 2 threads, n_ctx 8192, RSS for n_ctx 4096 and 8192
    python benchmarks/embedded_llm_probe.py --context-check   # + token count of a 5-round M3 conversation

Prefix cache: a ~600-token system prompt (protocol text + remembered facts) and a short question; the second call
has the same system prompt and another question, so it should process only the new tokens (cache_n = the shared
prefix). Grammar: 10 questions answered under ``ACTION_GRAMMAR``; every reply must match
``Action: \\[(Search|Answer)\\]\\nContent: .+``. RSS: a fresh process per n_ctx loads the model and runs the
long prompt.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from m3_control.backends.llama_embedded import ACTION_GRAMMAR, EmbeddedLlamaBackend  # noqa: E402
from m3_control.protocol_text import INSTRUCTION  # noqa: E402

REPLY = re.compile(r"Action: \[(Search|Answer)\]\nContent: .+")
FACTS = [
    "<character_1> puts the car keys in the top drawer of the kitchen cabinet.",
    "<character_2> waters the basil plant on the living-room window sill every morning.",
    "<character_1> says the blue folder with the tax papers is on the office shelf.",
    "<character_3> drinks two cups of black coffee before the 9 o'clock meeting.",
    "<character_2> charges the laptop on the desk next to the printer.",
    "<character_3> leaves the red umbrella by the front door.",
    "<character_1> tells <character_2> that the dentist appointment moved to Thursday.",
    "<character_2> hides the birthday present for <character_3> in the hallway closet.",
    "<character_3> fixes the squeaky hinge of the garden gate with oil.",
    "<character_1> orders pizza for dinner on Friday evening.",
    "<character_2> puts the phone on the charger in the bedroom at 11 pm.",
    "<character_3> reads a book about sailing on the balcony.",
    "<character_1> is called Anna; <character_2> is called Ben; <character_3> is called Carla.",
]
QUESTIONS = [
    "Where are the car keys?", "Who waters the plant?", "Where is the tax folder?",
    "What does Carla drink before meetings?", "Where is the laptop charged?", "Where is the red umbrella?",
    "When is the dentist appointment?", "Where is the birthday present hidden?", "What did Carla fix?",
    "What is for dinner on Friday?", "Where does Ben charge the phone?", "What is Carla reading?",
]


def system_prompt() -> str:
    head = ("You are a household robot's memory assistant. You are given a question and remembered facts. Decide "
            "whether the facts answer the question. If they do, output [Answer] followed by the answer, using "
            "names, never character ids. If not, output [Search] and a query for the memory bank.")
    facts = "\n".join(f"- {f}" for f in FACTS * 2)
    return f"{head}\n\nRemembered facts:\n{facts}{INSTRUCTION}"


def rss_mib() -> tuple[float, float]:
    """(VmRSS, VmHWM) of this process in MiB."""
    status = Path("/proc/self/status").read_text()

    def field(name: str) -> float:
        return int(status.split(f"{name}:")[1].split()[0]) / 1024

    return field("VmRSS"), field("VmHWM")


def timed(be: EmbeddedLlamaBackend, messages: list[dict[str, str]], **kw: Any) -> dict[str, Any]:
    t = time.perf_counter()
    reply = be.complete(messages, **kw)
    wall = time.perf_counter() - t
    tm = be.last_usage.get("timings", {})
    return {"reply": reply, "wall_s": wall, "prompt_n": tm.get("prompt_n"), "cache_n": tm.get("cache_n"),
            "prompt_ms": tm.get("prompt_ms"), "prompt_tps": tm.get("prompt_per_second"),
            "gen_n": tm.get("predicted_n"), "gen_tps": tm.get("predicted_per_second")}


def msgs(question: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system_prompt()}, {"role": "user", "content": question}]


def child_rss(n_ctx: int, threads: int) -> dict[str, Any]:
    """A fresh process: load, warm the prefix up (cold), one query after it, RSS."""
    be = EmbeddedLlamaBackend(n_ctx=n_ctx, threads=threads)
    be.load()
    after_load = rss_mib()[0]
    t = time.perf_counter()
    be.warmup(msgs(""))
    warmup_s = time.perf_counter() - t
    r = timed(be, msgs(QUESTIONS[0]), grammar=ACTION_GRAMMAR, max_tokens=48)
    rss, hwm = rss_mib()
    return {"n_ctx": n_ctx, "load_s": be.load_s, "rss_load_mib": after_load, "rss_mib": rss, "hwm_mib": hwm,
            "warmup_s": warmup_s, "query_s": r["wall_s"], "query_new_tokens": r["prompt_n"],
            "query_cached_tokens": r["cache_n"]}


def context_check(be: EmbeddedLlamaBackend) -> dict[str, Any]:
    """Prompt tokens of a 5-round M3 conversation (upstream-like: 2 clips x 10 memories of ~25 words a search)."""
    from m3_control.protocol import add_round_instruction, initial_messages, search_result_message

    memory = ("<character_{c}> walks into the kitchen holding a blue mug, puts it next to the coffee machine, "
              "and tells <character_{d}> that the meeting with the landlord moved to Thursday at {h} o'clock.")
    messages = initial_messages("Where did Anna leave the blue mug after talking to Ben about the landlord?")
    sizes = []
    for r in range(5):
        add_round_instruction(messages, r == 4)
        out = timed(be, messages, max_tokens=1, grammar="")
        sizes.append((out["prompt_n"] or 0) + (out["cache_n"] or 0))
        messages.append({"role": "assistant", "content": f"Action: [Search]\nContent: blue mug location {r}"})
        result = {f"CLIP_{10 * r + k}": [memory.format(c=i % 4, d=(i + 1) % 4, h=i) for i in range(10)]
                  for k in range(2)}
        messages.append(search_result_message(result))
    return {"prompt_tokens_per_round": sizes}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--rss-ctx", type=int, nargs="*", default=[4096, 8192], help="n_ctx values for the RSS check")
    ap.add_argument("--context-check", action="store_true", help="count the tokens of a 5-round M3 conversation")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--child-rss", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_rss:
        print(json.dumps(child_rss(args.child_rss, args.threads)))
        return 0

    out: dict[str, Any] = {"threads": args.threads, "n_ctx": args.n_ctx}
    be = EmbeddedLlamaBackend(n_ctx=args.n_ctx, threads=args.threads)
    t = time.perf_counter()
    be.load()
    out["load_s"] = time.perf_counter() - t
    out["rss_after_load_mib"] = rss_mib()[0]

    first = timed(be, msgs(QUESTIONS[0]), grammar=ACTION_GRAMMAR, max_tokens=48)
    second = timed(be, msgs(QUESTIONS[1]), grammar=ACTION_GRAMMAR, max_tokens=48)
    out["first"], out["second"] = first, second
    gen = timed(be, [{"role": "user", "content": "Write a Python function that parses an ISO date string and "
                                                 "returns the weekday name, with a docstring and two examples."}],
                max_tokens=128, grammar="")
    out["generation"] = gen

    replies = []
    t = time.perf_counter()
    for q in QUESTIONS[2:12]:
        r = timed(be, msgs(q), grammar=ACTION_GRAMMAR, max_tokens=48)
        replies.append({"question": q, "reply": r["reply"], "ok": bool(REPLY.fullmatch(r["reply"])),
                        "wall_s": r["wall_s"], "prompt_n": r["prompt_n"], "gen_n": r["gen_n"], "gen_tps": r["gen_tps"]})
    out["grammar"] = {"ok": sum(r["ok"] for r in replies), "n": len(replies), "replies": replies,
                      "mean_s": (time.perf_counter() - t) / len(replies)}

    out["rss_mib"], out["hwm_mib"] = rss_mib()
    if args.context_check:
        out["context"] = context_check(be)
    be.close()

    out["rss_by_ctx"] = []
    for n in args.rss_ctx:
        p = subprocess.run([sys.executable, __file__, "--child-rss", str(n), "--threads", str(args.threads)],
                           capture_output=True, text=True, check=False)
        if p.returncode != 0:
            out["rss_by_ctx"].append({"n_ctx": n, "error": p.stderr[-500:]})
        else:
            out["rss_by_ctx"].append(json.loads(p.stdout.strip().splitlines()[-1]))

    report(out)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0 if out["grammar"]["ok"] == out["grammar"]["n"] else 1


def report(o: dict[str, Any]) -> None:
    f, s, g, gm = o["first"], o["second"], o["generation"], o["grammar"]
    new_tokens = s["prompt_n"]
    rows = [
        ("load (model in page cache)", "< 10 s", f"{o['load_s']:.1f} s"),
        ("1st call: ~600-token prompt + 48 max", "-",
         f"{f['wall_s']:.2f} s  (prompt {f['prompt_n']} tok in {f['prompt_ms'] / 1000:.2f} s)"),
        ("2nd call: same prefix, new question", "only new tokens",
         f"{s['wall_s']:.2f} s  (prompt {new_tokens} new tok, {s['cache_n']} cached, "
         f"{s['prompt_ms'] / 1000:.2f} s)"),
        ("prompt processing", ">= 28 tok/s", f"{f['prompt_tps']:.0f} tok/s"),
        ("generation (128 tok, no grammar)", ">= 20 tok/s", f"{g['gen_tps']:.1f} tok/s"),
        ("grammar-constrained replies", "10/10 match", f"{gm['ok']}/{gm['n']}  ({gm['mean_s']:.2f} s each)"),
        (f"RSS (n_ctx {o['n_ctx']}, this process)", "< 2.5 GiB", f"{o['rss_mib']:.0f} MiB (peak {o['hwm_mib']:.0f})"),
    ]
    for r in o["rss_by_ctx"]:
        if "error" in r:
            rows.append((f"fresh process, n_ctx {r['n_ctx']}", "-", f"failed: {r['error']}"))
            continue
        rows.append((f"fresh process, n_ctx {r['n_ctx']}: RSS", "< 2.5 GiB",
                     f"{r['rss_mib']:.0f} MiB (peak {r['hwm_mib']:.0f}), load {r['load_s']:.1f} s"))
        rows.append(("  cold warmup(prefix), then a query", "only new tokens",
                     f"warmup {r['warmup_s']:.2f} s; query {r['query_s']:.2f} s, {r['query_new_tokens']} new tok, "
                     f"{r['query_cached_tokens']} cached"))
    if "context" in o:
        rows.append(("5-round M3 conversation (2x10 memories)", "fits n_ctx",
                     " / ".join(str(n) for n in o["context"]["prompt_tokens_per_round"]) + " prompt tokens"))
    w = max(len(r[0]) for r in rows)
    print(f"\nembedded LLM probe: {o['threads']} threads, n_ctx {o['n_ctx']}\n")
    print(f"{'check':{w}}  {'target':16}  measured")
    print(f"{'-' * w}  {'-' * 16}  {'-' * 40}")
    for name, target, meas in rows:
        print(f"{name:{w}}  {target:16}  {meas}")
    print("\nsample replies:")
    for r in gm["replies"][:3]:
        print(f"  {r['question']!r} -> {r['reply']!r}")


if __name__ == "__main__":
    sys.exit(main())
