from pathlib import Path

import pytest

from m3_control.goal_poses import GoalPose
from m3_control.skills import GoalPlanner, load_skills

SKILLS = Path(__file__).resolve().parents[1] / "config" / "skills.yaml"


@pytest.fixture(scope="module")
def skills():
    return load_skills(SKILLS)


class Known:
    """A stand-in memory: every phrase is mentioned by memories 7 and 9, no speech to copy."""

    def __call__(self, phrase, before_time=None):
        return [7, 9]

    def texts(self, text, memory_ids, before_time=None):
        return []


class Model:
    name = "scripted"
    supports_stop = supports_grammar = False

    def __init__(self, reply):
        self.reply = reply

    def complete(self, messages):
        assert "fetch_object" in messages[0]["content"]
        return self.reply


def test_rules_fill_arguments_from_the_answer(skills):
    kitchen = GoalPose(2.0, 1.0, 0.5, "map", "place", "kitchen", None, [3])
    p = GoalPlanner(skills, resolver=Known(), pose_resolver=lambda target, t: kitchen if "kitchen" in target else None)
    goals, problems = p.plan("Bring me the folder for confidential files", "the red folder", [7, 9])
    assert [(g.skill, g.arguments, g.supporting_memory_ids) for g in goals] == [
        ("fetch_object", {"object": "the red folder"}, [7, 9])]
    goals, _ = p.plan("Where are the car keys?", "[extractive] In the top drawer.")
    assert goals[0].skill == "say" and goals[0].arguments == {"text": "In the top drawer."}
    goals, _ = p.plan("Take me to Anna", "the kitchen")
    assert goals[0].skill == "navigate_to" and goals[0].arguments == {"target": "the kitchen"}
    assert goals[0].pose is kitchen and goals[0].supporting_memory_ids == [3]
    goals, problems = p.plan("Take me to the garage", "I have no memory of that.")
    assert goals == [] and "has no remembered pose" in problems[0]
    assert p.plan("Thanks a lot", "ok")[0] == []
    assert p.plan("Bring me the keys", "")[0] == []


def planner(skills, reply):
    return GoalPlanner(skills, Model(reply), resolver=Known())


def test_model_planning_is_validated_and_falls_back(skills):
    goals, _ = planner(skills, '{"skill": "fetch_object", "arguments": {"object": "red folder", '
                               '"location": "desk"}}').plan("bring me the folder", "red folder")
    assert goals[0].planner == "model" and goals[0].arguments == {"object": "red folder", "location": "desk"}
    goals, problems = planner(skills, '{"skill": "fetch_object", "arguments": {"colour": "red"}}').plan(
        "bring me the folder", "red folder")
    assert goals == [] and "invalid arguments" in problems[0]
    goals, problems = planner(skills, "no idea").plan("bring me the folder", "red folder")
    assert goals[0].planner == "rules" and "no usable JSON" in problems[0]
    goals, problems = planner(skills, '{"skill": "none"}').plan("bring me the folder", "red folder")
    assert goals == [] and problems == []
    goals, problems = planner(skills, '{"skill": "fly", "arguments": {}}').plan("fetch it", "x")
    assert goals == [] and "unknown skill" in problems[0]
