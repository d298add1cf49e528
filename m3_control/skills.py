"""Skills registry and action-goal planning: after answering an instruction, decide whether a robot skill the
instruction asked for applies, fill its arguments, and validate them before anything is published.

Memory is untrusted (it holds whatever was said near the robot), so planning follows the rules of
:mod:`m3_control.goal_validation`: only a skill the *user's instruction* requests can become a goal (trigger phrases
in ``config/skills.yaml``; ``say`` for questions); arguments are checked against the skill's schema; navigation
targets, objects and places must name something mentioned in memory (the memories found are the goal's
provenance, ``supporting_memory_ids``); ``say`` carries the generated answer, in which speech from memory appears
only as a quote.

Planning: with a capable chat model, the model is shown the instruction, the answer and the *requested* skills and
returns a JSON goal; otherwise (or when its JSON is unusable) a rule-based planner fills the requested skill: a
memory argument from the answer when the answer is a short phrase, else from what the instruction names after its
trigger ("bring me the red folder" -> "the red folder"); ``say`` with the answer. Refused goals are never published;
``plan`` returns why, and the control node records the reasons in the answer trace (``goal_problems``).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from .goal_validation import (
    DEFAULT_REQUEST_PREFIXES,
    GoalValidator,
    MemoryResolver,
    Resolver,
    check_skill_schema,
    instruction_phrase,
    matched_trigger,
    normalize_space,
    store_of,
)

ANSWER_PHRASE_MAX_WORDS = 5  # a longer answer is a sentence, not the name of a thing


@dataclass
class Skill:
    name: str
    description: str
    parameters: dict[str, Any]
    triggers: list[str] = field(default_factory=list)
    questions: bool = False  # a question requests this skill (say: the answer spoken)

    def validate(self, args: dict[str, Any]) -> None:
        jsonschema.validate(args, self.parameters)

    def source(self, argument: str) -> str:
        return str(self.parameters.get("properties", {}).get(argument, {}).get("x-source", ""))


class Skills(dict[str, Skill]):
    """The registry: skills by name, plus the polite openings skipped before a trigger is looked for."""

    request_prefixes: tuple[str, ...] = DEFAULT_REQUEST_PREFIXES


@dataclass
class Goal:
    skill: str
    arguments: dict[str, Any]
    goal_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    supporting_memory_ids: list[int] = field(default_factory=list)
    planner: str = "rules"
    provenance: dict[str, list[int]] = field(default_factory=dict)  # argument -> memories that vouch for it
    pose: Any = None    # goal_poses.GoalPose: where a place argument resolved to (published as PoseStamped)


def load_skills(path: str | Path) -> Skills:
    data = yaml.safe_load(Path(path).read_text()) or {}
    out = Skills()
    if data.get("request_prefixes") is not None:
        out.request_prefixes = tuple(str(p).lower() for p in data["request_prefixes"])
    for s in data.get("skills", []):
        skill = Skill(s["name"], s.get("description", ""), s.get("parameters", {"type": "object"}),
                      [t.lower() for t in s.get("triggers", [])], bool(s.get("questions", False)))
        check_skill_schema(skill.name, skill.parameters)
        out[skill.name] = skill
    return out


PLAN_PROMPT = """A robot answered an instruction from its memory. Decide which of the skills the instruction asked for,
if any, it should now run, and fill the skill's arguments. Reply with one JSON object only:
{{"skill": "<name or none>", "arguments": {{...}}}}

Skills:
{skills}

Instruction: {instruction}
Answer from memory: {answer}"""


def _public_schema(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """The schema shown to a planning model: the registry's own keys (x-...) left out."""
    props = {k: {a: b for a, b in v.items() if not a.startswith("x-")}
             for k, v in (parameters.get("properties") or {}).items()}
    return {**parameters, "properties": props}


class GoalPlanner:
    """``memory``: the store goals are checked against (a MemoryStore, or an answerer reading one), or give a
    ``resolver`` directly. Without either, every goal is refused (nothing can be checked against memory)."""

    def __init__(self, skills: Mapping[str, Skill], backend: Any = None, resolver: Resolver | None = None,
                 memory: Any = None, pose_resolver: Any = None) -> None:
        self.skills = skills
        self.backend = backend
        if memory is not None:
            from .goal_poses import PoseResolver

            pose_resolver = pose_resolver or PoseResolver(store_of(memory))
            if resolver is None:
                resolver = MemoryResolver(store_of(memory))
        self.prefixes = tuple(getattr(skills, "request_prefixes", DEFAULT_REQUEST_PREFIXES))
        self.validator = GoalValidator(skills, resolver, self.prefixes, pose_resolver)
        self._answer_pose = None

    def plan(self, instruction: str, answer: str, memory_ids: Sequence[int] | None = None,
             before_time: float | None = None, trace: dict[str, Any] | None = None) -> tuple[list[Goal], list[str]]:
        """(goals, problems). Goals passed every check; problems say what was refused and why. ``trace``: the
        answer's reasoning trace (a where tool's pose in it can be a navigation goal's target)."""
        from .goal_poses import pose_from_trace

        self._answer_pose = pose_from_trace(trace, list(memory_ids or []))
        problems: list[str] = []
        answer = _strip_marker(answer)
        requested = self.validator.requested(instruction)
        if not answer or not requested:  # nothing to act on, or the user asked for no action
            return [], problems
        ids = [int(i) for i in memory_ids or []]
        if self.backend is not None:
            planned = self._plan_with_model(instruction, answer, requested, problems)
            if planned is False:  # the model decided that no skill applies
                return [], problems
            if planned is not None:
                return self._checked([planned], instruction, answer, ids, before_time, problems)
        return self._checked(self._plan_with_rules(instruction, answer, requested[0]), instruction, answer, ids,
                             before_time, problems)

    def _checked(self, candidates: list[Goal], instruction: str, answer: str, ids: list[int],
                 before_time: float | None, problems: list[str]) -> tuple[list[Goal], list[str]]:
        """The first candidate that passes the checks; if none does, every refusal."""
        reasons: list[str] = []
        for goal in candidates:
            skill = self.skills.get(goal.skill)
            if skill is not None:
                for key in skill.parameters.get("properties", {}):  # an answer argument is the answer, always
                    if skill.source(key) == "answer" and key not in goal.arguments:
                        goal.arguments[key] = answer
            verdict = self.validator.check(goal, instruction, answer, ids, before_time, self._answer_pose)
            if verdict.ok:
                goal.pose = verdict.pose
                goal.provenance = verdict.provenance or {}
                goal.supporting_memory_ids = list(dict.fromkeys(i for v in goal.provenance.values() for i in v))
                return [goal], problems
            reasons.append(f"refused {goal.skill}: {verdict.reason}")
        return [], problems + list(dict.fromkeys(reasons))

    def _plan_with_rules(self, instruction: str, answer: str, name: str) -> list[Goal]:
        """Candidate goals for the requested skill ``name``, best first."""
        skill = self.skills[name]
        props = list(skill.parameters.get("properties", {}))
        required = skill.parameters.get("required") or props
        if not required:
            return [Goal(name, {})]
        key = required[0]
        if skill.source(key) == "answer":
            return [Goal(name, {key: normalize_space(answer)})]
        values: list[str] = []
        phrase = answer.strip().rstrip(".!?").strip()
        if len(phrase.split()) <= ANSWER_PHRASE_MAX_WORDS:  # a short answer names the thing ("the red folder")
            values.append(normalize_space(phrase))
        own = instruction_phrase(instruction, matched_trigger(instruction, skill, self.prefixes), self.prefixes)
        if own:
            values.append(own)
        return [Goal(name, {key: v}) for v in dict.fromkeys(values)]

    def _plan_with_model(self, instruction: str, answer: str, requested: list[str], problems: list[str]
                         ) -> Goal | bool | None:
        listing = "\n".join(f"- {s.name}: {s.description} Arguments schema: {json.dumps(_public_schema(s.parameters))}"
                            for s in self.skills.values() if s.name in requested)
        prompt = PLAN_PROMPT.format(skills=listing, instruction=instruction, answer=answer)
        try:
            reply = self.backend.complete([{"role": "user", "content": prompt}])
            m = re.search(r"\{.*\}", reply.split("</think>")[-1], re.DOTALL)
            obj = json.loads(m.group(0)) if m else None
        except Exception as e:  # any model or JSON failure falls back to the rules
            problems.append(f"planning model failed: {e}")
            return None
        if not isinstance(obj, dict) or not isinstance(obj.get("arguments", {}), dict):
            problems.append("planning model returned no usable JSON")
            return None
        name = str(obj.get("skill", "none"))
        if name.lower() in ("none", "", "null"):
            return False
        return Goal(name, obj.get("arguments") or {}, planner="model")


def _strip_marker(answer: str) -> str:
    return re.sub(r"^\s*\[extractive\]\s*", "", answer).strip()
