"""Many requests through a transformers model at once: greedy generation and scoring.

`generate` runs one request at a time, so a GPU sees batches of one.  Here the prompts are
left-padded into one batch (each row's positions counted from its own first token) and each
step is one forward pass of every row still running over the KV cache; a row's next token is
the most likely one its own grammar allows (llguidance fills every row's mask in one call, on
its threads), and it stops where `generate` would: at an end token (which it keeps, as
`generate` does) or at its `max_tokens`.  A row that stops leaves the batch and its cache.
The programs are `generate`'s up to the float rounding of padded, batched arithmetic
(`tests/test_batched.py` compares them on real dev questions).

Scoring left-pads prompt and continuation alike, so that every continuation ends the batch
and only the last positions' logits are computed.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from qlang.translate.backends.guidance import GrammarMask


@dataclass
class Generating:
    """One request being generated: its prompt's tokens, its grammar's mask (None: free),
    its token budget, and the tokens chosen so far (an end token last, if it ended so)."""

    prompt: list[int]
    mask: GrammarMask | None
    max_tokens: int
    tokens: list[int] = field(default_factory=list)


class Together:
    """Batched greedy generation and scoring with `lm` (a transformers causal LM) on
    `device`; `pad`: the token written left of the shorter prompts (never attended to)."""

    def __init__(self, lm: Any, torch: Any, device: str, pad: int) -> None:
        self.lm, self.torch, self.device, self.pad = lm, torch, device, pad
        ends = lm.generation_config.eos_token_id
        #: the tokens that end a generation, as `generate` reads them
        self.ends = frozenset[int](() if ends is None else [ends] if isinstance(ends, int) else ends)
        self._executor: Any = None
        #: the KV cache's argument: `cache` from transformers 5.2x, `past_key_values` before
        #: (the GPU machine's 5.17)
        self._cache = "cache" if "cache" in inspect.signature(lm.forward).parameters else "past_key_values"

    def _padded(self, sequences: Sequence[Sequence[int]]) -> tuple[Any, Any]:
        """The sequences left-padded into one batch, and its attention mask."""
        width = max(len(s) for s in sequences)
        ids = [[self.pad] * (width - len(s)) + list(s) for s in sequences]
        attention = [[0] * (width - len(s)) + [1] * len(s) for s in sequences]
        return (self.torch.tensor(ids, device=self.device),
                self.torch.tensor(attention, device=self.device))

    @staticmethod
    def _positions(attention: Any, last: int) -> Any:
        """Each row's positions counted from its first real token, for the `last` columns."""
        return (attention.cumsum(-1) - 1).clamp(min=0)[:, -last:]

    def generate(self, rows: Sequence[Generating]) -> None:
        """Generate every row in place (its `tokens`)."""
        from transformers import DynamicCache

        torch = self.torch
        ids, attention = self._padded([row.prompt for row in rows])
        live = list(range(len(rows)))  # the rows still running, in the batch's order
        cache = DynamicCache()
        with torch.no_grad():
            while live:
                out = self.lm(input_ids=ids, attention_mask=attention,
                              position_ids=self._positions(attention, ids.shape[1]),
                              use_cache=True, logits_to_keep=1, **{self._cache: cache})
                logits = out.logits[:, -1, :].float()
                self._mask(logits, [rows[i].mask for i in live])
                chosen = logits.argmax(-1).tolist()
                keep = [k for k, (i, token) in enumerate(zip(live, chosen, strict=True))
                        if self._goes_on(rows[i], token)]
                if not keep:
                    break
                if len(keep) < len(live):
                    index = torch.tensor(keep, device=self.device)
                    cache.batch_select_indices(index)
                    attention = attention[index]
                live = [live[k] for k in keep]
                ids = torch.tensor([[chosen[k]] for k in keep], device=self.device)
                attention = torch.cat([attention, attention.new_ones((len(keep), 1))], dim=1)

    def _goes_on(self, row: Generating, token: int) -> bool:
        """Take `token` as the row's next; whether the row generates another."""
        row.tokens.append(token)
        if token in self.ends or len(row.tokens) >= row.max_tokens:
            return False
        if row.mask is not None:
            row.mask.matcher.consume_token(token)
        return True

    def _mask(self, logits: Any, masks: Sequence[GrammarMask | None]) -> None:
        """Leave each row only the tokens its grammar allows (a row without one: all)."""
        ruled = [(mask.matcher, k) for k, mask in enumerate(masks) if mask is not None]
        if not ruled:
            return
        import llguidance
        from llguidance import torch as torch_masks

        if self._executor is None:
            self._executor = llguidance.LLExecutor()
        vocabulary = next(mask.vocab_size for mask in masks if mask is not None)
        bitmask = torch_masks.allocate_token_bitmask(len(masks), vocabulary)
        torch_masks.fill_next_token_bitmask_par(self._executor, ruled, bitmask)
        torch_masks.apply_token_bitmask_inplace(logits, bitmask.to(logits.device))

    def score(self, items: Sequence[tuple[Sequence[int], Sequence[int]]]) -> list[float]:
        """The log-probability of each (prompt, continuation)'s continuation after its prompt."""
        torch = self.torch
        ids, attention = self._padded([[*prompt, *continuation] for prompt, continuation in items])
        kept = max(len(continuation) for _, continuation in items) + 1
        with torch.no_grad():
            logits = self.lm(input_ids=ids, attention_mask=attention,
                             position_ids=self._positions(attention, ids.shape[1]),
                             use_cache=False, logits_to_keep=kept).logits
            logprobs = logits.float().log_softmax(-1)
        scores = []
        for row, (_, continuation) in enumerate(items):
            # the logits at the kept positions before each continuation token predict it
            predicting = logprobs[row, kept - 1 - len(continuation):kept - 1]
            targets = torch.tensor(continuation, device=self.device).unsqueeze(-1)
            scores.append(float(predicting.gather(-1, targets).sum()))
        return scores
