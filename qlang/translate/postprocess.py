"""Clean-up of unconstrained model output (seed thesis §3.1.1), before it is parsed.

Models wrap programs in markdown fences, put prose before them and keep writing after them
(a completion model invents the next question).  `clean` removes the fence markers, drops what
comes before the program and cuts where the program ends, as the syntax's `Extent`
(`qlang.syntax.extent`) says.

It is a pure function on any string, never raises, and cleaning twice changes nothing.  Text in
which no program starts is returned stripped, for the parser to report.
"""

from __future__ import annotations

import re

from qlang.syntax import SYNTAXES

#: a fence marker: three backticks, with a language tag when one ends the marker's word
_FENCE = re.compile(r"```[\w+-]*(?=\s|$)|```")


def clean(text: str, syntax: str) -> str:
    """The program in a model's `text`, for `syntax` (one of `qlang.SYNTAXES`).

    >>> clean("Sure! Here it is:\\n```asp\\nexist(select(scene(), car))\\n```\\nHope it helps.",
    ...       "nested")
    'exist(select(scene(), car))'
    """
    extent = SYNTAXES[syntax].extent
    text = _FENCE.sub("", text)
    first = extent.start.search(text)
    if first is None:
        return text.strip()
    start = first.start()
    while extent.enclosing is not None and (outer := extent.enclosing.search(text, 0, start)):
        start = outer.start()
    return extent.cut(text[start:]).strip()
