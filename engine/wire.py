"""One JSON form for every wire value (actions, events): ``{"type": ..., field: value}``."""
from __future__ import annotations

import dataclasses
import enum
import json
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


def to_text(value: Any) -> str:
    """``to_json(value)`` as compact JSON text (``json.dumps(..., separators=(",", ":"))``), written straight from
    the value by a function made once per class; a value whose fields are not of their hinted types is encoded
    from ``to_json``, so the text is the same for any value."""
    writer = _WRITERS.get(type(value))
    if writer is None:
        writer = _WRITERS[type(value)] = _writer(type(value))
    return writer(value)


def _dumps_json(value: Any) -> str:
    return "".join(_C_ENCODE(value, 0)) if _C_ENCODE is not None else _ENCODER.encode(value)


_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
try:  # the C encoder behind _ENCODER.encode, made once
    from _json import encode_basestring_ascii as _quote, make_encoder

    _C_ENCODE: Any = make_encoder(None, _ENCODER.default, _quote, None, ":", ",", False, False, False)
except ImportError:  # pragma: no cover - an interpreter without the accelerator
    from json.encoder import py_encode_basestring_ascii as _quote

    _C_ENCODE = None
_WRITERS: dict[type, Callable[[Any], str]] = {}
#: a bean's JSON text by its value (a string key: an enum member's hash is computed in Python)
_BEAN_TEXT = {b._value_: json.dumps(b.value) for b in Bean}


def _bean_list(beans: tuple[Bean, ...]) -> str:
    return "[" + ",".join([_BEAN_TEXT[b._value_] for b in beans]) + "]"


def _writer(cls: type) -> Callable[[Any], str]:
    """A function writing ``to_json``'s text of a ``cls`` straight from its fields (one f-string), its source made
    from the class's field hints and compiled once, as the ``dataclasses`` module makes ``__init__``. Each field
    must be of its hinted type (exactly int, str, Bean, a tuple of Beans); any other value, or another hint, is
    written by the encoder from ``to_json``."""
    hints = typing.get_type_hints(cls)
    names = _field_names(cls)
    checks, text = [], "{" + f'"type":{_quote(getattr(cls, "TYPE"))}'
    for i, name in enumerate(names):
        hint, var = hints[name], f"v{i}"
        if hint is int or hint is str:
            checks.append(f"{var}.__class__ is {hint.__name__}")
            expr = var if hint is int else f"_quote({var})"
        elif hint is Bean:
            checks.append(f"{var}.__class__ is Bean")
            expr = f"_BEAN_TEXT[{var}._value_]"
        elif hint == tuple[Bean, ...]:
            checks.append(f"{var}.__class__ is tuple")
            expr = f"_bean_list({var})"
        else:
            expr = f"_dumps_json(_plain({var}))"
        text += f",{_quote(name)}:" + "\0" + expr + "\0"
    text += "}"
    pieces = text.split("\0")  # literal text and expressions, alternating
    literal = "".join(p.replace("{", "{{").replace("}", "}}") if k % 2 == 0 else "{" + p + "}"
                      for k, p in enumerate(pieces))
    source = ("def write(value):\n"
              + "".join(f"    v{i} = value.{name}\n" for i, name in enumerate(names))
              + f"    if {' and '.join(checks) or 'True'}:\n"
              + "        try:\n"
              + f"            return f{literal!r}\n"
              + "        except (AttributeError, KeyError, TypeError):  # a tuple that holds something else\n"
              + "            pass\n"
              + "    return _dumps_json(to_json(value))\n")
    scope: dict[str, Any] = {"Bean": Bean, "_BEAN_TEXT": _BEAN_TEXT, "_quote": _quote, "_dumps_json": _dumps_json,
                             "_plain": _plain, "_bean_list": _bean_list, "to_json": to_json}
    exec(compile(source, f"<text writer of {cls.__name__}>", "exec"), scope)  # noqa: S102 - source made here
    writer: Callable[[Any], str] = scope["write"]
    return writer


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
