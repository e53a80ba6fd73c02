"""The network: a BiLSTM encoder and an attentional LSTM decoder, and its files.

Why recurrent and not a Transformer: there are two to four thousand training pairs, and on
data this small attentional LSTMs are the strong classic for semantic parsing (Dong & Lapata
2016; Jia & Liang 2016); a decoder step is one LSTM cell and one attention over a dozen
words, carried forward incrementally, so a beam of programs costs well under a millisecond a
token on a CPU.  The decoder runs over the whole target at once in training (attention after
the LSTM, Luong et al. 2015, without input feeding), which keeps training a few minutes.

A model is a folder: `model.safetensors` (the weights) and `config.json` (the sizes, both
vocabularies, the decoding length and the cascade's calibrated threshold).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from qlang.errors import QlangError, error
from qlang.small.tokens import PAD, SPECIAL, Vocabulary, copy_words

WEIGHTS, CONFIG = "model.safetensors", "config.json"


@dataclass(frozen=True)
class Config:
    source: tuple[str, ...]
    target: tuple[str, ...]
    embedding: int = 128
    hidden: int = 256
    layers: int = 1
    dropout: float = 0.2
    #: the most program tokens decoding may write
    max_length: int = 48
    #: the cascade answers with this model when a program's probability reaches this
    threshold: float | None = None
    #: how the model was made and measured (free-form, for the model card)
    notes: dict[str, Any] = field(default_factory=dict)


class Seq2Seq(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.config = config
        self.source = Vocabulary(config.source)
        self.target = Vocabulary(config.target)
        h, e = config.hidden, config.embedding
        self.source_embedding = nn.Embedding(len(self.source), e, padding_idx=self.source.id(PAD))
        self.target_embedding = nn.Embedding(len(self.target), e, padding_idx=self.target.id(PAD))
        self.encoder = nn.LSTM(e, h // 2, config.layers, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(h, 2 * h * config.layers)
        self.decoder = nn.LSTM(e, h, config.layers, batch_first=True)
        self.attention = nn.Linear(h, h, bias=False)
        self.combine = nn.Linear(2 * h, h)
        self.output = nn.Linear(h, len(self.target))
        self.switch = nn.Linear(2 * h + e, 1)
        self.dropout = nn.Dropout(config.dropout)
        #: the words a program may copy from a question: every literal of the target side
        self.words = frozenset(t for t in config.target if t not in SPECIAL and not t.endswith("("))

    def copy_ids(self, question: str) -> list[int]:
        """Per question token, the target id of the literal it offers (padding: none)."""
        pad = self.target.id(PAD)
        return [pad if w is None else self.target.id(w) for w in copy_words(question, self.words)]

    def encode(self, source: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor, tuple[Tensor, Tensor]]:
        """Encoder states, the padding mask and the decoder's initial state."""
        embedded = self.dropout(self.source_embedding(source))
        packed = nn.utils.rnn.pack_padded_sequence(embedded, lengths.cpu(), batch_first=True,
                                                   enforce_sorted=False)
        states, _ = self.encoder(packed)
        memory, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=source.shape[1])
        mask = source == self.source.id(PAD)
        summary = (memory.masked_fill(mask[..., None], 0).sum(1) / lengths[:, None].to(memory.dtype))
        start = torch.tanh(self.bridge(summary))
        layers, h = self.config.layers, self.config.hidden
        h0, c0 = start.view(-1, 2, layers, h).permute(1, 2, 0, 3).contiguous()
        return memory, mask, (h0, c0)

    def decode(self, tokens: Tensor, memory: Tensor, mask: Tensor, copy: Tensor,
               state: tuple[Tensor, Tensor]) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """Log-probabilities of the token after each of `tokens` (batch x steps), and the LSTM
        state.  A learned switch mixes generating a token with copying the literal a question
        token offers (`copy`, batch x source), weighted by the attention (See et al. 2017)."""
        embedded = self.dropout(self.target_embedding(tokens))
        outputs, state = self.decoder(embedded, state)
        scores = torch.bmm(self.attention(outputs), memory.transpose(1, 2))
        weights = torch.softmax(scores.masked_fill(mask[:, None, :], float("-inf")), dim=-1)
        context = torch.bmm(weights, memory)
        combined = torch.tanh(self.combine(torch.cat([outputs, context], dim=-1)))
        generate = torch.sigmoid(self.switch(torch.cat([outputs, context, embedded], dim=-1)))
        generated = torch.softmax(self.output(self.dropout(combined)), dim=-1)
        copied = torch.zeros_like(generated).scatter_add_(
            2, copy[:, None, :].expand(-1, tokens.shape[1], -1), weights)
        return torch.log(generate * generated + (1 - generate) * copied + 1e-9), state

    def forward(self, source: Tensor, lengths: Tensor, copy: Tensor, target_in: Tensor) -> Tensor:
        memory, mask, state = self.encode(source, lengths)
        logprobs, _ = self.decode(target_in, memory, mask, copy, state)
        return logprobs


def save(model: Seq2Seq, folder: Path, **changes: Any) -> None:
    """Write the model folder, weights as float16 (half the size); the model in memory is
    rounded the same way, so it is exactly the model a `load` returns."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    config = replace(model.config, **changes)
    model.config = config
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(parameter.half().float())
    weights = {k: v.detach().to(torch.float16).contiguous() for k, v in model.state_dict().items()}
    save_file(weights, str(folder / WEIGHTS))
    (folder / CONFIG).write_text(json.dumps(asdict(config), indent=1) + "\n", encoding="utf-8")


def load(folder: Path) -> Seq2Seq:
    from safetensors.torch import load_file

    try:
        data = json.loads((folder / CONFIG).read_text(encoding="utf-8"))
        config = Config(**{**data, "source": tuple(data["source"]), "target": tuple(data["target"])})
        weights = load_file(str(folder / WEIGHTS))
        model = Seq2Seq(config)
        model.load_state_dict({k: v.float() for k, v in weights.items()})
    except (OSError, ValueError, TypeError, KeyError, RuntimeError) as exc:
        raise error(QlangError, "input", f"{folder}: not a small-parser model folder: {exc}") from None
    return model.eval()
