"""The answerer by name: the factory lives beside the interface (:mod:`m3_control.answerer`), so the answerers can
import the interface without importing each other."""

from __future__ import annotations

from typing import Any

from .answerer import ANSWERERS, Answerer, SearchableStore


def make_answerer(name: str, store: SearchableStore, **options: Any) -> Answerer:
    """Build the answerer called ``name`` over ``store``; options go to its constructor."""
    if name == "extractive":
        from m3_control.extractive import ExtractiveAnswerer

        return ExtractiveAnswerer(store, **options)
    if name == "m3":
        from m3_control.m3_answerer import M3Answerer

        return M3Answerer(store, **options)
    raise ValueError(f"unknown answerer {name!r}; available: {', '.join(ANSWERERS)}")
