"""Text on its way to the model: `speech.py` (the whole way), `cleanup.py` (markup and emoji
removed), `numbers/` (numbers said as words), `sentences.py` (streamed replies cut into
sentences), `pronunciations.py` (the household's own), and SSML (`ssml.py`, `ssml_values.py`,
`say_as.py`)."""
