"""Where documents come from: the names ``--docs`` takes, as ``--kb`` takes knowledge.

A documents file (`qlang.text.documents`), ``default`` for the bundled glosses
(`qlang.text.glosses`), or ``none``; none given is ``default``.  (``./default`` names a file
called ``default``.)
"""

from __future__ import annotations

from collections.abc import Sequence

from qlang.text import glosses
from qlang.text.documents import Documents, read

DEFAULT, NONE = "default", "none"


def documents(specs: Sequence[str] = ()) -> Documents:
    """The documents of the names given (none: the bundled glosses), in the order given;
    raises `DocumentsError` at a file's first bad line."""
    found = Documents()
    for spec in specs or [DEFAULT]:
        if spec == DEFAULT:
            found += Documents(glosses.glosses())
        elif spec != NONE:
            found += Documents(read(spec))
    return found
