"""Executors (`qlang.executors`): batches on this machine's processes or on Ray, same results.

The local pool's promises are tested directly (input order, recycling, a dead or stuck worker,
a failing job, a reader that leaves).  The Ray tests start one Ray instance on this machine, on
the loopback interface only, for the whole module (about 5 s), and run `solve --jsonl` on 1,000+
lines built from the real examples (the emma questions x 250, and lines that fail) and
`compile`/`check --jsonl` on the 3,091 real GQA programs (and lines that fail) through it: the
output file must equal the local executor's byte for byte, also after a worker is killed
mid-run or the driver is, and a resumed run must add every missing line exactly once.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from qlang.asp import batch
from qlang.asp.scene import SceneLibrary
from qlang.errors import Source
from qlang.executors import BatchError, Doubling, Job, Local, Ray, chunks
from qlang.records.output import Pending
from qlang.records.program_lines import Answering, read_records
from qlang.translate.batch import Translating
from qlang.translate.factory import Models
from qlang.translate.translator import Settings
from tests.conftest import EMMA, SCENES, all_questions, batch_lines, emma_questions, killed_qlangc, run

# read when Ray is first imported: every address of a Ray instance started here is the loopback
# one (Ray otherwise takes the machine's own, for a cluster); Ray's processes inherit it
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
pytestmark = [
    # Ray Data reads its own deprecated settings, and says so
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.data.context"),
    # a small input is one block for the first actor alone
    pytest.mark.filterwarnings("ignore:The minimum number of concurrent actors:UserWarning"),
]
ROOT = Path(__file__).resolve().parents[1]


def questions(path: Path, copies: int = 250) -> str:
    """The four emma questions `copies` times, then lines that fail (bad JSON, a typo, no scene)."""
    lines = [json.dumps({**q, "id": f"{n}-{q['imageId']}-{k}"})
             for n in range(copies) for k, q in enumerate(emma_questions())]
    path.write_text("\n".join(lines + batch_lines()[-4:]) + "\n")
    return str(path)


def ids(path: Path) -> list[object]:
    return [json.loads(line)["id"] for line in path.read_text().splitlines()]


# ----- local ------------------------------------------------------------------------------------

def test_chunks_and_local_map_keep_input_order() -> None:
    assert list(chunks([], 3)) == []
    assert list(Local().map(Doubling(), range(10), batch=3)) == [2 * n for n in range(10)]
    assert list(Local(workers=2, recycle=2).map(Doubling(), range(50), batch=3)) == [2 * n for n in range(50)]


@dataclass(frozen=True, slots=True)
class Pids:
    """A job answering each item with the process that answered it, except item `at`, where the
    process dies ("exit"), hangs ("hang") or the job raises ("raise")."""

    at: int = -1
    how: str = ""

    def setup(self) -> Callable[[list[int]], list[int]]:
        def answer(items: list[int]) -> list[int]:
            if self.at in items and self.how == "exit":
                os._exit(9)
            if self.at in items and self.how == "hang":
                time.sleep(600)
            if self.at in items:
                raise ValueError(f"item {self.at}")
            return [os.getpid() for _ in items]

        return answer


@dataclass(frozen=True, slots=True)
class Sizes:
    """A job answering each item with the size of its task."""

    def setup(self) -> Callable[[list[int]], list[int]]:
        return lambda items: [len(items)] * len(items)


def test_local_workers_are_forks_replaced_after_recycle_tasks() -> None:
    pids = list(Local(workers=2, recycle=3).map(Pids(), range(30), batch=1))
    assert os.getpid() not in pids and max(Counter(pids).values()) == 3
    assert set(Local().map(Pids(), range(5), batch=2)) == {os.getpid()}  # one worker: this process


@pytest.mark.parametrize("workers", [1, 2])
def test_a_ramped_batch_answers_its_first_item_alone_then_in_growing_tasks(workers: int) -> None:
    sizes = list(Local(workers=workers, ramp=True).map(Sizes(), range(40), batch=8))
    assert sizes == [1] + [2] * 2 + [4] * 4 + [8] * 32 + [1]  # each item: its task's size, in order


@pytest.mark.parametrize(("how", "patience", "message"), [
    ("exit", 600, "a worker process died"), ("hang", 1, "a worker has answered nothing for 1 s")])
def test_a_dead_or_stuck_worker_ends_the_batch_with_what_came_before(
        how: str, patience: float, message: str) -> None:
    start, got = time.monotonic(), []
    with pytest.raises(BatchError, match=message):
        for pid in Local(workers=2, patience=patience).map(Pids(at=7, how=how), range(40), batch=2):
            got.append(pid)
    assert time.monotonic() - start < 60  # at once, or after `patience`
    assert len(got) in (0, 2, 4, 6)  # the tasks before item 7's, in order
    assert not multiprocessing.active_children()  # every worker is gone


def test_a_failing_job_raises_here_and_a_batch_left_early_ends_its_workers() -> None:
    with pytest.raises(ValueError, match="item 7"):
        list(Local(workers=2).map(Pids(at=7, how="raise"), range(40), batch=2))
    assert not multiprocessing.active_children()
    results = Local(workers=2).map(Pids(at=1, how="hang"), range(40), batch=1)
    next(results)
    results.close()  # the reader is gone (a closed pipe), one worker hangs
    assert not multiprocessing.active_children()


@pytest.fixture(scope="module")
def local_output(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """1,004 lines and what the local executor (2 worker processes) writes for them."""
    folder = tmp_path_factory.mktemp("local")
    lines = questions(folder / "q.jsonl")
    output = folder / "local.jsonl"
    code, _, _ = run("solve", "--jsonl", "--program", lines, "--scene", EMMA, "--output", str(output),
                     "--workers", "2")
    assert code == 1  # the failing lines
    assert len(ids(output)) == 1004
    return lines, output


def test_local_output_is_in_input_order(local_output: tuple[str, Path]) -> None:
    lines, output = local_output
    expected = [json.loads(line).get("id") for line in Path(lines).read_text().splitlines()
                if line.startswith("{")]
    got = ids(output)
    assert [i for i in got if i is not None] == expected
    one = run("solve", "--jsonl", "--program", lines, "--scene", EMMA)[1]
    assert one == output.read_text()  # one process and two write the same file


def test_executor_options_are_checked() -> None:
    code, _, err = run("solve", "--scene", EMMA, "--executor", "ray", "--program", "-")
    assert code == 2 and "--executor is for batch mode" in err
    code, _, err = run("solve", "--jsonl", "--scene", EMMA, "--address", "auto")
    assert code == 2 and "--address is for --executor ray" in err
    code, _, err = run("translate", "--jsonl", str(SCENES / "emma_questions.json"), "--workers", "2")
    assert code == 2 and "--workers is for --executor ray" in err


# ----- Ray --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ray_instance() -> Iterator[str]:
    """A Ray instance on this machine, reachable on the loopback interface only; its address."""
    ray = pytest.importorskip("ray")
    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="warning")
    assert context.address_info["node_ip_address"] == "127.0.0.1"
    yield context.address_info["address"]
    ray.shutdown()


@pytest.mark.ray
def test_solve_on_ray_writes_what_the_local_executor_writes(
        ray_instance: str, local_output: tuple[str, Path], tmp_path: Path) -> None:
    lines, expected = local_output
    output = tmp_path / "ray.jsonl"
    code, out, _ = run("solve", "--jsonl", "--program", lines, "--scene", EMMA, "--output", str(output),
                       "--executor", "ray", "--workers", "2")
    assert (code, out) == (1, "")
    assert output.read_text() == expected.read_text()
    # resumed: nothing left to do, nothing written twice
    code, _, _ = run("solve", "--jsonl", "--program", lines, "--scene", EMMA, "--output", str(output),
                     "--executor", "ray")
    assert output.read_text() == expected.read_text()


@dataclass(frozen=True, slots=True)
class Dying:
    """A job that kills the process running it once, at its `at`-th batch (the `flag` file
    remembers that it has): an actor lost mid-run, with the batch it held."""

    job: Job[Any, Any]
    flag: str
    at: int

    def setup(self) -> Callable[[list[Any]], list[Any]]:
        answer = self.job.setup()
        calls = [0]

        def dying(items: list[Any]) -> list[Any]:
            calls[0] += 1
            if calls[0] == self.at and not os.path.exists(self.flag):
                Path(self.flag).write_text(str(os.getpid()))
                os.kill(os.getpid(), signal.SIGKILL)
            return answer(items)

        return dying


@pytest.mark.ray
def test_an_actor_killed_mid_run_loses_and_repeats_nothing(
        ray_instance: str, local_output: tuple[str, Path], tmp_path: Path) -> None:
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the actors need not import tests
    lines, expected = local_output
    settings = batch.BatchSettings(SceneLibrary(Source(Path(EMMA).read_text())))
    tasks = batch._tasks(read_records(enumerate(Path(lines).read_bytes().split(b"\n"), start=1)), Pending(),
                         None)
    flag = tmp_path / "killed"
    job = Dying(batch.Solving(settings), str(flag), at=3)
    results = Ray(workers=2).map(job, tasks, batch=batch.RAY_BATCH)
    text = "".join(json.dumps(result) + "\n" for result in results)
    assert flag.exists() and int(flag.read_text()) != os.getpid()  # an actor died, not us
    assert text == expected.read_text()


@pytest.mark.ray
def test_a_killed_driver_resumes_from_its_output_file(
        ray_instance: str, local_output: tuple[str, Path], tmp_path: Path) -> None:
    lines, expected = local_output
    output = tmp_path / "ray.jsonl"
    options = ["solve", "--jsonl", "--program", lines, "--scene", EMMA, "--output", str(output),
               "--executor", "ray", "--address", ray_instance, "--workers", "2"]
    driver = subprocess.run([*killed_qlangc(150), *options], cwd=ROOT, capture_output=True, timeout=600)
    assert driver.returncode == -signal.SIGKILL, driver.stderr
    assert len(ids(output)) == 150
    code, _, _ = run("solve", "--jsonl", "--program", lines, "--scene", EMMA, "--output", str(output),
                     "--executor", "ray", "--workers", "2")
    assert code == 1
    assert output.read_text() == expected.read_text()  # every line once, in input order


@pytest.mark.ray
def test_a_worker_that_cannot_start_ends_the_batch_with_its_reason(ray_instance: str, tmp_path: Path) -> None:
    empty = tmp_path / "no-model"
    empty.mkdir()
    code, _, err = run("translate", "--jsonl", str(SCENES / "emma_questions.json"), "--translator", "small",
                       "--small-model", str(empty), "--executor", "ray")
    assert code == 1
    assert f"a Ray worker failed to start: {empty / 'config.json'}: " in err
    assert "(not a small-parser model folder)" in err


@pytest.mark.ray
def test_translate_on_ray_writes_what_translating_here_writes(ray_instance: str, tmp_path: Path) -> None:
    source = str(SCENES / "emma_questions.json")
    here, there = tmp_path / "here.jsonl", tmp_path / "there.jsonl"
    assert run("translate", "--jsonl", source, "--translator", "small", "--output", str(here))[0] == 0
    assert run("translate", "--jsonl", source, "--translator", "small", "--output", str(there),
               "--executor", "ray", "--workers", "2")[0] == 0

    def timeless(path: Path) -> list[dict[str, Any]]:
        return [{k: v for k, v in json.loads(line).items() if k != "seconds"}
                for line in path.read_text().splitlines()]

    assert timeless(here) == timeless(there) and len(timeless(here)) > 4


# ----- compile and check -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """The 3,091 real GQA programs as lines, then lines that fail (bad JSON, a syntax error, not
    UTF-8), and what `compile --jsonl` writes for them on the local executor (2 processes)."""
    folder = tmp_path_factory.mktemp("compile")
    lines = folder / "gqa.jsonl"
    programs = [json.dumps({"id": qid, "semantic": q["semantic"]}) for qid, q in all_questions().items()]
    typo = json.dumps({"id": "typo", "program": "exist(select(scene(), cat)"})
    lines.write_bytes("\n".join([*programs, "not json", typo]).encode() + b"\n\xff\n")
    output = folder / "local.jsonl"
    assert compile_into(output, str(lines), "--workers", "2") == 1  # the failing lines
    assert len(ids(output)) == 3094
    return str(lines), output


def compile_into(output: Path, lines: str, *options: str) -> int:
    return run("compile", "--jsonl", "--to", "nested", "--output", str(output), *options, lines)[0]


def test_compile_and_check_write_the_same_in_one_process_and_in_two(compiled: tuple[str, Path]) -> None:
    lines, expected = compiled
    assert run("compile", "--jsonl", "--to", "nested", "--jobs", "1", lines)[1] == expected.read_text()
    checked = run("check", "--jsonl", "--jobs", "1", lines)
    assert checked[1].count("\n") == 3094 and run("check", "--jsonl", "--workers", "2", lines) == checked


@pytest.mark.ray
def test_compile_and_check_on_ray_write_what_the_local_executor_writes(
        ray_instance: str, compiled: tuple[str, Path], tmp_path: Path) -> None:
    lines, expected = compiled
    output = tmp_path / "ray.jsonl"
    assert compile_into(output, lines, "--executor", "ray", "--workers", "2") == 1
    assert output.read_text() == expected.read_text()
    assert compile_into(output, lines, "--executor", "ray") == 0  # resumed: nothing left to do
    assert output.read_text() == expected.read_text()
    checked = run("check", "--jsonl", "--workers", "2", lines)
    assert run("check", "--jsonl", "--executor", "ray", "--workers", "2", lines) == checked


@pytest.mark.parametrize("executor", ["local", pytest.param("ray", marks=pytest.mark.ray)])
def test_a_compile_worker_killed_mid_run_loses_and_repeats_nothing(
        executor: str, compiled: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        request: pytest.FixtureRequest) -> None:
    """Locally the batch ends at once with what came before, and a second run resumes it; on Ray
    the actor is restarted and its task retried, within the run."""
    if executor == "ray":
        from ray import cloudpickle

        request.getfixturevalue("ray_instance")
        cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the actors need not import tests
    lines, expected = compiled
    flag, output = tmp_path / "killed", tmp_path / "out.jsonl"
    monkeypatch.setattr("qlang.records.program_lines.Answering",
                        lambda *job: Dying(Answering(*job), str(flag), at=3))
    code, _, err = run("compile", "--jsonl", "--to", "nested", "--output", str(output), "--executor",
                       executor, "--workers", "2", lines)
    assert flag.exists() and int(flag.read_text()) != os.getpid()  # a worker died, not us
    if executor == "local":
        assert code == 1 and "a worker process died" in err
        assert len(ids(output)) < 3094  # what came before the dead task (on a busy machine: maybe nothing)
        monkeypatch.undo()
        assert compile_into(output, lines, "--workers", "2") == 1
    assert output.read_text() == expected.read_text()


# ----- eval and experiment ---------------------------------------------------------------------

def evaluation(tmp_path: Path, *options: str) -> tuple[int, str, str]:
    """`eval --json` of the emma questions' gold programs and one wrong one, over their scenes."""
    translations = tmp_path / "translations.jsonl"
    gold = json.loads((SCENES / "emma_questions.json").read_text())
    programs = [{"id": qid, "program": json.dumps(q["semantic"])} for qid, q in gold.items()]
    programs[0]["program"] = "exist(select(scene(), shelf))"
    translations.write_text("".join(json.dumps(p) + "\n" for p in programs))
    return run("eval", str(translations), "--questions", str(SCENES / "emma_questions.json"),
               "--scenes", EMMA, "--syntax", "gqa", "--json", *options)


#: The experiments run here: the models one with the small parser, and the pipeline one with
#: it, the scene graphs standing in for the weighted scenes of both kinds.
MODELS = ("models", "--models", "small")
PIPELINE = ("pipeline", "--translator", "small", "--weighted", EMMA, "--blind-weighted", EMMA)


def experiment(out: Path, *options: str) -> list[dict[str, Any]]:
    """The log of an experiment over the emma questions and their scenes, less the seconds each
    translation took."""
    code, _, err = run("experiment", *options, "--questions", str(SCENES / "emma_questions.json"),
                       "--scenes", EMMA, "--out", str(out))
    assert code == 0, err
    return [{k: v for k, v in json.loads(line).items() if k != "seconds"}
            for line in (out / "results.jsonl").read_text().splitlines()]


def test_eval_and_experiment_with_local_workers_match_this_process(tmp_path: Path) -> None:
    here = evaluation(tmp_path)
    assert here[0] == 0 and json.loads(here[1])["programs"]["total"] == 9
    assert evaluation(tmp_path, "--workers", "2") == here
    for spec in (MODELS, PIPELINE):
        assert experiment(tmp_path / spec[0], *spec) == experiment(tmp_path / f"{spec[0]}-forked", *spec,
                                                                   "--workers", "2")


@pytest.mark.ray
def test_eval_and_experiment_on_ray_match_the_local_executor(ray_instance: str, tmp_path: Path) -> None:
    assert evaluation(tmp_path, "--executor", "ray", "--workers", "2") == evaluation(tmp_path)
    here = experiment(tmp_path / "here", *MODELS)
    assert len(here) == 9 and sum("answer_correct" in r for r in here) == 4
    assert experiment(tmp_path / "ray", *MODELS, "--executor", "ray", "--workers", "2") == here
    rows = experiment(tmp_path / "rows", *PIPELINE)  # the 4 questions with a scene, each in 4 rows
    assert Counter(r["config"] for r in rows) == {"isolated": 4, "base": 4, "pipeline": 4, "blind": 4}
    assert experiment(tmp_path / "rows-ray", *PIPELINE, "--executor", "ray", "--workers", "2") == rows


def test_ray_actors_ask_for_the_gpus_their_job_needs() -> None:
    """A vLLM engine per actor, on a GPU of its own; the other jobs ask for none (and run on the
    loopback instance above: `translate` with the small parser asks for 0 GPUs)."""
    vllm, finetuned = Models(backend="vllm"), Settings(translator="finetuned")
    assert Ray(cpus=2).resources(Translating(finetuned, vllm)) == {"num_cpus": 2, "num_gpus": 1}
    assert Ray().resources(Translating(Settings(translator="small"), vllm))["num_gpus"] == 0
    assert Ray().resources(Translating(finetuned, Models(backend="llama-cpp")))["num_gpus"] == 0
    assert Ray().resources(Doubling())["num_gpus"] == 0


def test_a_missing_ray_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    code, _, err = run("solve", "--jsonl", "--scene", EMMA, "--executor", "ray", "--program", "-")
    assert code == 2 and "pip install 'qlang[ray]'" in err


def test_ray_failures_are_batch_errors() -> None:
    from qlang.executors import _failed

    assert isinstance(_failed(RuntimeError("boom\nmore")), BatchError)
    assert "the Ray job failed: RuntimeError: boom" in str(_failed(RuntimeError("boom\nmore")))
