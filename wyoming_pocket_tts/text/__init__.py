"""Text on its way to the model: clean-up for speech and sentence splitting."""
