"""The search's rows on a torch device: the torch module decodes, masks and ranks where it lives.

On a GPU the arithmetic of a step is nothing; what costs is moving it.  Here a batch's memory,
decoder state and the automaton's masks stay on the device (the masks as one table, new rows
sent as the automaton numbers new states), and a step sends the rows' last tokens and mask
rows and brings back each row's `k` best tokens and totals: a few integers a row, never the
vocabulary-wide scores.  The torch module is the one training uses (`model.Seq2Seq`, in eval
mode), so the numpy network and this compute the same distribution up to float rounding
(tests/test_small_network.py decodes both).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from qlang.small.model import Seq2Seq
from qlang.small.network import Config, Floats, Ints, Mask, Opened
from qlang.small.tokens import Vocabularies


class DeviceNetwork:
    """A torch module on `device` (``cuda``, ``cpu``), as the search's `Decodes`."""

    def __init__(self, model: Seq2Seq, device: str | torch.device) -> None:
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.vocabularies: Vocabularies = model.vocabularies
        self.config: Config = model.config
        self._allowed = torch.empty((0, len(model.vocabularies.target)), dtype=torch.bool, device=self.device)

    def rows(self, source: Ints, lengths: Ints, copy: Ints, beam: int) -> DeviceRows:
        return DeviceRows(self, source, lengths, copy, beam)

    def allowed(self, table: Mask) -> Tensor:
        """The automaton's masks on the device: the rows not sent yet are sent now."""
        if len(self._allowed) < len(table):
            fresh = torch.from_numpy(table[len(self._allowed):]).to(self.device)
            self._allowed = torch.cat([self._allowed, fresh])
        return self._allowed

    def tensor(self, array: Ints | Floats | Mask) -> Tensor:
        return torch.from_numpy(np.ascontiguousarray(array)).to(self.device, non_blocking=True)


class DeviceRows:
    """`network.NumpyRows` on the device: what each call does is said there."""

    @torch.inference_mode()
    def __init__(self, network: DeviceNetwork, source: Ints, lengths: Ints, copy: Ints, beam: int) -> None:
        self.network, self.model = network, network.model
        self.memory, self.mask, (h, c) = self.model.encode(network.tensor(source), network.tensor(lengths))
        self.copy = network.tensor(copy)
        self.question = torch.arange(len(source), device=network.device).repeat_interleave(beam)
        self.h, self.c = h[:, self.question], c[:, self.question]
        self.scored = torch.empty(0, device=network.device)

    @torch.inference_mode()
    def step(self, live: Ints, tokens: Ints) -> None:
        rows = self.network.tensor(live)
        question = self.question[rows]
        scored, (h, c) = self.model.decode(self.network.tensor(tokens)[:, None], self.memory[question],
                                           self.mask[question], self.copy[question],
                                           (self.h[:, rows], self.c[:, rows]))
        self.scored = scored[:, 0]
        self.h[:, rows], self.c[:, rows] = h, c

    @torch.inference_mode()
    def best(self, chosen: Ints, allowed: Mask, mask_rows: Ints, opened: Opened, base: Floats,
             k: int) -> tuple[Floats, Ints]:
        here = self.network.allowed(allowed)[self.network.tensor(mask_rows)]
        for row, ids in opened:
            here[row, ids] = True
        scored = self.scored[self.network.tensor(chosen)].masked_fill(~here, float("-inf"))
        totals = self.network.tensor(base)[:, None] + torch.log_softmax(scored, dim=-1)
        values, tokens = torch.sort(totals, dim=-1, descending=True, stable=True)
        return values[:, :k].cpu().numpy(), tokens[:, :k].cpu().numpy()

    @torch.inference_mode()
    def reorder(self, parents: Ints) -> None:
        rows = self.network.tensor(parents)
        self.h, self.c = self.h[:, rows], self.c[:, rows]
