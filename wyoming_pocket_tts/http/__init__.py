"""The HTTP side, on the same engine: the aiohttp application (`app.py`), who may call it
(`auth.py`), errors in OpenAI's shape (`errors.py`); OpenAI's speech API (`openai.py`, its
lists in `listing.py`, its names in `aliases.py`, its events in `sse.py`); and the voice studio
(`studio.py`, its routes in `studio_api.py`, what it shows in `studio_views.py`)."""
