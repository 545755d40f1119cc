"""An accelerator's settings: its Config dataclass, with each field declared by `setting(...)`.

    @dataclass(frozen=True)
    class MyConfig:
        pes: int = setting(64, doc="processing elements", minimum=1, sweep=(16, 32, 64))
        sram: int = setting(256 << 10, doc="bytes of local memory", size=True, sweep=(64 << 10, 256 << 10))
        timed: bool = setting(False, doc="add the cost model's cycles to the run")

The annotation is the type (`pes=64K` is an error: only `size=True` settings take units); `choices`
limits the values; `sweep` is what `mote explore` tries when asked to sweep the setting without values.
`mote --accel name:pes=32,timed=1` parses them with `parse_config`; a bad one fails before any work.
The machinery is the base layer's (mote.config), shared with `--core`.
"""

from mote.config import SettingSpec, check_config, parse_config, parse_value, setting, settings_of

__all__ = ["SettingSpec", "check_config", "parse_config", "parse_value", "setting", "settings_of"]
