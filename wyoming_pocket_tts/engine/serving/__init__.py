"""Serving requests: the engine thread, its fair scheduler, requests and the loaded models."""
