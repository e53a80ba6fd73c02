"""JSON lines in and out: one reader, one resumable writer, one batch loop.

Every batch command (compile, check, solve, translate, perceive, eval and the experiments) reads
its input here and maps its job over the items on an executor (`qlang.executors`); all but eval
(which sums its results up) write one result line per item here, in input order, each flushed
as soon as it is known:

- Reading.  `jsonl.json_lines` splits on "\\n" alone and reads each line on its own, so that a
  line that is not UTF-8, not JSON or no JSON object costs only itself (a `jsonl.JsonLine`
  says why); the typed readers build on it: `program_lines.read_records` (programs: compile,
  check, solve) and `questions.read_questions` (question files: translate, eval, the
  experiments, training data), tolerant or strict by a flag, and `output.read_results` (what an
  earlier run wrote).
- Writing.  `output.Output`: where results go, and which inputs still need one;
  `output.appending` resumes an output file (the results it holds are kept, and their inputs
  skipped), `output.writing` picks it or standard output.
- The loop.  `batch.run_batch`: a `Job` mapped over the pending items, every result written as
  it comes; `batch.attempt` is the batches' rule that one item's failure is recorded as its
  result and the batch goes on.
"""
