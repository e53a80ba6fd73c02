#!/usr/bin/env bash
# The tests whose verdict could hang on the clock, run while every core is kept busy by other
# processes: they must pass as on an idle machine.  `scripts/busy-test.sh all` runs
# the whole suite so (as `make test` runs pytest); other arguments go to pytest after the list
# (`-x`, `-k timeout`).  BUSY=n: n busy loops (default: one a core).
set -euo pipefail
cd "$(dirname "$0")/.."

# Timeouts that must and must not fire, runs killed or interrupted part way, pipes closed early,
# a server started, hang guards.
TIMING=(
    tests/test_asp_cli.py::test_the_grounding_guard_refuses_a_blow_up
    tests/test_asp_cli.py::test_a_timeout_is_reported_not_waited_out
    tests/test_asp_cli.py::test_the_hopeless_question_asks_what_it_says
    tests/test_asp_cli.py::test_batch_reports_timeouts_and_blow_ups_and_goes_on
    tests/test_asp_grouped.py::test_a_search_past_its_deadline_is_a_timeout_however_fast_it_ends
    tests/test_hostile.py::test_a_diamond_is_refused_by_nested_and_printed_by_code
    tests/test_hostile.py::test_a_hostile_scene_is_a_located_error
    tests/test_hostile.py::test_a_closed_pipe_ends_a_batch_quietly
    tests/test_hostile.py::test_ctrl_c_ends_a_parallel_batch_quietly
    tests/test_cli.py::test_a_closed_pipe_ends_a_parallel_batch_quietly
    tests/test_fuzz.py::test_solve_survives_random_programs_and_scenes
    tests/test_executors.py::test_a_dead_or_stuck_worker_ends_the_batch_with_what_came_before
    tests/test_executors.py::test_a_failing_job_raises_here_and_a_batch_left_early_ends_its_workers
    tests/test_executors.py::test_a_compile_worker_killed_mid_run_loses_and_repeats_nothing
    tests/test_executors.py::test_a_killed_driver_resumes_from_its_output_file
    tests/test_experiments.py::test_a_killed_experiment_resumes_without_recomputing
    tests/test_backends.py::test_openai_backend_through_a_real_server
    tests/test_backends.py::test_openai_backend_unreachable_server_is_a_clear_error
)

busy=()
stop() {
    if ((${#busy[@]})); then
        kill "${busy[@]}" 2>/dev/null || true
        busy=()
    fi
}
trap stop EXIT
trap 'stop; exit 130' INT TERM
for _ in $(seq "${BUSY:-$(nproc)}"); do
    (while :; do :; done) &
    busy+=($!)
done
echo "busy-test: ${#busy[@]} busy loops on $(nproc) cores" >&2

if [[ ${1:-} == all ]]; then
    shift
else
    set -- "${TIMING[@]}" "$@"
fi
start=$SECONDS
status=0
"${PYTHON:-.venv/bin/python}" -m pytest -q --durations=10 "$@" || status=$?
echo "busy-test: pytest took $((SECONDS - start)) s beside ${#busy[@]} busy loops (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
exit "$status"
