"""The results store of `mote explore` (`--store FILE`, results.sqlite in the --out directory by
default): every point the cost model costed and every CPU workload the virtual platform ran, so a
re-run, an extended sweep or a search that revisits a point computes only what is new.

A point's key: the model file's SHA-256, the accelerator and its whole configuration (every setting,
typed: a setting left at its default and the same value given, 512KiB or 524288, are one point), mote's
version and SCHEMA (raise it when a row's meaning changes). A CPU workload's key:
its cpu_work key (mote.explore.evaluate), the model file's hash, mote's version and SCHEMA. Values
are the rows as JSON. One SQLite file (the standard library's sqlite3), written by this process only.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from functools import lru_cache
from pathlib import Path
from typing import Any

from mote import __version__
from mote.accel.loader import accelerator_class
from mote.accel.settings import SettingSpec, parse_value, settings_of
from mote.errors import MoteError
from mote.outputs import OutputError
from mote.sim.platforms import Platform

SCHEMA = 2  # 2: rows of sub-byte weight modes (weight_bytes, accuracy columns)
_FILE_HASHES: dict[str, str] = {}


def file_hash(path: str) -> str:
    if path not in _FILE_HASHES:
        _FILE_HASHES[path] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return _FILE_HASHES[path]


@lru_cache(maxsize=64)
def _configuration(accel: str) -> tuple[str, dict[str, SettingSpec], dict[str, Any]]:
    """The accelerator's name, its settings and their values before a point's: defaults, then `accel`'s own."""
    cls, fixed = accelerator_class(accel)
    specs = {s.name: s for s in settings_of(cls.Config)}
    values: dict[str, Any] = {name: spec.default for name, spec in specs.items()}
    for item in filter(None, (part.strip() for part in fixed.split(","))):
        key, _, text = item.partition("=")
        values[key.strip()] = parse_value(specs[key.strip()], text, f"--accel {accel}")
    return cls.name, specs, values


def as_point(row: dict[str, Any], accel: str | None, settings: dict[str, str]) -> dict[str, Any]:
    """A stored row as the row of the point `settings`: the same configuration, perhaps written otherwise
    or with other keys swept, so the row's setting columns are this point's (typed, in its order)."""
    if accel is None:  # no accelerator: no settings
        return dict(row)
    _, specs, _ = _configuration(accel)
    try:
        point = {k: parse_value(specs[k], v, "--sweep") for k, v in settings.items()}
    except (KeyError, MoteError):
        point = dict(settings)
    rest = {k: v for k, v in row.items() if k not in specs and k != "model"}
    return {"model": row["model"], **point, **rest}


def configuration(accel: str, settings: dict[str, str]) -> tuple[str, list[tuple[str, Any]]]:
    """The accelerator's name and every setting's typed value at a point (its texts if they do not parse:
    such a point fails, and is stored as failed under its texts)."""
    name, specs, values = _configuration(accel)
    try:
        point = {k: parse_value(specs[k], v, "--sweep") for k, v in settings.items()}
    except (KeyError, MoteError):
        return accel, sorted(settings.items())
    return name, sorted({**values, **point}.items())


def point_key(model: str, accel: str | None, settings: dict[str, str], platform: Platform | None = None) -> str:
    """The key of a point: the model file, the accelerator's whole configuration (none: no accelerator) and the
    platform its CPU work runs on (its description, which the derived platforms' values are part of)."""
    config = configuration(accel, settings) if accel is not None else ("none", [])
    text = json.dumps([SCHEMA, __version__, file_hash(model), *config, repr(platform)])
    return hashlib.sha256(text.encode()).hexdigest()


def cpu_key(model: str, work: str) -> str:
    return hashlib.sha256(json.dumps([SCHEMA, __version__, file_hash(model), work]).encode()).hexdigest()


class Store:
    """Rows by key in one SQLite file; counts what it answered and what was added while open."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._db = sqlite3.connect(path)
            self._db.execute("CREATE TABLE IF NOT EXISTS points (key TEXT PRIMARY KEY, row TEXT NOT NULL)")
            self._db.execute("CREATE TABLE IF NOT EXISTS cpu (key TEXT PRIMARY KEY, result TEXT NOT NULL)")
            self._db.commit()
        except sqlite3.Error as e:
            raise OutputError(f"--store {path}: cannot open it as an SQLite results store ({e}); give another "
                              "file or delete this one") from None
        self.reused = {"points": 0, "cpu": 0}
        self.added = {"points": 0, "cpu": 0}

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _get(self, table: str, keys: list[str]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        column = "row" if table == "points" else "result"
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            query = f"SELECT key, {column} FROM {table} WHERE key IN ({','.join('?' * len(chunk))})"
            found.update((k, json.loads(v)) for k, v in self._db.execute(query, chunk))
        self.reused[table] += len(found)
        return found

    def _put(self, table: str, items: dict[str, Any]) -> None:
        self._db.executemany(f"INSERT OR REPLACE INTO {table} VALUES (?, ?)",
                             [(k, json.dumps(v)) for k, v in items.items()])
        self._db.commit()
        self.added[table] += len(items)

    def points(self, keys: list[str]) -> dict[str, dict[str, Any]]:
        """The stored rows among `keys` (each with its cpu_work key)."""
        return self._get("points", keys)

    def add_points(self, rows: dict[str, dict[str, Any]]) -> None:
        self._put("points", rows)

    def cpu(self, keys: list[str]) -> dict[str, dict[str, Any] | str]:
        """The stored CPU results among `keys`: cycles and energy, or why the run failed."""
        return self._get("cpu", keys)

    def add_cpu(self, results: dict[str, dict[str, Any] | str]) -> None:
        self._put("cpu", results)

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM points").fetchone()[0])
