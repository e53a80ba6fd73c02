"""The network in torch, for training: a BiLSTM encoder and an attentional LSTM decoder.

Answering runs the same network in numpy (`network.py`, which says why recurrent and why not
torch); this module trains it, and converts it (`network`) for anything that decodes.  The
decoder runs over the whole target at once in training (attention after the LSTM, Luong et
al. 2015, without input feeding), which keeps training a few minutes.

A model is a folder (`files.py`): `model.safetensors` (the weights, float16) and
`config.json` (the sizes, both vocabularies, the decoding length and the cascade's
calibrated threshold).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from qlang.small import files
from qlang.small.network import Config, Network
from qlang.small.tokens import PAD


class Seq2Seq(nn.Module):
    def __init__(self, config: Config) -> None:
        super().__init__()
        self.config = config
        self.vocabularies = config.vocabularies()
        source, target = self.vocabularies.source, self.vocabularies.target
        h, e = config.hidden, config.embedding
        self.source_embedding = nn.Embedding(len(source), e, padding_idx=source.id(PAD))
        self.target_embedding = nn.Embedding(len(target), e, padding_idx=target.id(PAD))
        self.encoder = nn.LSTM(e, h // 2, config.layers, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(h, 2 * h * config.layers)
        self.decoder = nn.LSTM(e, h, config.layers, batch_first=True)
        self.attention = nn.Linear(h, h, bias=False)
        self.combine = nn.Linear(2 * h, h)
        self.output = nn.Linear(h, len(target))
        self.switch = nn.Linear(2 * h + e, 1)
        self.dropout = nn.Dropout(config.dropout)

    def encode(self, source: Tensor, lengths: Tensor) -> tuple[Tensor, Tensor, tuple[Tensor, Tensor]]:
        """Encoder states, the padding mask and the decoder's initial state."""
        embedded = self.dropout(self.source_embedding(source))
        packed = nn.utils.rnn.pack_padded_sequence(embedded, lengths.cpu(), batch_first=True,
                                                   enforce_sorted=False)
        states, _ = self.encoder(packed)
        memory, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True, total_length=source.shape[1])
        mask = source == self.vocabularies.source.id(PAD)
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


def network(model: Seq2Seq) -> Network:
    """The numpy network of a torch model's weights as they are now (to decode with them)."""
    weights = {k: v.detach().to(torch.float32, copy=True).numpy() for k, v in model.state_dict().items()}
    return Network.of(model.config, weights)


def save(model: Seq2Seq, folder: Path, **changes: Any) -> None:
    """Write the model folder, weights as float16 (half the size); the model in memory is
    rounded the same way, so it is exactly the model a `load` returns."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    model.config = replace(model.config, **changes)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.copy_(parameter.half().float())
    weights = {k: v.detach().to(torch.float16).contiguous() for k, v in model.state_dict().items()}
    save_file(weights, str(folder / files.WEIGHTS))
    files.write_config(folder, model.config)


def load(folder: Path) -> Seq2Seq:
    """The torch model of a folder, read and checked as answering reads it (`files.read`)."""
    config, weights = files.read(folder)
    model = Seq2Seq(config)
    model.load_state_dict({k: torch.from_numpy(v) for k, v in weights.items()})
    return model.eval()
