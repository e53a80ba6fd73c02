"""Knowledge as data: triples (head, relation, tail, weight) read from qlang's TSV files,
ConceptNet's assertions and the bundled WordNet base, indexed in SQLite, and asked for a
neighbourhood or ranked paths (`qlang.knowledge.graph`)."""
