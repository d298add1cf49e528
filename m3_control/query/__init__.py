"""Compositional queries over what the memory holds: the model writes a typed frame
(:mod:`~m3_control.query.frame`), code executes it (:mod:`~m3_control.query.execute`), the answer is phrased from
the executed result and checked against it (:mod:`~m3_control.query.phrase`)."""

from .execute import QueryExecutor
from .frame import Query, QueryError, parse
from .phrase import REFUSAL, check, phrase
from .result import QueryResult

__all__ = ["Query", "QueryError", "QueryExecutor", "QueryResult", "REFUSAL", "answer_query", "check", "parse",
           "phrase"]


def answer_query(executor: QueryExecutor, text: str, before_time: float | None) -> tuple[str, QueryResult]:
    """Parse, execute and phrase one query; an answer that states anything the result lacks is refused."""
    res = executor.run(parse(text), before_time)
    answer = phrase(res)
    problems = check(answer, res)
    if problems:
        res.steps.append({"step": "refused", "problems": problems})
        return REFUSAL, res
    return answer, res
