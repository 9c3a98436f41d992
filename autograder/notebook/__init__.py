"""Notebooks as data: a submission read with limits (`parse`), its cells and their names (`cells`), what an
assignment's notebooks import (`imports`), and the release's stub (`stub`)."""
