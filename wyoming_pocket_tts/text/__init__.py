"""Text on its way to the model: clean-up, numbers said as words, and sentence splitting."""
