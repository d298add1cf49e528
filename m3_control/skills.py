"""Skills registry and action-goal planning: after answering an instruction, decide whether a robot skill
applies and fill its arguments from what memory gave, validated against the skill's JSON schema.

Planning: with a capable chat model, the model is shown the instruction, the answer and the skills and returns a
JSON goal; otherwise (or when its JSON is unusable) a rule-based planner matches the instruction against each
skill's trigger phrases and fills the first required argument with the answer; a question with no matching
skill becomes a ``say`` goal carrying the answer. Invalid goals are dropped and reported, never published.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml


@dataclass
class Skill:
    name: str
    description: str
    parameters: dict[str, Any]
    triggers: list[str] = field(default_factory=list)

    def validate(self, args: dict[str, Any]) -> None:
        jsonschema.validate(args, self.parameters)


@dataclass
class Goal:
    skill: str
    arguments: dict[str, Any]
    goal_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    supporting_memory_ids: list[int] = field(default_factory=list)
    planner: str = "rules"


def load_skills(path: str | Path) -> dict[str, Skill]:
    data = yaml.safe_load(Path(path).read_text()) or {}
    out: dict[str, Skill] = {}
    for s in data.get("skills", []):
        skill = Skill(s["name"], s.get("description", ""), s.get("parameters", {"type": "object"}),
                      [t.lower() for t in s.get("triggers", [])])
        jsonschema.Draft202012Validator.check_schema(skill.parameters)
        out[skill.name] = skill
    return out


PLAN_PROMPT = """A robot answered an instruction from its memory. Decide which of its skills, if any, it should now
run, and fill the skill's arguments from the answer. Reply with one JSON object only:
{{"skill": "<name or none>", "arguments": {{...}}}}

Skills:
{skills}

Instruction: {instruction}
Answer from memory: {answer}"""


class GoalPlanner:
    def __init__(self, skills: dict[str, Skill], backend: Any = None) -> None:
        self.skills = skills
        self.backend = backend

    def plan(self, instruction: str, answer: str, memory_ids: list[int] | None = None) -> tuple[list[Goal], list[str]]:
        """(goals, problems). Goals are validated; problems explain what was dropped."""
        problems: list[str] = []
        goal = self._plan_with_model(instruction, answer, problems) if self.backend is not None else None
        if goal is None:
            goal = self._plan_with_rules(instruction, answer)
        if goal is None or goal is False:  # False: the model decided that no skill applies
            return [], problems
        skill = self.skills.get(goal.skill)
        if skill is None:
            return [], problems + [f"unknown skill {goal.skill!r}"]
        try:
            skill.validate(goal.arguments)
        except jsonschema.ValidationError as e:
            return [], problems + [f"{goal.skill}: invalid arguments: {e.message}"]
        goal.supporting_memory_ids = list(memory_ids or [])
        return [goal], problems

    def _plan_with_rules(self, instruction: str, answer: str) -> Goal | None:
        text = " " + " ".join(instruction.lower().split()) + " "
        if not answer.strip():
            return None
        for skill in self.skills.values():
            if any(t in text for t in skill.triggers):
                required = skill.parameters.get("required") or list(skill.parameters.get("properties", {}))
                if required:
                    return Goal(skill.name, {required[0]: _strip_marker(answer)})
        if "say" in self.skills and (instruction.strip().endswith("?") or re.match(
                r"\s*(what|who|where|when|which|why|how|is|are|do|does|did|can|tell)\b", instruction, re.I)):
            return Goal("say", {"text": _strip_marker(answer)[:2000]})
        return None

    def _plan_with_model(self, instruction: str, answer: str, problems: list[str]) -> Goal | bool | None:
        listing = "\n".join(f"- {s.name}: {s.description} Arguments schema: {json.dumps(s.parameters)}"
                            for s in self.skills.values())
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
