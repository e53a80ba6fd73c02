"""`qlangc serve`'s web page: a photo (uploaded, or one of the bundled examples) or a GQA scene
graph, a question, and what the whole system makes of it, one request at a time.

`sources` is what a question can be about, `service` answers (the models loaded once), `uploads`
bounds and holds what a request brings, and `app` is the HTTP side (FastAPI) with its page.
"""
