"""The small parser: a sequence-to-sequence model trained from scratch on GQA's pairs.

It reads a question as words and writes the program in prefix notation over the IR (one token
per operation or literal), decoded under the typed automaton of the operation table, so every
output is a well-typed program of known words.  It answers in milliseconds; the cascade
(`qlang.translate.cascade`) lets it answer where it is confident and the fine-tuned LLM
elsewhere.

- `tokens`: question tokens, program <-> prefix tokens, the two vocabularies;
- `automaton`: which tokens may come next (types, kinds, categories, a length budget);
- `states`: the automaton's states as integers, their masks as rows of one table;
- `network`: the network (BiLSTM encoder, attentional LSTM decoder) in numpy, what answering
  runs (torch is never imported to answer);
- `files`: a model folder read and checked before any of it is used;
- `model`: the same network in torch, for training, and its saving;
- `device`: the torch module decoding a batch on its device (a GPU), masks and ranking there;
- `beam`: batched beam search under the automaton, with each program's probability;
- `calibrate`: the cascade's threshold.

Training lives in `qlang.train.small` (`qlangc train --arch seq2seq`).
"""
