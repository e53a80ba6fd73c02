"""The fine-tuned translator's prompt: one instruction line and the question, nothing else.

Training (`qlangc train`) and serving (`Translator` with `translator="finetuned"`) build the
prompt here, so the two cannot drift apart.  It is a completion prompt, not a chat template:
llama.cpp and transformers tokenize it the same way, and the model's only job is the program
that follows the last line (then its end-of-sequence token).

>>> print(prompt("Who wears shorts?", "nested"))
Translate the question into a nested program.
Question: Who wears shorts?
Program:
<BLANKLINE>
"""

from __future__ import annotations


def prompt(question: str, syntax: str) -> str:
    question = " ".join(question.split())
    return f"Translate the question into a {syntax} program.\nQuestion: {question}\nProgram:\n"
