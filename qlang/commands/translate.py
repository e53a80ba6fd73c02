"""`qlangc translate` and `qlangc grammar`: the language-model front end on the command line,
and the translation options `ask` and the experiments share.

Heavy libraries (llama.cpp, torch) load only inside the command that needs them.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

import click

from qlang import limits
from qlang.commands.console import (
    check_output,
    executor_from,
    executor_options,
    fail,
    output_option,
    read_bytes,
    reported,
)
from qlang.errors import Source
from qlang.executors import Executor
from qlang.records.output import Result, holding, writing
from qlang.records.questions import QuestionEntry, read_questions
from qlang.syntax import SYNTAXES
from qlang.translate import batch
from qlang.translate.backends import BACKENDS
from qlang.translate.factory import FACTORIES, Models, make, resolve
from qlang.translate.grammar import GRAMMAR_SYNTAXES
from qlang.translate.translator import ENGINES, Settings, Translation

SAMPLINGS = ("random", "jaccard", "embedding")

_translation_options = (
    click.option("--translator", type=click.Choice(["auto", *FACTORIES]), default="auto",
                 show_default=True, help="small: the bundled small parser (milliseconds); "
                 "finetuned: the bundled fine-tuned model (or --adapter); cascade: small where "
                 "its confidence reaches the threshold, else finetuned; fewshot: a general model "
                 "shown examples; auto: fewshot when --model or --examples is given, else cascade."),
    click.option("--small-model", type=click.Path(exists=True, file_okay=False),
                 help="small/cascade: a small-parser folder (default: the bundled one)."),
    click.option("--cascade-threshold", type=click.FloatRange(0, 1),
                 help="cascade: the small parser's least probability to answer (default: the "
                 "model's calibrated one)."),
    click.option("--beam", type=click.IntRange(1, 64), default=4, show_default=True,
                 help="small/cascade: beam width of the small parser."),
    click.option("--adapter", type=click.Path(dir_okay=False),
                 help="llama-cpp, vllm, transformers: a LoRA adapter for the model, GGUF (vllm, "
                 "transformers: or a PEFT folder); default, finetuned: the bundled one."),
    click.option("--syntax", type=click.Choice(sorted(SYNTAXES)), default="nested", show_default=True,
                 help="The program syntax to translate into."),
    click.option("--backend", type=click.Choice(sorted(BACKENDS)), default="llama-cpp",
                 show_default=True, help="Which LLM backend runs the model."),
    click.option("--model", help="llama-cpp: smollm2 (default), gemma3 or a GGUF path; openai: a "
                 "model name; transformers: a local model directory, or as llama-cpp (dequantised once)."),
    click.option("--base-url", help="openai: the endpoint (default: $OPENAI_BASE_URL)."),
    click.option("--n-gpu-layers", type=int, default=0, show_default=True,
                 help="llama-cpp: layers to offload to the GPU (-1: all; needs a CUDA build)."),
    click.option("--together", is_flag=True,
                 help="llama-cpp: decode a batch's generations together, a step of all of them in "
                 "one batch (faster; a near tie may then fall another way than alone)."),
    click.option("--pool", type=click.Path(exists=True, dir_okay=False),
                 help="GQA question file to draw examples from (default: the shared val pool)."),
    click.option("--examples", "n_examples", type=click.IntRange(min=0),
                 help="fewshot: how many similar examples to show (default 10)."),
    click.option("--sampling", type=click.Choice(SAMPLINGS), default="jaccard", show_default=True,
                 help="How examples are chosen."),
    click.option("--cover-operators", is_flag=True,
                 help="Add examples until every operation appears in one."),
    click.option("--prompt", "prompt_version", help="Prompt version (gqa, v1..v10; default by syntax)."),
    click.option("--constrained/--no-constrained", default=True, show_default=True,
                 help="Grammar-constrained decoding."),
    click.option("--vocabulary/--no-vocabulary", default=True, show_default=True,
                 help="Constrain words to the GQA vocabulary (off: syntax only)."),
    click.option("--engine", type=click.Choice(ENGINES), default="lark", show_default=True,
                 help="Constraint engine: llama.cpp's GBNF, or llguidance with the Lark form."),
    click.option("--repair", type=click.IntRange(min=0), default=0, show_default=True,
                 help="Retries with the checker's error added to the prompt."),
    click.option("--completion", is_flag=True,
                 help="Completion-style prompt (a list of examples) instead of chat."),
    click.option("--max-tokens", type=click.IntRange(min=1), default=256, show_default=True),
)


def translation_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Attach the backend and prompt options `translate`, `ask` and experiments share."""
    for option in reversed(_translation_options):
        command = option(command)
    return command


#: the parameters `translation_options` adds, read off the options themselves
_OPTION_NAMES = tuple(str(p.name) for p in click.command()(translation_options(lambda: None)).params)


def translator_from(options: dict[str, Any]) -> tuple[Settings, Models]:
    """The translator the shared options describe (`translation_options`), popped from a
    command's arguments."""
    values = {key: options.pop(key) for key in _OPTION_NAMES}
    examples = values["n_examples"]
    settings = Settings(
        translator=resolve(values["translator"], values["model"], examples), syntax=values["syntax"],
        prompt=values["prompt_version"], examples=10 if examples is None else examples,
        sampling=values["sampling"], cover_operators=values["cover_operators"],
        constrained=values["constrained"], vocabulary=values["vocabulary"],
        engine=values["engine"], repair=values["repair"], chat=not values["completion"],
        max_tokens=values["max_tokens"])
    models = Models(
        backend=values["backend"], model=values["model"], adapter=values["adapter"],
        base_url=values["base_url"], n_gpu_layers=values["n_gpu_layers"],
        together=values["together"], pool=values["pool"],
        small_model=values["small_model"], beam=values["beam"],
        cascade_threshold=values["cascade_threshold"])
    return settings, models


def read_question_file(path: str, limit: int | None = None) -> list[QuestionEntry]:
    """The entries of a question file given on the command line (`qlang.records.questions.read_questions`)."""
    return read_questions(read_bytes(path, limits.QUESTIONS), path, limit=limit)


def run_batch(job: batch.Translating, path: str, output: str | None, limit: int | None,
              executor: Executor | None = None) -> bool:
    """Translate the question file `path` into `output` (default: standard output), resuming it;
    True if every question translated.  `executor`: where (default: in this process)."""
    entries = read_question_file(path, limit)
    with writing(output, path, translated) as out:
        return batch.run(job, entries, out, executor)


def translated(result: Result) -> bool:
    """Whether a result is translate's: a translation (it holds the question) or a failure."""
    return "question" in result or holding()(result)


@click.command()
@click.argument("question", required=False)
@translation_options
@click.option("--jsonl", "questions_file", type=click.Path(exists=True, dir_okay=False),
              help="Batch: translate every question of a GQA question file (or JSON lines with "
                   "id and question); one result line each.")
@output_option
@click.option("--limit", type=click.IntRange(min=1), help="Batch: only the first N questions.")
@executor_options("Batch, --executor ray: actors, each with its own translator (locally the "
                   "questions are translated in this process).")
@click.option("--verbose", "-v", is_flag=True, help="Also print the raw output, latency and tokens.")
def translate(question: str | None, questions_file: str | None, output: str | None,
              limit: int | None, workers: int, executor: str, address: str | None, verbose: bool,
              **options: Any) -> None:
    """Translate a natural-language QUESTION into a program."""
    if (question is None) == (questions_file is None):
        raise click.UsageError("give a QUESTION or --jsonl FILE (not both)")
    if question is not None and not question.strip():
        raise click.UsageError("the QUESTION is empty")
    settings, models = translator_from(options)
    runner = executor_from(executor, workers, address, batch=questions_file is not None)
    check_output(output, questions_file)
    if executor == "local" and workers != 1:
        raise click.UsageError("--workers is for --executor ray: locally the questions are "
                               "translated in this process")
    with reported(output):
        if questions_file is not None and runner is not None:  # each actor loads its own translator
            sys.exit(0 if run_batch(batch.Translating(settings, models), questions_file, output, limit,
                                    runner) else 1)
        start = time.perf_counter()
        translator = make(settings, models)
        if questions_file is not None:
            click.echo(f"{translator.description} loaded in "
                       f"{time.perf_counter() - start:.2f} s", err=True)
            sys.exit(0 if run_batch(batch.Translating(settings, models, translator), questions_file,
                                    output, limit) else 1)
        assert question is not None
        result = translator.translate(question)
    if verbose:
        click.echo(json.dumps({k: v for k, v in result.to_json().items() if k != "program"}), err=True)
    if result.error is not None:
        click.echo(f"model output: {result.program!r}", err=True)
        fail(result.error)
    warn_unknown(result)
    click.echo(result.program)


def warn_unknown(translation: Translation) -> None:
    """Warn, on standard error, of each form of the question no program can express and each
    question word the program cannot have meant."""
    source = Source(translation.question, "<question>")
    for diagnostic in [form.diagnostic() for form in translation.inexpressible] \
            + [word.diagnostic() for word in translation.unknown]:
        click.echo(diagnostic.render(source), err=True)


@click.command()
@click.option("--syntax", type=click.Choice(GRAMMAR_SYNTAXES), default="nested", show_default=True)
@click.option("--format", "format_", type=click.Choice(["gbnf", "lark"]), default="gbnf",
              show_default=True, help="gbnf: llama.cpp; lark: Lark and llguidance.")
@click.option("--vocabulary/--no-vocabulary", default=True, show_default=True,
              help="Words from the GQA vocabulary (off: any ASP term; syntax only).")
def grammar(syntax: str, format_: str, vocabulary: bool) -> None:
    """Print the decoding grammar of a syntax, typed and with the ontology's vocabulary."""
    from qlang.translate.grammar import generate

    click.echo(generate(syntax, format_, vocabulary=vocabulary))

