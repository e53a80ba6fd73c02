"""Rules: Horn rules with negation as failure over a scene and knowledge, in qlang's own syntax.

A rules file (grammars/rules.lark; examples/athlete.rules) derives classes, attribute values
and relations that programs then use as they use the scene's.  Each statement ends in ``.``;
``#`` starts a comment; words are spelled as in programs (``to_the_left_of`` or ``"to the
left of"``); variables start with a capital letter, and ``_`` is a variable of its own at
each place it stands.

- ``class(X, C)``: object X is of class C (or of a class under C, as in the scene);
  ``attr(X, A, V)``: X has value V of attribute category A (``class(X, C)`` is
  ``attr(X, class, C)``); ``rel(X, R, Y)``: X is R of Y; ``know(H, R, T)``: a knowledge
  triple, R one of ConceptNet's relations (``used_for``), H and T any words.
- A rule is ``HEAD :- LITERAL, ....``: a head of ``class``, ``attr`` or ``rel``; a body of
  literals, each an atom, ``not`` an atom (negation as failure: the atom cannot be derived),
  or ``X != Y``.  Objects are always variables (a rules file holds in every scene).
- New words are declared: ``class a, b.``, ``rel r.``, ``attr category: value, value.`` (a
  new category, or new values of a known one).

    attr style: sporty, formal.
    class(X, athlete) :- class(X, person), rel(X, wearing, Y), class(Y, shorts).
    attr(Y, style, formal) :- class(Y, clothing), not attr(Y, style, sporty).

`read` parses and checks a file (`qlang.rules.check`: vocabulary, sorts, safety and
stratified negation, every problem located); the rules mean their stratified model
(`qlang.interpret.rules` computes it in Python); `qlang.rules.statements` lowers them into
clingo structures beside the theory, which stays as it is.
"""

from qlang.rules.check import DeclaredWords, Rules, read

__all__ = ["DeclaredWords", "Rules", "read"]
