"""What the tests and the benchmarks share: tiny random Pocket-TTS models (`model_factory`), real
servers to talk to (`support`), and the pre-imported process they fork from (`zygote`)."""
