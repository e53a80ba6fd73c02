"""Scene graphs as ASP facts, the form the theory reads.

A scene file is GQA scene-graph JSON (one graph, or graphs keyed by image id) or ASP facts as
they are (e.g. GS-VQA's encodings).  A graph object becomes ``object/1``, its name and the
name's ontology ancestors as ``has_attr(O, class, C)``, ``has_attr(O, name, N)``, each
attribute under every category the ontology gives it (``any`` when none does),
``hposition``/``vposition`` from the centre of its box in thirds of the image, ``has_rel/3`` and
``has_obj_weight/2``; further classes an object answers to besides its name (its ``"classes"``:
a photo's subject is GQA's deictic ``this``) as its name's are; the text an object shows (a
photo's words, its ``"text"``) as ``has_text(O, T)``, which the theory does not read but the
text operations' documents take in (`qlang.asp.background`).

An uncertain scene is the same JSON with confidences: an object's ``"confidence"``, and
attributes and relations written ``{"value": "white", "confidence": 0.86}`` /
``{"name": "on", "object": "o1", "confidence": 0.7}``.  A fact with confidence p < 1 becomes a
choice priced as in the seed thesis's Listing 17: -1000 ln p if it holds, -1000 ln (1-p) if
not, so the solver's optimum is the likeliest scene in which the question has an answer.
Every word goes through `to_term`, so no scene can inject rules into the program.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from typing import Any

import clingo

from qlang.asp import facts
from qlang.asp_names import to_term
from qlang.errors import QlangError, Source, Span, UnsupportedOperation, error, shown
from qlang.integers import is_digits
from qlang.jsontext import loads
from qlang.ontology import ANY_CATEGORY, CLASS_CATEGORIES, load, suggestions

#: Weights are -1000 ln p, as in GS-VQA, so that costs are integers.
SCALE = 1000
#: Encoded scenes kept per library, oldest dropped first (a batch may visit every GQA image).
KEEP = 256
_THIRDS = {"hposition": ("left", "middle", "right"), "vposition": ("top", "middle", "bottom")}


class SceneError(QlangError):
    """The scene file is unreadable, malformed, or lacks the image asked for."""


def weight(p: float) -> int:
    """The cost of a fact of probability p: -1000 ln p (0 for a certain fact).

    >>> weight(0.5), weight(1.0)
    (693, 0)
    """
    return round(-SCALE * math.log(p))


@cache
def domain() -> str:
    """The value domain the thesis's choice rules choose from (theory/semantics/thesis.lp): GQA's
    attribute categories and their values as ``is_attr/1`` and ``is_attr_value/2``; qlang's own
    categories (positions, ``location``, ``any``) and the class-valued ones are none of them.

    >>> "is_attr_value(color, white)." in domain().splitlines()
    True
    """
    own = {ANY_CATEGORY, *CLASS_CATEGORIES, *_THIRDS, "location"}
    categories = {c: vs for c, vs in load().categories.items() if c not in own}
    return "\n".join([*(f"is_attr({to_term(c)})." for c in sorted(categories)),
                      *(f"is_attr_value({to_term(c)}, {to_term(v)})."
                        for c, vs in sorted(categories.items()) for v in sorted(vs))])


class SceneLibrary:
    """A scene file, read once; each image's facts are encoded on first use and kept."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self._asp: str | None = None
        self._graphs: dict[str | None, Any] = {}
        self._encoded: dict[str | None, str] = {}
        text = source.text.removeprefix("\ufeff")  # a byte-order mark says nothing
        if not text.lstrip().startswith(("{", "[")):
            problem = facts.problem(text)
            if problem is not None:
                raise error(SceneError, "scene", f"invalid ASP scene: {problem[0]}", problem[1], source)
            self._asp = text
            return
        try:
            data = loads(text)
        except json.JSONDecodeError as exc:
            span = Span(exc.lineno, exc.colno, exc.lineno, exc.colno + 1)
            raise error(SceneError, "scene", f"malformed scene JSON: {exc.msg}", span, source) from None
        if not isinstance(data, dict):
            raise error(SceneError, "scene", "a scene file is a JSON object", Span(1, 1, 1, 2), source)
        if "objects" in data:
            self._graphs[None] = data
        elif all(isinstance(graph, dict) and "objects" in graph for graph in data.values()):
            self._graphs.update(data)
        else:
            raise error(SceneError, "scene", "the scene has no 'objects' map, nor is it a map of "
                        "scene graphs by image id", Span(1, 1, 1, 2), source)

    @property
    def image_ids(self) -> list[str]:
        return [key for key in self._graphs if key is not None]

    def graph(self, image_id: str | None = None) -> Any:
        """The GQA scene graph of `image_id` as read (None for a scene given as ASP facts)."""
        return None if self._asp is not None else self._graphs[self._key(image_id)]

    def facts(self, image_id: str | None = None) -> str:
        """The ASP facts of the scene of `image_id` (any, if the file holds only one)."""
        if self._asp is not None:
            return self._asp
        key = self._key(image_id)
        if key not in self._encoded:
            if len(self._encoded) >= KEEP:
                del self._encoded[next(iter(self._encoded))]
            self._encoded[key] = _Encoder(self.source, key).graph(self._graphs[key])
        return self._encoded[key]

    def _key(self, image_id: str | None) -> str | None:
        if None in self._graphs:
            return None
        if image_id is None:
            if len(self._graphs) == 1:
                return next(iter(self._graphs))
            raise error(SceneError, "scene",
                        f"the scene file holds {len(self._graphs)} scenes; name one (an image id)",
                        source=self.source)
        if image_id not in self._graphs:
            near = suggestions(image_id, frozenset(self.image_ids))
            scenes = "1 scene" if len(self._graphs) == 1 else f"{len(self._graphs)} scenes"
            hint = f"did you mean {', '.join(near)}?" if near else f"it has {scenes}"
            raise error(SceneError, "scene", f"image {shown(image_id)} is not in the scene file",
                        source=self.source, hint=hint)
        return image_id


def encode(graph: Any, name: str) -> str:
    """The ASP facts of a scene graph built in memory (a perceived scene), validated as a scene
    file's are; `name` names it in an error."""
    return _Encoder(Source("", name), None).graph(graph)


class _Encoder:
    """Encodes one graph; knows where it is in the file, to point errors at the right line."""

    def __init__(self, source: Source, image_id: str | None) -> None:
        self.source = source
        self.where = f"scene {image_id}" if image_id is not None else "scene"
        self.ontology = load()
        self.lines: list[str] = []

    def fail(self, message: str, key: str | None) -> SceneError:
        span = _locate(self.source.text, key) if key is not None else None
        return error(SceneError, "scene", f"{self.where}: {message}", span, self.source)  # type: ignore[return-value]

    def graph(self, graph: Any) -> str:
        if not isinstance(graph, dict) or not isinstance(graph.get("objects"), dict):
            raise self.fail("a scene graph is an object with an 'objects' map", None)
        size = (self.number(graph, "width", None), self.number(graph, "height", None))
        objects: dict[str, Any] = graph["objects"]
        for oid, obj in objects.items():
            if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
                raise self.fail(f"object {oid} needs a 'name'", oid)
            try:
                self.object(oid, obj, size, objects)
            except UnsupportedOperation as exc:  # a word ASP cannot spell: the scene's, not the program's
                raise self.fail(f"object {oid}: {exc.diagnostics[0].message}", oid) from None
        return "\n".join(self.lines)

    def object(self, oid: str, obj: dict[str, Any], size: tuple[float, float],
               objects: dict[str, Any]) -> None:
        o = _object_term(oid)
        name = obj["name"]
        self.lines.append(f"object({o}).")
        self.lines.append(f"has_obj_weight({o}, {weight(self.confidence(obj, oid))}).")
        self.emit(f"has_attr({o}, name, {to_term(name)})", 1.0)
        text = obj.get("text")
        if text is not None:
            if not isinstance(text, str):
                raise self.fail(f"object {oid}: 'text' must be a string", oid)
            self.lines.append(f"has_text({o}, {to_term(text)}).")
        named = [name, *self.strings(obj, "classes", oid)]
        for cls in dict.fromkeys(c for n in named for c in (n, *self.ontology.ancestors(n))):
            self.emit(f"has_attr({o}, class, {to_term(cls)})", 1.0)
        box = [self.number(obj, k, oid) for k in ("x", "y", "w", "h")]
        for axis, start, extent, total in (("hposition", box[0], box[2], size[0]),
                                           ("vposition", box[1], box[3], size[1])):
            centre = (start + extent / 2) / total  # finite parts may still overflow to ±inf
            third = (centre >= 1 / 3) + (centre >= 2 / 3)
            self.emit(f"has_attr({o}, {axis}, {_THIRDS[axis][third]})", 1.0)
        for item in self.items(obj, "attributes", oid):
            value = item if isinstance(item, str) else item.get("value") if isinstance(item, dict) else None
            if not isinstance(value, str):
                raise self.fail(f"object {oid}: an attribute is a string or has a 'value'", oid)
            p = 1.0 if isinstance(item, str) else self.confidence(item, oid)
            for category in self.ontology.category_of(value) or [ANY_CATEGORY]:
                self.emit(f"has_attr({o}, {to_term(category)}, {to_term(value)})", p)
        for rel in self.items(obj, "relations", oid):
            if not isinstance(rel, dict) or not isinstance(rel.get("name"), str) \
                    or str(rel.get("object")) not in objects:
                raise self.fail(f"object {oid}: a relation needs a 'name' and an 'object' of the scene", oid)
            target = _object_term(str(rel["object"]))
            self.emit(f"has_rel({o}, {to_term(rel['name'])}, {target})", self.confidence(rel, oid))

    def emit(self, atom: str, p: float) -> None:
        """A certain fact, or a choice priced both ways (Listing 17) and marked uncertain."""
        if p >= 1.0:
            self.lines.append(f"{atom}.")
            return
        self.lines += [f"{{ {atom} }}.", f"uncertain({atom}).",
                       f":~ {atom}. [{weight(p)}, holds, {atom}]",
                       f":~ not {atom}. [{weight(1.0 - p)}, fails, {atom}]"]

    def items(self, obj: dict[str, Any], key: str, oid: str) -> list[Any]:
        items = obj.get(key, [])
        if not isinstance(items, list):
            raise self.fail(f"object {oid}: '{key}' must be a list", oid)
        return items

    def strings(self, obj: dict[str, Any], key: str, oid: str) -> list[str]:
        items = self.items(obj, key, oid)
        if not all(isinstance(item, str) for item in items):
            raise self.fail(f"object {oid}: '{key}' must be a list of strings", oid)
        return items

    def number(self, obj: dict[str, Any], key: str, oid: str | None) -> float:
        value = obj.get(key)
        number = _finite(value)
        if number is None or (key in ("width", "height") and number <= 0):
            owner = f"object {oid}" if oid is not None else "the scene"
            positive = "positive " if oid is None else ""
            raise self.fail(f"{owner}: '{key}' must be a {positive}number, not "
                            f"{shown(json.dumps(value))}", oid)
        return number

    def confidence(self, item: dict[str, Any], oid: str) -> float:
        p = _finite(item.get("confidence", 1.0))
        if p is None or not 0 < p <= 1:
            raise self.fail(f"object {oid}: a confidence must be a number in (0, 1], not "
                            f"{shown(json.dumps(item.get('confidence')))}", oid)
        return p


def _finite(value: object) -> float | None:
    """A JSON number as a finite float; None for anything else (NaN, ±inf, 10**400, true)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def object_symbol(oid: str) -> clingo.Symbol:
    """The clingo symbol of an object as the scene spells it (for facts made beside the scene)."""
    return clingo.parse_term(_object_term(oid))


def _object_term(oid: str) -> str:
    """GQA's numeric ids stay integers, as in GS-VQA's encodings, where clingo holds them exactly
    (ASCII digits, 32 bits); any other id is a safe term."""
    integer = is_digits(oid) and len(oid) <= 10 and str(int(oid)) == oid and int(oid) < 2**31
    return oid if integer else to_term(oid)


def _locate(text: str, key: str) -> Span | None:
    """Where the object `key` is defined in the JSON text: a key, not a mere reference."""
    match = re.search(rf'"{re.escape(key)}"\s*:', text)
    if match is None:
        return None
    line = text.count("\n", 0, match.start()) + 1
    column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
    return Span(line, column, line, column + len(key) + 2)
