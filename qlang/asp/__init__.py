"""The ASP back end: scene graphs as facts, the theory, and clingo answering lowered questions."""
