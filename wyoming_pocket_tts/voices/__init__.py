"""The household's voices: the catalog, voices folders, encoded states and their store."""
