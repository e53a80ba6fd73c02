"""`qlangc translate`, `qlangc ask` and `qlangc grammar`: the LLM front end on the command line.

Heavy libraries (llama.cpp, torch) load only inside the command that needs them.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import click

from qlang import executors
from qlang.batch import internal_error, output_option, reported, resume_key, write, writing
from qlang.console import Bounded, fail, read_bytes, read_source
from qlang.errors import Diagnostic, QlangError, error
from qlang.syntax import SYNTAXES
from qlang.translate.backends import BACKENDS, Backend, load_backend
from qlang.translate.models import ADAPTER
from qlang.translate.translator import (
    ENGINES,
    GRAMMAR_SYNTAXES,
    TRANSLATORS,
    Settings,
    Translates,
    Translation,
    Translator,
)
from qlang.vision.cli import image_facts, take_options, vision_options

SAMPLINGS = ("random", "jaccard", "embedding")

_translation_options = (
    click.option("--translator", type=click.Choice(["auto", *TRANSLATORS]), default="auto",
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
                 help="llama-cpp, vllm: a LoRA adapter for the model, GGUF (vllm: or a PEFT folder); "
                 "default, finetuned: the bundled one."),
    click.option("--syntax", type=click.Choice(sorted(SYNTAXES)), default="nested", show_default=True,
                 help="The program syntax to translate into."),
    click.option("--backend", type=click.Choice(sorted(BACKENDS)), default="llama-cpp",
                 show_default=True, help="Which LLM backend runs the model."),
    click.option("--model", help="llama-cpp: smollm2 (default), gemma3 or a GGUF path; openai: a "
                 "model name; transformers: a local model directory."),
    click.option("--base-url", help="openai: the endpoint (default: $OPENAI_BASE_URL)."),
    click.option("--n-gpu-layers", type=int, default=0, show_default=True,
                 help="llama-cpp: layers to offload to the GPU (-1: all; needs a CUDA build)."),
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


def translator_kind(options: dict[str, Any]) -> str:
    """The translator, resolving `auto`: asking for a model or examples means few-shot, else
    the cascade."""
    if options["translator"] != "auto":
        return str(options["translator"])
    fewshot = options["model"] is not None or options["n_examples"] is not None
    return "fewshot" if fewshot else "cascade"


def settings_from(options: dict[str, Any]) -> Settings:
    """The translator settings the shared options describe."""
    examples = options["n_examples"]
    return Settings(
        translator=translator_kind(options), syntax=options["syntax"],
        prompt=options["prompt_version"], examples=10 if examples is None else examples,
        sampling=options["sampling"], cover_operators=options["cover_operators"],
        constrained=options["constrained"], vocabulary=options["vocabulary"],
        engine=options["engine"], repair=options["repair"], chat=not options["completion"],
        max_tokens=options["max_tokens"])


def backend_from(options: dict[str, Any], backend: str, model: str | None,
                 translator: str | None = None) -> Backend:
    """Load a backend with the options that concern it (raises QlangError); a `finetuned`
    translator on llama.cpp or vLLM gets the bundled adapter unless `--adapter` names another."""
    extra: dict[str, Any] = {}
    if backend == "llama-cpp":
        extra["n_gpu_layers"] = options["n_gpu_layers"]
    if backend in ("llama-cpp", "vllm"):
        adapter = options["adapter"]
        if adapter is None and (translator or translator_kind(options)) == "finetuned":
            adapter = str(ADAPTER)
        if adapter is not None:
            extra["lora"] = adapter
    elif backend == "openai":
        extra["base_url"] = options["base_url"]
    return load_backend(backend, model, **extra)


def make_translator(options: dict[str, Any], settings: Settings | None = None, backend: str | None = None,
                    model: str | None = None, *, loaded: dict[Any, Any] | None = None) -> Translates:
    """A translator from the shared options, or for the given settings/backend/model (loads
    the models, each once per `loaded` cache; raises QlangError)."""
    from qlang.translate.cascade import Cascade, SmallTranslator

    settings = settings or settings_from(options)
    backend = backend or options["backend"]
    model = model if model is not None else options["model"]
    cache = {} if loaded is None else loaded

    def once(key: tuple[Any, ...], load: Callable[[], Any]) -> Any:
        if key not in cache:
            cache[key] = load()
        return cache[key]

    def llm(kind: str) -> Translator:
        from qlang.translate.examples import Example, load_pool

        pool: list[Example] = []  # only few-shot prompts show examples: the others need no pool file
        if kind == "fewshot":
            pool = once(("pool", options["pool"]), lambda: load_pool(options["pool"]))
        loaded_backend = once((backend, model, kind), lambda: backend_from(options, backend, model, kind))
        return Translator(loaded_backend, pool, replace(settings, translator=kind))

    if settings.translator not in ("small", "cascade"):
        return llm(settings.translator)
    from qlang.small.parser import SmallParser

    parser = once(("small", options["small_model"], options["beam"]),
                  lambda: SmallParser.load(options["small_model"], options["beam"]))
    small = SmallTranslator(parser, settings)
    if settings.translator == "small":
        return small
    return Cascade(small, llm("finetuned"), options["cascade_threshold"])


@click.command()
@click.argument("question", required=False)
@translation_options
@click.option("--jsonl", "questions_file", type=click.Path(exists=True, dir_okay=False),
              help="Batch: translate every question of a GQA question file (or JSON lines with "
                   "id and question); one result line each.")
@output_option
@click.option("--limit", type=click.IntRange(min=1), help="Batch: only the first N questions.")
@executors.options("Batch, --executor ray: actors, each with its own translator (locally the "
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
    runner = executors.from_options(executor, workers, address, batch=questions_file is not None)
    if executor == "local" and workers != 1:
        raise click.UsageError("--workers is for --executor ray: locally the questions are "
                               "translated in this process")
    with reported(output):
        if questions_file is not None and runner is not None:  # each actor loads its own translator
            sys.exit(0 if run_batch(Translating(options), questions_file, output, limit, runner) else 1)
        start = time.perf_counter()
        translator = make_translator(options)
        if questions_file is not None:
            click.echo(f"{translator.description} loaded in "
                       f"{time.perf_counter() - start:.2f} s", err=True)
            ok = run_batch(translator, questions_file, output, limit)
            sys.exit(0 if ok else 1)
        assert question is not None
        result = translator.translate(question)
    if verbose:
        click.echo(json.dumps({k: v for k, v in result.to_json().items() if k != "program"}), err=True)
    if result.error is not None:
        click.echo(f"model output: {result.program!r}", err=True)
        fail(result.error)
    click.echo(result.program)


def read_questions(path: str, limit: int | None = None) -> list[dict[str, Any]]:
    """Question records from a GQA question file (a JSON object by id, or a list) or JSON lines.

    A record without an id gets its place as ``input_line``, which keys its result for resuming;
    an entry that is no record (a JSON line that is not UTF-8, not JSON or not an object) becomes
    ``{"input_line", "problem"}``, so that it costs only its own result.
    """
    data = read_bytes(path)
    try:
        whole = json.loads(data.decode("utf-8-sig"))
    except ValueError:  # not one JSON document (nor UTF-8): JSON lines
        lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
        entries = [(number, _json_line(line)) for number, line in enumerate(lines, start=1)
                   if line.strip()]
    else:
        if not isinstance(whole, dict | list):
            raise error(QlangError, "input", f"{path}: expected question records with 'id' and 'question'")
        entries = ([(n, {"id": k, **v} if isinstance(v, dict) else v)
                    for n, (k, v) in enumerate(whole.items(), start=1)]
                   if isinstance(whole, dict) else list(enumerate(whole, start=1)))
    return [_question_record(number, entry) for number, entry in entries[:limit]]


def _json_line(line: bytes) -> object:
    try:
        return json.loads(line)
    except ValueError as exc:
        return f"not JSON: {exc}"


def _question_record(number: int, entry: object) -> dict[str, Any]:
    if not isinstance(entry, dict):
        why = entry if isinstance(entry, str) else "not a question record"
        return {"input_line": number, "problem": f"entry {number}: {why}"}
    return entry if entry.get("id") is not None else {**entry, "input_line": number}


#: questions decoded together in a batch (the small parser decodes a chunk at once)
CHUNK = 32


@dataclass(frozen=True)
class Translating:
    """The job of a batch (`qlang.executors`): the command's options travel to each worker,
    which makes its translator from them once; `translator` is one already made here."""

    options: dict[str, Any]
    translator: Translates | None = None

    @property
    def gpus(self) -> float:
        """One GPU per worker where it runs a vLLM engine (all but the small parser do)."""
        vllm = self.options.get("backend") == "vllm" and translator_kind(self.options) != "small"
        return 1.0 if vllm else 0.0

    def setup(self) -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
        translator = self.translator or make_translator(self.options)
        return lambda records: _translate_records(translator, records)


def run_batch(translator: Translates | Translating, path: str, output: str | None, limit: int | None,
              executor: executors.Executor | None = None) -> bool:
    """Translate a question file, one result line each, in input order; True if every question
    translated.  `executor`: where (default: in this process, `CHUNK` questions at a time)."""
    from tqdm import tqdm

    job = translator if isinstance(translator, Translating) else Translating({}, translator)
    records = read_questions(path, limit)
    ok = True
    with writing(output, path) as (out, pending):
        todo = [r for r in records if pending(resume_key(r))]
        with tqdm(total=len(todo), desc="translate", unit="q", file=sys.stderr, disable=None) as bar:
            for result in (executor or executors.Local()).map(job, todo, batch=CHUNK):
                ok = ok and "error" not in result
                write(out, result)
                bar.update(1)
    return ok


def _translate_records(translator: Translates, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One result per record, in order: the questions translated together, and one by one
    if that fails, so that a question's failure costs only its own result."""
    questions = [r.get("question") for r in records]
    texts = [q for q in questions if isinstance(q, str) and q.strip()]
    try:
        translated = iter(translator.translate_many(texts))
    except Exception:  # retried one by one below, where each failure is recorded
        translated = iter([_translate_one(translator, q) for q in texts])
    results = []
    for record, question in zip(records, questions, strict=True):
        key = {"id": record.get("id")}
        key |= {"input_line": record["input_line"]} if "input_line" in record else {}
        if not isinstance(question, str) or not question.strip():
            problem = Diagnostic("input", record.get("problem", "the record has no 'question' text"))
            results.append({**key, "error": problem.to_json()})
        else:
            results.append({**key, **next(translated).to_json()})
    return results


def _translate_one(translator: Translates, question: str) -> Translation:
    try:
        return translator.translate(question)
    except QlangError as exc:
        return Translation(question, error=exc)
    except Exception as exc:  # one question's failure (e.g. longer than the context) must not end the batch
        return Translation(question, error=internal_error(exc))


@click.command()
@click.argument("question")
@click.option("--scene", type=click.Path(allow_dash=True, dir_okay=False),
              help="GQA scene-graph JSON (one graph or graphs by image id), or ASP facts.")
@click.option("--image", type=click.Path(exists=True, dir_okay=False),
              help="A photo instead of --scene: perceived into a weighted scene (qlangc perceive).")
@click.option("--image-id", help="The scene's image id, when the file holds several.")
@click.option("--top-k", type=click.IntRange(min=1, max=1000), default=3, show_default=True)
@click.option("--timeout", type=Bounded(min=0, max=86_400, min_open=True), default=10.0, show_default=True,
              help="Seconds for solving.")
@translation_options
@vision_options("--vision")
def ask(question: str, scene: str | None, image: str | None, image_id: str | None, top_k: int,
        timeout: float, **options: Any) -> None:
    """Answer QUESTION about a scene (or a photo): translate, check, solve; print answers,
    program, timings."""
    from qlang.api import lower
    from qlang.asp.scene import SceneLibrary
    from qlang.asp.solve import Limits, solve

    if (scene is None) == (image is None):
        raise click.UsageError("give one of --scene and --image")
    vision = take_options(options)
    timings: dict[str, float] = {}
    try:
        facts = None
        if scene is not None:
            start = time.perf_counter()
            facts = SceneLibrary(read_source(scene)).facts(image_id)
            timings["scene"] = time.perf_counter() - start
        start = time.perf_counter()
        translator = make_translator(options)
        timings["load model"] = time.perf_counter() - start
        translation = translator.translate(question)
        timings["translate"] = translation.seconds
        if translation.error is not None or translation.root is None:
            click.echo(f"model output: {translation.program!r}", err=True)
            fail(translation.error or error(QlangError, "translate", "no program"))
        assert translation.root is not None
        if image is not None:
            facts = image_facts(image, translation.root, vision, timings)
        assert facts is not None
        start = time.perf_counter()
        result = solve(lower(translation.root), facts, top_k=top_k, limits=Limits(timeout=timeout))
        timings["solve"] = time.perf_counter() - start
    except QlangError as exc:
        fail(exc)
    answers = ", ".join(a.value for a in result.answers) or "(no answer)"
    click.echo(f"answer:  {answers}")
    click.echo(f"program: {translation.program}")
    stages = ", ".join(f"{stage} {seconds * 1000:.0f} ms" for stage, seconds in timings.items())
    click.echo(f"time:    {stages}")
    if not result.answers:
        sys.exit(1)


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

