"""The design space: which settings of an accelerator a sweep varies and the points it visits.

The accelerator declares its settings (mote.accel.settings: type, allowed values, and the values to
try when a setting is swept without any); a sweep is checked against those declarations before any
point runs, and each point's values keep their declared types (`"pes": 64`, `"timed": true`).
"""

from __future__ import annotations

import itertools
from typing import Any

from mote.accel.loader import accelerator_class
from mote.accel.settings import SettingSpec, parse_config, parse_value, settings_of
from mote.errors import MoteError
from mote.explore.platform_space import PLATFORM_KEYS


def points(sweep: dict[str, list[str]]) -> list[dict[str, str]]:
    """Every combination of the swept values (as text), in the order the keys and values were given."""
    keys = list(sweep)
    return [dict(zip(keys, values)) for values in itertools.product(*(sweep[k] for k in keys))]


def spec(accel: str, settings: dict[str, str]) -> str:
    """`accel` with a point's settings appended (after its own settings, if it has some)."""
    if not settings:
        return accel
    joiner = "," if "=" in accel.rsplit(":", 1)[-1] else ":"
    return accel + joiner + ",".join(f"{k}={v}" for k, v in settings.items())


def value_text(value: Any) -> str:
    """A typed setting value as text its setting parses back to the same value."""
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def check_sweep(accel: str, sweep: dict[str, list[str]]) -> dict[str, list[str]]:
    """The sweep with each key given without values filled in from the accelerator's declared sweep
    values, after checking that every key is a setting of the accelerator's Config and every value
    parses to that setting's type (and passes the Config's own checks): a typo fails at once, not per
    point."""
    cls, fixed = accelerator_class(accel)
    specs = {s.name: s for s in settings_of(cls.Config)}
    fixed_keys = {item.partition("=")[0].strip() for item in fixed.split(",")}
    checked: dict[str, list[str]] = {}
    for key, values in sweep.items():
        if key not in specs:
            raise MoteError(f"--sweep {key}: {cls.name} has no setting {key!r}; its settings are "
                            f"{', '.join(specs) or 'none'} (and the platform's: {', '.join(PLATFORM_KEYS)})")
        if key in fixed_keys:
            raise MoteError(f"--sweep {key}: also set in --accel {accel}; give it in one place")
        if not values:
            values = _declared_values(cls.name, specs[key])
        for value in values:
            parse_config(cls.Config, ",".join(filter(None, [fixed, f"{key}={value}"])), f"--sweep {key}")
        checked[key] = list(values)
    return checked


def _declared_values(accelerator: str, setting: SettingSpec) -> list[str]:
    if not setting.sweep:
        raise MoteError(f"--sweep {setting.name}: {accelerator} declares no values to sweep it over; "
                        f"give them (e.g. {setting.name}={value_text(setting.default)},...)")
    return [value_text(v) for v in setting.sweep]


def typed(accel: str, settings: dict[str, str]) -> dict[str, Any]:
    """A point's settings with the types the accelerator declares for them (checked by check_sweep)."""
    cls, _ = accelerator_class(accel)
    specs = {s.name: s for s in settings_of(cls.Config)}
    return {k: parse_value(specs[k], v, f"--sweep {k}") for k, v in settings.items()}


def size_settings(accel: str) -> set[str]:
    """The names of the accelerator's settings that are byte sizes (shown as 512KiB rather than 524288)."""
    cls, _ = accelerator_class(accel)
    return {s.name for s in settings_of(cls.Config) if s.size}
