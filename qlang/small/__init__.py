"""The small parser: a sequence-to-sequence model trained from scratch on GQA's pairs.

It reads a question as words and writes the program in prefix notation over the IR (one token
per operation or literal), decoded under the typed automaton of the operation table, so every
output is a well-typed program of known words.  It answers in milliseconds; the cascade
(`qlang.translate.cascade`) lets it answer where it is confident and the fine-tuned LLM
elsewhere.

- `tokens`: question tokens, program <-> prefix tokens, the two vocabularies;
- `automaton`: which tokens may come next (types, kinds, categories, a length budget);
- `model`: the network (BiLSTM encoder, attentional LSTM decoder), save and load;
- `search`: batched beam search under the automaton, with each program's probability;
- `train`: seeded, resumable training (`qlangc train --arch seq2seq`).
"""
