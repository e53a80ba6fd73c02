"""Prompts: the seed thesis's versions (Appendix 7.1), filled with examples, chat or completion.

A version is a system prompt and a user template with ``{examples}`` and ``{question}``.  The
texts are the thesis's verbatim; only the line breaks its PDF extraction lost are restored, with
``{examples}`` and ``{question}`` each on its own line as in its Listing 7.  The default is
``gqa`` for the GQA syntaxes and ``v6`` for the ASP ones: v6 is the version of the thesis's real
GPT-4o runs (column ``prompt_version`` of ``shared/data/llm_outputs``).

Chat models get the system prompt and the filled template as two messages.  Completion models
get no role (thesis §3.1.1): the prompt is a list of question/program pairs whose last program
is missing, so the model's most likely continuation is that program.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from qlang.syntax import SYNTAXES
from qlang.translate.examples import Example


@dataclass(frozen=True, slots=True)
class Version:
    system: str
    #: the user message, with ``{examples}`` and ``{question}``
    template: str


_GQA_SYSTEM = ("You are now a question parser. Your task is to translate a question into a "
               "functional program.\nThe available operations are: select, relate, common, verify, "
               "choose, filter, query, same, different, and, or, exist.")
_V1_SYSTEM = ("You are now a question parser. Your task is to translate a question into an Answer "
              "Set Program.\nThe available operations are: scene, end, select, relate, query, "
              "verify_rel, choose_attr, choose_rel, exist, all_same, all_different, two_same, "
              "two_different, and, or, unique, negate.")
_PLAIN = "Here are examples of question and corresponding programs:\n{examples}\n{question}"
_TASK = "\nYour task is to convert the given question into an ASP program."
_LOOK = ("Look at these examples of questions and their corresponding ASP programs:\n{examples}\n"
         "Translate the following question into an ASP program:\n{question}")
_CAN_YOU = ("Here are some examples of questions and their corresponding ASP programs:\n{examples}\n"
            "Can you translate the following question into an ASP program?\n{question}")
_TO_HELP = ("Here are some examples of questions and their corresponding ASP programs to help you "
            "understand the task:\n{examples}\nNow, translate the following question into an ASP "
            "program:\n{question}")

VERSIONS: dict[str, Version] = {
    "gqa": Version(_GQA_SYSTEM, _PLAIN),
    "v1": Version(_V1_SYSTEM, _PLAIN),
    "v2": Version("Imagine you are a translator between human language and a programming language "
                  "called Answer Set Programming (ASP).\nYour task is to convert questions into ASP "
                  "code.",
                  "To help you understand the task, here are some examples of questions and their "
                  "corresponding ASP programs:\n{examples}\nNow, try to translate the following "
                  "question into an ASP program:\n{question}"),
    "v3": Version("You are now a question parser. Your task is to translate a question into an "
                  "Answer Set Program.",
                  "Consider the following examples of questions and their corresponding ASP "
                  "programs:\n{examples}\nBased on these examples, translate the following question "
                  "into an ASP program:\n{question}"),
    "v4": Version("As an AI, you have the ability to understand human language and translate it "
                  "into Answer Set Programming (ASP)." + _TASK, _CAN_YOU),
    "v5": Version("You are an AI language translator. Your job is to take a question and translate "
                  "it into an Answer Set Program.", _LOOK),
    "v6": Version("You are an AI that can understand human language and convert it into Answer Set "
                  "Programming (ASP).\nYour task is to translate the given question into an ASP "
                  "program.", _TO_HELP),
    "v7": Version("Imagine you are an AI that can understand human language and translate it into a "
                  "programming language called Answer Set Programming (ASP)." + _TASK,
                  "Consider these examples of questions and their corresponding ASP programs:\n"
                  "{examples}\nTranslate the following question into an ASP program:\n{question}"),
    "v8": Version("You are an AI that can translate human language into Answer Set Programming "
                  "(ASP)." + _TASK, _CAN_YOU),
    "v9": Version("As an AI, you have the ability to understand human language and translate it "
                  "into a programming language called Answer Set Programming (ASP)." + _TASK, _LOOK),
    "v10": Version("You are an AI that can understand human language and convert it into a "
                   "programming language called Answer Set Programming (ASP).\nYour task is to "
                   "translate the given question into an ASP program.", _TO_HELP),
}

#: the version used when none is asked for, per syntax
DEFAULT_VERSION: dict[str, str] = {name: "gqa" if name.startswith("gqa") else "v6" for name in SYNTAXES}

#: what precedes each program in a completion prompt; the prompt ends with it
CUE = "Program:"

#: Gemma 3's chat template (its tokenizer_config.json's, for text messages): Gemma has no
#: system role, so the system prompt opens the first user turn; the assistant is ``model``.
GEMMA3_TEMPLATE = (
    "{{ bos_token }}"
    "{% if messages[0]['role'] == 'system' %}"
    "{% set prefix = messages[0]['content'] + '\n\n' %}{% set turns = messages[1:] %}"
    "{% else %}{% set prefix = '' %}{% set turns = messages %}{% endif %}"
    "{% for message in turns %}"
    "{{ '<start_of_turn>' + ('model' if message['role'] == 'assistant' else message['role']) + '\n' }}"
    "{{ prefix if loop.first else '' }}{{ message['content'] | trim }}{{ '<end_of_turn>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<start_of_turn>model\n' }}{% endif %}"
)
#: Chat templates for model families whose GGUF files may lack one, by `general.architecture`.
CHAT_TEMPLATES = {"gemma3": GEMMA3_TEMPLATE}


@dataclass(frozen=True, slots=True)
class Prompt:
    """One prompt in both forms; the backend sends the one its model is made for."""

    question: str
    #: (role, content) pairs: the system prompt, the filled template, then any repair turns
    messages: tuple[tuple[str, str], ...]
    completion: str


def render_examples(examples: Sequence[Example], syntax: str) -> str:
    """Each example as its question line followed by its program in `syntax` (Listing 7)."""
    printer = SYNTAXES[syntax].print
    return "\n".join(f"{e.question}\n{printer(e.root)}" for e in examples)


def build_prompt(version: str | None, syntax: str, examples: Sequence[Example], question: str) -> Prompt:
    """The prompt for `question` with `examples` shown in `syntax` (version None: the default).

    >>> from qlang.ir import op
    >>> dish = Example("1", "What is the dish made of?",
    ...                op("query", op("unique", op("select", op("scene"), "dish")), "material"))
    >>> prompt = build_prompt(None, "nested", [dish], "Is there a green car?")
    >>> print(prompt.messages[1][1])
    Here are some examples of questions and their corresponding ASP programs to help you understand the task:
    What is the dish made of?
    query(unique(select(scene(), dish)), material)
    Now, translate the following question into an ASP program:
    Is there a green car?
    >>> print(prompt.completion)
    Question: What is the dish made of?
    Program: query(unique(select(scene(), dish)), material)
    <BLANKLINE>
    Question: Is there a green car?
    Program:
    """
    name = DEFAULT_VERSION[syntax] if version is None else version
    if name not in VERSIONS:
        raise ValueError(f"unknown prompt version {name!r} (one of {', '.join(VERSIONS)})")
    chosen = VERSIONS[name]
    user = chosen.template.format(examples=render_examples(examples, syntax), question=question)
    printer = SYNTAXES[syntax].print
    pairs = [_completion_pair(e.question, printer(e.root)) for e in examples]
    completion = "\n\n".join([*pairs, _completion_pair(question, "")]).rstrip()
    return Prompt(question, (("system", chosen.system), ("user", user)), completion)


def with_repair(prompt: Prompt, answer: str, message: str) -> Prompt:
    """`prompt` extended with the model's failed `answer` and the checker's `message` about it.

    A chat model sees its answer as its own turn and the error as the user's reply; a completion
    model sees the answer completed, the error, and the question asked again.
    """
    retry = (f"Your previous answer failed: {message}\n"
             f"Answer again with only the corrected program for the question:\n{prompt.question}")
    messages = (*prompt.messages, ("assistant", answer), ("user", retry))
    completion = (f"{prompt.completion} {answer}\nThis program failed: {message}\n\n"
                  f"{_completion_pair(prompt.question, '')}").rstrip()
    return Prompt(prompt.question, messages, completion)


def _completion_pair(question: str, program: str) -> str:
    return f"Question: {question}\n{CUE} {program}"
