"""Evaluation: judging answers (LLM judge as in the paper, or an offline fallback) and reporting."""
