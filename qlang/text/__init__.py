"""Text: documents bound to objects and classes, retrieval, extraction, and text read from photos.

NeuroQL's half of the language (its ``neural_match`` and ``neural_extract``), independent of it:

- `documents`: documents files (JSON lines ``{"about", "text", "source"}``), read within bounds;
  `glosses`: the bundled default, WordNet's gloss of each GQA class; `sources`: what ``--docs`` names;
- `retrieve`: how well documents match a text (``bm25``, ``dense``) and the best k candidates;
- `extract`: the span of documents that answers a question, or none (``constrained``, ``lexical``);
- `embedding`: MiniLM sentence embeddings, cached on disk;
- `ranking`: how `know` and `infer` rank their paths, by weight or by the question as well;
- `ocr`: the regions of text a photo shows.
"""
