"""How the suite spreads over the cores (pytest-xdist `--dist loadgroup`, see script/test), and
which tests `--quick` leaves out.

Every test runs in an xdist group, by default one per file, so that a module's shared server
and models are set up once, on one worker. The tests named in `WHOLE_MACHINE` compare timings
(or memory) measured while they run: they form one group, so no two of them run at the same
time. Groups are handed out longest first (`LONGEST_FIRST`, measured with `--durations`), so no
long file starts last while the other worker idles; the rest follow in collection order.
"""

from __future__ import annotations

import pytest

WHOLE_MACHINE = "whole-machine"
"""The xdist group of the tests that compare timings or memory measured while they run."""

TIMING_TESTS = (
    "test_bench.py",
    "test_fairness.py",
    "test_frame_profile.py",
    "test_http_engine.py",
    "test_scheduling.py::test_an_announcement_during_a_stalled_stream",
    "test_setup_script.py::test_silent_index_is_given_up_within_the_timeout",
    "test_speech_controls.py::test_a_voice_with_its_own_speed",
    "test_reliability.py::test_soak",
)
"""Files, or `file::test name prefix`es, of the tests in `WHOLE_MACHINE`."""

LONGEST_FIRST = (
    WHOLE_MACHINE,
    "test_supervisor_contract.py",
    "test_studio_browser.py",
    "test_reliability.py",
    "test_server.py",
    "test_streaming.py",
    "test_scheduling.py",
    "test_speech_controls.py",
    "test_tuning.py",
    "test_voices.py",
)
"""Groups in the order they start, longest first; groups not named follow."""

QUICK_SKIPS = (
    "test_addon.py::test_addon_with_default_options_finds_them_and_serves",
    "test_bench.py",
    "test_cloning.py",
    "test_discovery.py::test_the_running_server_announces_itself",
    "test_downloads.py",
    "test_equivalents.py",
    "test_fairness.py",
    "test_frame_profile.py",
    "test_health.py",
    "test_http.py",
    "test_http_engine.py",
    "test_hub.py",
    "test_languages.py",
    "test_loudness.py",
    "test_model_pool.py",
    "test_model_factory.py",
    "test_numbers_server.py",
    "test_readme.py",
    "test_reliability.py",
    "test_scheduling.py",
    "test_server.py",
    "test_setup_script.py",
    "test_speech_controls.py",
    "test_speedups.py",
    "test_streaming.py",
    "test_studio_browser.py",
    "test_studio_security.py",
    "test_supervisor_contract.py",
    "test_tuning.py",
    "test_voices.py",
    "test_workflow.py",
)
"""Files (or `file::test name prefix`es) that `--quick` deselects: each starts servers or
builds models for long enough that the quick run would not stay under two minutes."""


def add_quick_option(parser: pytest.Parser) -> None:
    parser.addoption(
        "--quick",
        action="store_true",
        help="leave out the slow tests (servers, browsers, benchmarks): for while you work; "
        "CI runs everything",
    )


def _matches(item: pytest.Item, names: tuple[str, ...]) -> bool:
    """Whether `item` is in a file of `names`, or is a test whose name starts as named."""
    here = f"{item.path.name}::{item.name}"
    return any(here.startswith(name if "::" in name else f"{name}::") for name in names)


def group_of(item: pytest.Item) -> str:
    """The item's xdist group: its own mark's, `WHOLE_MACHINE`, or its file's name."""
    mark = item.get_closest_marker("xdist_group")
    if mark is not None:
        return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
    return WHOLE_MACHINE if _matches(item, TIMING_TESTS) else item.path.name


def group_and_order(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect what `--quick` leaves out, mark each item with its group, order the groups."""
    if config.getoption("quick"):
        skipped = [item for item in items if _matches(item, QUICK_SKIPS)]
        if skipped:
            config.hook.pytest_deselected(items=skipped)
            items[:] = [item for item in items if not _matches(item, QUICK_SKIPS)]
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    groups = {}
    for item in items:
        groups[item] = group_of(item)
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(groups[item]))
    order = {item: index for index, item in enumerate(items)}
    items.sort(key=lambda item: (rank.get(groups[item], len(rank)), order[item]))
