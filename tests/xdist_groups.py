"""How the suite spreads over the cores (pytest-xdist `--dist loadgroup`, see script/test), and
which tests `--quick` leaves out.

Every test runs in an xdist group (`GroupScheduling`), by default one per file, so that a
module's shared server and models are set up once, on one worker. The tests named in
`TIMING_TESTS` compare timings (or memory) measured while they run: they form one group,
`WHOLE_MACHINE`, so no two of them run at the same time. Groups are handed out in the order of
`LONGEST_FIRST`, so no long file starts last while the other worker idles; the rest follow in
collection order.
"""

from __future__ import annotations

import pytest
from xdist.scheduler import LoadScopeScheduling

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
    "test_runtime_conditions.py",
    "test_request_wiring.py",
)
"""Groups in the order they start, longest first; groups not named follow."""

QUICK_SKIPS = (
    "test_addon.py::test_addon_with_default_options_finds_them_and_serves",
    "test_addon_wiring.py",
    "test_audio_paths.py",
    "test_bench.py",
    "test_cloning.py",
    "test_docs_walkthrough.py",
    "test_discovery.py::test_the_running_server_announces_itself",
    "test_downloads.py",
    "test_equivalents.py",
    "test_fairness.py",
    "test_frame_profile.py",
    "test_graph_build_shapes.py",
    "test_health.py",
    "test_http.py",
    "test_http_engine.py",
    "test_http_guards.py",
    "test_hub.py",
    "test_several_languages.py",
    "test_loudness.py",
    "test_model_factory.py",
    "test_model_pool.py",
    "test_numbers_server.py",
    "test_readme.py",
    "test_reliability.py",
    "test_request_wiring.py",
    "test_runtime_conditions.py",
    "test_scheduling.py",
    "test_server.py",
    "test_setup_script.py",
    "test_speech_controls.py",
    "test_int8.py",
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


def _matches(nodeid: str, names: tuple[str, ...]) -> bool:
    """Whether the test `nodeid` is in a file of `names`, or its name starts as named."""
    path, _, name = nodeid.partition("::")
    here = f"{path.rpartition('/')[2]}::{name}"
    return any(here.startswith(entry if "::" in entry else f"{entry}::") for entry in names)


def group_of(nodeid: str) -> str:
    """The xdist group of the test `nodeid`: `WHOLE_MACHINE`, or its file's name."""
    if _matches(nodeid, TIMING_TESTS):
        return WHOLE_MACHINE
    return nodeid.partition("::")[0].rpartition("/")[2]


def group_and_order(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect what `--quick` leaves out; order the groups (xdist hands them out in the
    order the workers collected them, with `--no-loadscope-reorder`)."""
    if config.getoption("quick"):
        skipped = [item for item in items if _matches(item.nodeid, QUICK_SKIPS)]
        if skipped:
            config.hook.pytest_deselected(items=skipped)
            items[:] = [item for item in items if not _matches(item.nodeid, QUICK_SKIPS)]
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    order = {item.nodeid: index for index, item in enumerate(items)}
    items.sort(key=lambda item: (rank.get(group_of(item.nodeid), len(rank)), order[item.nodeid]))


class GroupScheduling(LoadScopeScheduling):
    """xdist's `loadscope` scheduling with `group_of` as the scope: each group runs on one
    worker, and a worker takes the next group when it is almost done with its own.

    (xdist's own `loadgroup` reads `xdist_group` marks into node ids, which pytest 9.2 no
    longer lets a plugin rewrite, so the groups are computed here from the ids.)"""

    def _split_scope(self, nodeid: str) -> str:
        return group_of(nodeid)
