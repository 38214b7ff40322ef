"""One JSON form for every wire value (actions, events): ``{"type": ..., field: value}``."""
from __future__ import annotations

import dataclasses
import enum
import typing
from functools import cache
from typing import Any, Mapping, TypeVar

from engine.cards import Bean

T = TypeVar("T")


def to_json(value: Any) -> dict[str, Any]:
    """The JSON form of a wire dataclass (its ``TYPE`` plus its fields)."""
    out: dict[str, Any] = {"type": value.TYPE}
    for name in _field_names(type(value)):
        out[name] = _plain(getattr(value, name))
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def from_json(registry: Mapping[str, type[T]], data: object, what: str) -> T:
    """Decode ``data`` into the class its ``type`` names in ``registry``; errors quote the input."""
    if not isinstance(data, dict):
        raise ValueError(f"{what} must be a JSON object, got {data!r}")
    kind = data.get("type")
    cls = registry.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown {what} type {data.get('type')!r} in {data!r} (known: {', '.join(registry)})")
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
                continue
            raise ValueError(f"{what} {data!r} lacks field {f.name!r}")
        try:
            kwargs[f.name] = _convert(hints[f.name], data[f.name])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{what} {data!r}: field {f.name!r}: {exc}") from None
    extra = set(data) - set(kwargs) - {"type"} - {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    if extra:
        raise ValueError(f"{what} {data!r} has unknown fields {sorted(extra)!r}")
    return cls(**kwargs)


def _convert(hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected an integer, got {value!r}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise ValueError(f"expected a string, got {value!r}")
        return value
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, got {value!r}")
        return value
    if hint is Bean:
        return Bean.parse(value)
    if origin is tuple:
        if not isinstance(value, list):
            raise ValueError(f"expected a list, got {value!r}")
        return tuple(_convert(args[0], v) for v in value)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _convert(inner[0], value)
    raise TypeError(f"no JSON conversion for {hint!r}")
