"""pgvector's ``vector`` and ``vector[]`` as query parameters, sent in PostgreSQL's binary format straight from numpy
(no text form: a 384-d vector as text is ~3 KB of digits the server parses again).

``Vectors(matrix)`` is a ``vector[]`` (one row each), ``Vector(row)`` one ``vector``. A ``vector`` in binary is
its dimension (int16), an unused int16 and the floats, big-endian; an array of them is PostgreSQL's array header
(dimensions, element type) and each element's length before it.
"""

from __future__ import annotations

import numpy as np


class Vectors:
    """Rows of float32 vectors (2-D) to bind as pgvector's ``vector[]``; :class:`Vector` is one ``vector``."""

    ndim = 2

    def __init__(self, values: np.ndarray) -> None:
        v = np.asarray(values, dtype=np.float32)
        if v.ndim != self.ndim or v.shape[-1] == 0:
            raise ValueError(f"{type(self).__name__}: {self.ndim}-D, got shape {v.shape}")
        if not np.isfinite(v).all():
            raise ValueError("pgvector refuses NaN and infinite values")
        self.values = v


class Vector(Vectors):
    ndim = 1


def _rows(v: np.ndarray, with_length: bool) -> bytes:
    n, d = v.shape
    fields = [("dim", ">i2"), ("unused", ">i2"), ("x", ">f4", (d,))]
    rec = np.zeros(n, dtype=[("len", ">i4"), *fields] if with_length else fields)
    if with_length:
        rec["len"] = 4 + 4 * d
    rec["dim"] = d
    rec["x"] = v
    return rec.tobytes()


def register(conn) -> None:
    """Teach a psycopg connection to send :class:`Vectors` (the vector extension must exist in its database)."""
    from psycopg.adapt import Dumper
    from psycopg.pq import Format

    row = conn.execute("SELECT t.oid, t.typarray FROM pg_type t JOIN pg_depend d ON d.objid = t.oid AND d.classid = "
                       "'pg_type'::regclass AND d.deptype = 'e' JOIN pg_extension e ON e.oid = d.refobjid "
                       "WHERE t.typname = 'vector' AND e.extname = 'vector'").fetchone()
    if row is None:
        raise RuntimeError("the vector extension (pgvector) is not installed in this database")
    vector_oid, array_oid = int(row[0]), int(row[1])

    class VectorDumper(Dumper):
        format = Format.BINARY
        oid = vector_oid

        def dump(self, obj):
            return _rows(obj.values[None, :], with_length=False)

    class VectorsDumper(Dumper):
        format = Format.BINARY
        oid = array_oid

        def dump(self, obj):
            head = np.array([1, 0, vector_oid, len(obj.values), 1], dtype=">i4").tobytes()
            return head + _rows(obj.values, with_length=True)

    conn.adapters.register_dumper(Vector, VectorDumper)
    conn.adapters.register_dumper(Vectors, VectorsDumper)
