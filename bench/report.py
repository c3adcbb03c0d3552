"""The benchmark's Markdown report: each comparison, its ratio, and the target it is held to."""

from __future__ import annotations

from typing import Any

from .loudness import rows as loudness_rows


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _row(what: str, a: str, b: str, ratio: str, target: str, met: bool | None) -> str:
    verdict = "" if met is None else ("yes" if met else "**no**")
    return f"| {what} | {a} | {b} | {ratio} | {target} | {verdict} |"


def render(r: dict[str, Any]) -> str:
    lib, srv = r["library_vs_server"]["library"], r["library_vs_server"]["server"]
    stream, voices, memory = r["streaming"], r["voices"], r["memory"]
    startup, quant, threads = r["startup"], r["quantize"], r["encode_threads"]
    ttfa_ratio = srv["ttfa_median"] / lib["ttfa_median"]
    ttfa_delta = srv["ttfa_median"] - lib["ttfa_median"]
    rtf_ratio = srv["rtf_median"] / lib["rtf_median"]
    stream_delta = (
        stream["stream_first_audio_after_sentence"] - stream["one_shot_ttfa_first_sentence"]
    )
    state_delta = voices["ttfa_from_saved_state"] - voices["ttfa_hit"]
    rss_delta = memory["server_rss_mib"] - memory["library_rss_mib"]
    shapes = {
        "full": "pocket-tts english.yaml shapes",
        "tiny": "tiny test model",
        "slim": "slim test model",
    }.get(r["size"], f"pocket-tts {r['size']}.yaml shapes")
    defaults = r["defaults"]
    d_lib, d_srv = defaults["library"], defaults["server"]
    d_ttfa = d_srv["ttfa_median"] / d_lib["ttfa_median"]
    d_rtf = d_srv["rtf_median"] / d_lib["rtf_median"]
    rows = [
        f"Model: {r['size']} ({shapes}, "
        f"random weights), {r['runs']} runs per side, medians (min-max); "
        f"{lib['audio_seconds']:.1f} s of audio per run. Bench took {r['bench_seconds']:.0f} s.",
        "",
        "| measure | pocket-tts / baseline | server / variant | ratio | target | met |",
        "| --- | --- | --- | --- | --- | --- |",
        _row(
            f"defaults: time to first audio ({defaults['ttfa_runs']} runs per side; server "
            f"--quantize auto chose {defaults['server_quantize']}, pocket-tts fp32)",
            f"{_ms(d_lib['ttfa_median'])} ({_ms(d_lib['ttfa_min'])}-{_ms(d_lib['ttfa_max'])})",
            f"{_ms(d_srv['ttfa_median'])} ({_ms(d_srv['ttfa_min'])}-{_ms(d_srv['ttfa_max'])})",
            f"{d_ttfa:.3f}",
            "<= 0.6",
            d_ttfa <= 0.6,
        ),
        _row(
            "defaults: real-time factor",
            f"{d_lib['rtf_median']:.2f}x ({d_lib['rtf_min']:.2f}-{d_lib['rtf_max']:.2f})",
            f"{d_srv['rtf_median']:.2f}x ({d_srv['rtf_min']:.2f}-{d_srv['rtf_max']:.2f})",
            f"{d_rtf:.3f}",
            ">= 1.4",
            d_rtf >= 1.4,
        ),
        _row(
            "same settings (fp32): time to first audio "
            f"({r['library_vs_server']['ttfa_runs']} runs per side)",
            f"{_ms(lib['ttfa_median'])} ({_ms(lib['ttfa_min'])}-{_ms(lib['ttfa_max'])})",
            f"{_ms(srv['ttfa_median'])} ({_ms(srv['ttfa_min'])}-{_ms(srv['ttfa_max'])})",
            f"{ttfa_ratio:.3f} ({ttfa_delta * 1000:+.0f} ms)",
            "within 10 ms",
            ttfa_delta <= 0.010,
        ),
        _row(
            "same settings (fp32): real-time factor",
            f"{lib['rtf_median']:.2f}x ({lib['rtf_min']:.2f}-{lib['rtf_max']:.2f})",
            f"{srv['rtf_median']:.2f}x ({srv['rtf_min']:.2f}-{srv['rtf_max']:.2f})",
            f"{rtf_ratio:.3f}",
            ">= 0.98",
            rtf_ratio >= 0.98,
        ),
        _row(
            "total time",
            _ms(lib["total_median"]),
            _ms(srv["total_median"]),
            f"{srv['total_median'] / lib['total_median']:.3f}",
            "",
            None,
        ),
        _row(
            "streamed text: first audio after the first sentence is sent "
            f"(words {stream['llm_gap'] * 1000:.0f} ms apart) vs one-shot",
            _ms(stream["one_shot_ttfa_first_sentence"]),
            _ms(stream["stream_first_audio_after_sentence"]),
            f"{stream_delta * 1000:+.0f} ms",
            "within 50 ms",
            stream_delta <= 0.050,
        ),
        _row(
            "voice from saved state vs cached in memory (TTFA)",
            _ms(voices["ttfa_hit"]),
            _ms(voices["ttfa_from_saved_state"]),
            f"{state_delta * 1000:+.0f} ms",
            "within 50 ms",
            state_delta <= 0.050,
        ),
        _row(
            f"a {r['prompt_seconds']:.0f} s voice prompt: encode vs load its saved state "
            "(library, 1 thread)",
            _ms(voices["library_encode_prompt"]),
            _ms(voices["library_load_saved_state"]),
            f"{voices['library_encode_prompt'] / voices['library_load_saved_state']:.0f}x faster",
            "",
            None,
        ),
        _row(
            "first use of a new cloned voice: server TTFA (encodes, 2+ threads)",
            "",
            _ms(voices["ttfa_first_encode"]),
            "",
            "",
            None,
        ),
        _row(
            "encodes: alternating 2 voices / cycling 3 voices through the LRU",
            "",
            f"{voices['encodes_alternating_two_voices']} / "
            f"{voices['encodes_cycling_three_voices_after_first']}",
            "",
            "0 / 0",
            voices["encodes_alternating_two_voices"] == 0
            and voices["encodes_cycling_three_voices_after_first"] == 0,
        ),
        _row(
            f"memory (RSS, model + 2 voices, after {memory['requests']} requests)",
            f"{memory['library_rss_mib']:.0f} MiB",
            f"{memory['server_rss_mib']:.0f} MiB",
            f"{rss_delta:+.0f} MiB",
            "<= +60 MB",
            rss_delta <= 60,
        ),
        _row(
            "start to Ready: cold (encodes 2 voices) / warm (saved states)",
            f"{startup['cold_seconds']:.1f} s",
            f"{startup['warm_seconds']:.1f} s ({startup['warm_encodes']} encodes)",
            f"{startup['warm_seconds'] / startup['cold_seconds']:.2f}",
            "",
            None,
        ),
        _row(
            "server --quantize off / on: TTFA / RTF / RSS",
            f"{_ms(quant['fp32']['ttfa_median'])} / {quant['fp32']['rtf_median']:.2f}x / "
            f"{quant['fp32']['rss_mib']:.0f} MiB",
            f"{_ms(quant['int8']['ttfa_median'])} / {quant['int8']['rtf_median']:.2f}x / "
            f"{quant['int8']['rss_mib']:.0f} MiB",
            f"{quant['int8']['rtf_median'] / quant['fp32']['rtf_median']:.2f} (RTF)",
            "",
            None,
        ),
        _row(
            "voice encoding: 1 vs 2 torch threads",
            _ms(threads["encode_1_threads"]),
            _ms(threads["encode_2_threads"]),
            f"{threads['encode_1_threads'] / threads['encode_2_threads']:.2f}x faster",
            "",
            None,
        ),
    ]
    rows += text_rows(r["text"])
    if "loudness" in r:
        rows += [_row(*row) for row in loudness_rows(r["loudness"])]
    return "\n".join(rows) + "\n"


def text_rows(text: dict[str, Any]) -> list[str]:
    """Speech preparation (clean-up and numbers in words) of 5000 characters, per language."""
    return [
        _row(
            f"prepare {text['chars']} characters of announcements ({code}): "
            "first use / steady, CPU (wall)",
            f"{figures['first_use_cpu_ms']:.1f} ms ({figures['first_use_wall_ms']:.1f} ms)",
            f"{figures['steady_cpu_ms']:.1f} ms ({figures['steady_wall_ms']:.1f} ms)",
            "",
            "steady < 20 ms",
            figures["steady_cpu_ms"] < 20,
        )
        for code, figures in text.items()
        if isinstance(figures, dict)
    ]
