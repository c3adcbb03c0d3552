"""The household's voices: the catalog (`catalog.py`), voices folders (`folder.py`), changes
to them (`manage.py`), each language's chosen default (`choices.py`), and whether the model can
clone (`cloning.py`); where the built-in voices lie on the hub (`builtin.py`)."""
