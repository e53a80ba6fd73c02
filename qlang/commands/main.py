"""`qlangc`: the command line.  Every command reads a FILE or `-` (standard input).

Exit status: 0 success; 1 the input has errors (reported as ``file:line:col: message`` with the
source line and a caret), the question has no answer, or the command's extra is not installed;
2 the command was used wrongly; 3 a bug (an internal error, reported as one); 4 `ask` cannot tell
(the question asks about something its perceiver does not know).  No input makes it print a
traceback.

Each command's module is imported only when the command runs (`qlang.commands.lazy`): `compile`
starts without the language server, the translators or the web stack.
"""

from __future__ import annotations

import sys

import click

from qlang import limits
from qlang.commands.console import ClosedOutput, fail, unwritable
from qlang.commands.lazy import Lazy, LazyGroup
from qlang.errors import Diagnostic, QlangError

#: Every command: where it is defined, its short help, and the extra that installs what it needs.
COMMANDS = {
    "compile": Lazy("qlang.commands.program:compile",
                    "Convert a checked program from one syntax to another (exit 1 with every error if it "
                    "is not well formed and well typed)."),
    "check": Lazy("qlang.commands.program:check",
                  "Check that a program is well formed and well typed (exit 0), else list every error."),
    "fmt": Lazy("qlang.commands.program:fmt", "Pretty-print a program in its own syntax (idempotent)."),
    "lower": Lazy("qlang.commands.program:lower",
                  "Check a program and print its ASP facts, ready for the theory."),
    "ops": Lazy("qlang.commands.program:ops", "Print the operation table (Markdown)."),
    "solve": Lazy("qlang.commands.solve:solve",
                  "Answer a question program over a scene: one model a line, best first, as its answer "
                  "and cost, after its rank when --top-k is above 1 (tied models share a rank); "
                  "--distinct: one answer a line; --bindings: then the objects each step bound."),
    "explain": Lazy("qlang.commands.solve:explain",
                    "Show how the answer comes about: each step, the objects it kept, the facts behind "
                    "it (and the rules behind the facts they derived)."),
    "kb": Lazy("qlang.commands.kb:kb",
               "Knowledge bases: index one (build), describe one (stats), find paths in one (paths)."),
    "text": Lazy("qlang.commands.text:text",
                 "Documents: match them to a text, extract the span answering a question (constrained "
                 "decoding or the lexical baseline), read the text a photo shows.", "translate"),
    "lsp": Lazy("qlang.commands.lsp:lsp",
                "Run the language server over standard input and output: diagnostics, completion, "
                "hover, formatting, definitions, symbols and conversions for programs (.qn nested, .qc "
                "code, .qf flat, .qg gqa-str, .json gqa), rules (.rules) and knowledge files (.tsv)."),
    "translate": Lazy("qlang.commands.translate:translate",
                      "Translate a natural-language QUESTION into a program.", "translate"),
    "grammar": Lazy("qlang.commands.translate:grammar",
                    "Print the decoding grammar of a syntax, typed and with the ontology's vocabulary."),
    "ask": Lazy("qlang.commands.ask:ask",
                "Answer QUESTION about a scene (or a photo): translate, check, solve; print answers, "
                "program, timings (every model load among them).", "translate,vision"),
    "perceive": Lazy("qlang.commands.vision:perceive",
                     "Look at IMAGE (a photo, or a folder of them) and write its weighted scene.", "vision"),
    "serve": Lazy("qlang.commands.serve:serve",
                  "Serve a web page for asking about a photo or a GQA scene graph: the answers, the "
                  "program in each syntax, the boxes seen, which objects each step kept, and timings; "
                  "the program can be edited and solved again.", "web"),
    "data": Lazy("qlang.commands.train:data",
                 "(question, program) pairs from GQA question FILES (default: the shared ones), split by "
                 "image id into train and dev, deduplicated, as JSON lines."),
    "train": Lazy("qlang.commands.train:train",
                  "Train a translator on question -> program pairs; run again to resume after a kill.",
                  "train"),
    "export": Lazy("qlang.commands.train:export",
                   "Export a LoRA ADAPTER folder (from `qlangc train`) as a GGUF adapter for llama.cpp.",
                   "train"),
    "calibrate": Lazy("qlang.commands.train:calibrate",
                      "Calibrate the cascade for a small-parser MODEL folder on dev questions.",
                      "translate"),
    "backoff": Lazy("qlang.commands.train:backoff",
                    "Give a small-parser MODEL folder its back-off table: each word its training questions "
                    "never said, read as the nearest word they did (MiniLM similarity 0.7 or more).",
                    "translate"),
    "eval": Lazy("qlang.commands.evaluate:evaluate",
                 'Evaluate JSON-lines TRANSLATIONS ({"id", "program"}) against gold programs and answers.'),
    "experiment": Lazy("qlang.commands.evaluate:experiment",
                       "Run one of the seed thesis's experiments (or the constrained-decoding one).",
                       "train,vision"),
    "oracle": Lazy("qlang.commands.evaluate:oracle",
                   "Run every gold program of QUESTIONS over its scene graph: the failure classes of both "
                   "modes (thesis Table 11) and the answerable questions of --mode."),
}


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="qlang")
def cli() -> None:
    """qlang: compile, check and solve GQA question programs.

    Batches (compile, check, solve and translate with --jsonl; eval; experiment) run on
    --executor local (this machine, the default) or ray (a Ray cluster's actors), with
    --workers of them; with --output a killed batch resumes where it stopped.
    """


def main() -> None:
    """Entry point: the limits checked (`qlang.limits`), and a last guard so that even a bug
    reports a message, not a traceback; standard output that cannot be written (a full disk,
    a closed descriptor: a closed pipe ends quietly, in click) is an error, exit 1."""
    if sys.stdout is None:  # started without one (`>&-`): writing to it must fail, not vanish
        sys.stdout = ClosedOutput()
    try:
        limits.check_settings()
        cli(standalone_mode=True)
    except SystemExit:
        raise
    except QlangError as exc:
        fail(exc)
    except OSError as exc:
        sys.stdout = None  # what it still holds cannot be written either: exit without trying
        fail(unwritable(exc, "standard output"))
    except Exception as exc:
        message = Diagnostic("internal", f"internal error: {type(exc).__name__}: {exc}")
        click.echo(message.render(None) + "\n(please report this as a bug)", err=True)
        sys.exit(3)


if __name__ == "__main__":
    main()
