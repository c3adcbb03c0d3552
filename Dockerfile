# Wyoming Pocket-TTS: the Home Assistant add-on image, and a plain `docker run` image.
#
# This file is the whole build: no build.yaml (deprecated by the Supervisor's 2026 builder).
# The base is Home Assistant's multi-arch Debian image (glibc: ONNX Runtime has no musl wheels),
# on trixie, whose Python is 3.13: PyPI has every dependency's cp313 manylinux wheel for x86_64
# and aarch64, and trixie's glibc (2.41) runs them. The image uses
# neither s6 nor bashio from the base; the Python server is PID 1.
ARG BUILD_FROM=ghcr.io/home-assistant/base-debian:trixie
# Set by BuildKit (`docker buildx build --platform linux/arm64`, the Supervisor's builder).
ARG TARGETARCH

# Home Assistant's name for each architecture BuildKit builds: one stage per supported
# architecture carries the label, so an image can only be labelled for what it runs on, and
# an unsupported TARGETARCH fails the build at the FROM below.
FROM ${BUILD_FROM} AS base-amd64
LABEL io.hass.arch="amd64"

FROM ${BUILD_FROM} AS base-arm64
LABEL io.hass.arch="aarch64"

# A stage above, not an image to tag (hadolint does not resolve the variable).
# hadolint ignore=DL3006
FROM base-${TARGETARCH}

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# Python is the release's python3 (3.13 on trixie); its exact Debian revision is not pinned
# because Debian only serves the latest point release of a package, so an exact pin breaks the
# build at the next security update. The release (via BUILD_FROM) fixes the Python version.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*

ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:${PATH} \
    PYTHONUNBUFFERED=1 \
    HF_HOME=/data/huggingface

# Dependencies before the project, so that these layers are rebuilt only when the lock changes,
# not for each release: every run-time dependency at the version and hashes requirements.lock
# pins (the same lock script/setup installs in CI; script/lock refreshes it). No torch: the
# server runs ONNX Runtime graphs it builds from the checkpoint (`--runtime torch` needs the
# `[torch]` extra, which the image does not carry).
WORKDIR /usr/src/wyoming-pocket-tts
COPY requirements.lock ./
RUN python3 -m venv "${VIRTUAL_ENV}" \
    && pip install --no-cache-dir --no-deps --require-hashes -r requirements.lock

# The project itself (a code or README change rebuilds only this layer); `pip check` fails the
# build if the lock lacks something the project needs.
COPY pyproject.toml README.md ./
COPY wyoming_pocket_tts ./wyoming_pocket_tts
# hadolint ignore=DL3013
RUN pip install --no-cache-dir --no-deps . \
    && pip check \
    && rm -rf /usr/src/wyoming-pocket-tts
WORKDIR /

# Late, so that a new version number invalidates nothing above.
ARG BUILD_VERSION=0.11.1
LABEL \
    io.hass.name="Pocket-TTS" \
    io.hass.description="Text-to-speech with Kyutai's Pocket-TTS over the Wyoming protocol" \
    io.hass.type="app" \
    io.hass.version="${BUILD_VERSION}" \
    org.opencontainers.image.title="wyoming-pocket-tts" \
    org.opencontainers.image.source="https://github.com/wyoming-pocket-tts/wyoming-pocket-tts" \
    org.opencontainers.image.licenses="MIT" \
    org.opencontainers.image.version="${BUILD_VERSION}"

# Runs as root: the Supervisor mounts the add-on's /data and /share owned by root (no user
# mapping), and the model cache, voice states and voices folder must be writable there. Outside
# Home Assistant, `docker run --user UID:GID -e HOME=/data -v DIR:/data -v VOICES:/voices` with
# folders that user owns runs it as that user, and voices the studio saves are theirs (README).
EXPOSE 10200

# A real `describe` -> `info` round trip, not just an open port, at the server's own `--uri`
# (read from PID 1's command line; 127.0.0.1:10200 without one). The port opens before the
# model loads, so the first start's downloads (logged with their progress) do not make the
# container unhealthy; a server that stops answering does.
HEALTHCHECK --start-period=2m --interval=30s --timeout=10s --retries=3 \
    CMD ["/opt/venv/bin/python", "-m", "wyoming_pocket_tts.health", "--timeout", "5"]

# Exec form, no shell: the Python process is PID 1 and receives SIGTERM itself.
# With /data/options.json (written by the Supervisor) the add-on options are used; otherwise the
# arguments of `docker run IMAGE ...` go to the server, e.g. `--language french --voice estelle`.
ENTRYPOINT ["/opt/venv/bin/python", "-m", "wyoming_pocket_tts.addon"]
CMD []
