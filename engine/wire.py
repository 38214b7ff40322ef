"""One JSON form for every wire value (actions, events): ``{"type": ..., field: value}``."""
from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any, Callable, Mapping, TypeVar

from engine.cards import Bean
from engine.quoting import WireError, quote

T = TypeVar("T")


def to_json(value: Any) -> dict[str, Any]:
    """The JSON form of a wire dataclass (its ``TYPE`` plus its fields)."""
    out: dict[str, Any] = {"type": value.TYPE}
    for name, as_is in _encoding(type(value)):
        field = getattr(value, name)
        out[name] = field if as_is else _plain(field)
    return out


_ENCODINGS: dict[type, tuple[tuple[str, bool], ...]] = {}
_AS_IS = (int, str, bool, type(None))


def _encoding(cls: type) -> tuple[tuple[str, bool], ...]:
    """Each field's name, and whether its hint says its value is already JSON (int, str, bool, optional)."""
    plan = _ENCODINGS.get(cls)
    if plan is None:
        hints = typing.get_type_hints(cls)
        plan = _ENCODINGS[cls] = tuple((name, _is_plain(hints[name])) for name in _field_names(cls))
    return plan


def _is_plain(hint: Any) -> bool:
    if hint in _AS_IS:
        return True
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    return union and all(a in _AS_IS for a in typing.get_args(hint))


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def from_json(registry: Mapping[str, type[T]], data: object, what: str) -> T:
    """Decode ``data`` into the class its ``type`` names in ``registry``; errors (``WireError``) quote the input,
    and say it briefly too (a bot writes these values: the referee quotes the brief form)."""
    if not isinstance(data, dict):
        raise WireError(f"{what} must be a JSON object, got {data!r}",
                        f"{what} must be a JSON object, got {quote(data)}")
    kind = data.get("type")
    cls = registry.get(kind) if isinstance(kind, str) else None
    if cls is None:
        known = ", ".join(registry)
        raise WireError(f"unknown {what} type {kind!r} in {data!r} (known: {known})",
                        f"unknown {what} type {quote(kind)} (known: {known})")
    fields, names = _plan(cls)
    kwargs: dict[str, Any] = {}
    for name, convert, optional in fields:
        if name not in data:
            if optional:
                continue
            raise WireError(f"{what} {data!r} lacks field {name!r}", f"{what} {kind!r} lacks field {name!r}")
        try:
            kwargs[name] = convert(data[name])
        except (TypeError, ValueError) as exc:  # a converter's message quotes the bad value briefly
            raise WireError(f"{what} {data!r}: field {name!r}: {exc}",
                            f"{what} {kind!r}: field {name!r}: {exc}") from None
    if len(data) > len(kwargs) + 1 and set(data) - names:
        unknown = sorted(map(str, set(data) - names))
        raise WireError(f"{what} {data!r} has unknown fields {unknown!r}",
                        f"{what} {kind!r} has unknown fields {quote(unknown)}")
    return cls(**kwargs)


_Plan = tuple[tuple[tuple[str, Callable[[Any], Any], bool], ...], frozenset[str]]
_PLANS: dict[type, _Plan] = {}


def _plan(cls: type) -> _Plan:
    """How to decode each field of ``cls`` (name, converter, has a default), made once per class."""
    plan = _PLANS.get(cls)
    if plan is None:
        plan = _PLANS[cls] = _make_plan(cls)
    return plan


def _make_plan(cls: type) -> _Plan:
    hints = typing.get_type_hints(cls)
    fields = tuple(
        (f.name, _converter(hints[f.name]),
         f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING)
        for f in dataclasses.fields(cls))
    return fields, frozenset(name for name, _, _ in fields) | {"type"}


_EXACT = {int: "an integer", str: "a string", bool: "true or false"}


def _converter(hint: Any) -> Callable[[Any], Any]:
    """A function checking and converting one JSON value to ``hint`` (int, str, bool, Bean, tuples, optionals)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint in _EXACT:  # int (never a bool), str, bool: the JSON value as it is, of that type
        what = _EXACT[hint]

        def exact(value: Any) -> Any:
            if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
                raise ValueError(f"expected {what}, got {quote(value)}")
            return value
        return exact
    if hint is Bean:
        return Bean.parse
    if origin is tuple:
        item = _converter(args[0])

        def to_tuple(value: Any) -> tuple[Any, ...]:
            if not isinstance(value, list):
                raise ValueError(f"expected a list, got {quote(value)}")
            return tuple(item(v) for v in value)
        return to_tuple
    if origin in (typing.Union, types.UnionType):
        inner = _converter(next(a for a in args if a is not type(None)))
        nullable = type(None) in args

        def to_optional(value: Any) -> Any:
            return None if value is None and nullable else inner(value)
        return to_optional
    raise TypeError(f"no JSON conversion for {hint!r}")
