"""Mutation testing of the modules that make decisions: break one decision, run its tests.

Each mutant inverts one decision in a named function (a comparison, a boolean, `and`/`or`,
`min`/`max`, `+`/`-`, a dropped call) and runs the fast tests paired with its module; a mutant
the tests still pass "survives". Mutants are written in place into the real source file (restored
after each run, and on Ctrl-C), so the tests that start the server as a subprocess run the mutant
too; a copy of the tree (as mutmut 3 makes) would be invisible to them. Run one module at a time:
`script/mutate scheduler`. The score table is refreshed in MUTATION.md.

Survivors that no test can tell apart are listed in `EQUIVALENT` with the reason.
"""

from __future__ import annotations

import argparse
import ast
import copy
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "MUTATION.md"
PER_MUTANT_TIMEOUT = 300
PKG = "wyoming_pocket_tts"


@dataclass(frozen=True)
class Target:
    """A decision module: its file, the functions mutated, and the fast tests that guard them."""

    path: str
    functions: tuple[str, ...]
    tests: tuple[str, ...]
    light: bool = True
    """The tests need no fixture of tests/conftest.py: skip it (and its torch import)."""


TARGETS: dict[str, Target] = {
    "scheduler": Target(
        "wyoming_pocket_tts/engine/serving/scheduler.py",
        (
            "Scheduler.admit",
            "Scheduler.add",
            "Scheduler.close",
            "Scheduler.cancel",
            "Scheduler.abandon",
            "Scheduler.stop",
            "Scheduler.next",
            "Scheduler.done",
            "Scheduler._choose",
            "Scheduler._take_turn",
            "Scheduler._must_switch",
            "Scheduler._paused",
            "Scheduler._cut",
            "Scheduler._finish",
        ),
        ("tests/units/test_scheduler_rules.py",),
    ),
    "request": Target(
        "wyoming_pocket_tts/engine/serving/request.py",
        ("Listener.heard", "SpeechRequest.runs_out_at", "SpeechRequest.add_error"),
        ("tests/units/test_scheduler_rules.py",),
    ),
    "loudness": Target(
        "wyoming_pocket_tts/audio/loudness.py",
        (
            "integrated_loudness",
            "k_weighted",
            "_k_weighting_biquads",
            "_lufs",
            "gain_for",
            "limit_peaks",
            "apply_gain",
        ),
        ("tests/units/test_loudness_rules.py", "tests/units/test_loudness_measure.py"),
    ),
    "pcm": Target(
        "wyoming_pocket_tts/audio/pcm.py",
        ("to_pcm16",),
        ("tests/units/test_loudness_rules.py",),
    ),
    "catalog": Target(
        "wyoming_pocket_tts/voices/catalog.py",
        (
            "VoiceCatalog.default_for",
            "VoiceCatalog.resolve",
            "VoiceCatalog._default_of",
            "VoiceCatalog._lookup",
            "LoadFailures.check",
            "same_language",
            "with_default_voices",
        ),
        ("tests/units/test_catalog_rules.py",),
    ),
    "models": Target(
        "wyoming_pocket_tts/engine/serving/pool.py",
        ("ModelPool.get", "ModelPool._unload", "ModelPool.failure"),
        ("tests/engine/test_model_pool.py",),
        light=False,
    ),
    "tuning": Target(
        "wyoming_pocket_tts/engine/tuning/rule.py",
        ("best", "spread", "real_time_floor", "choose", "Choice.confidence"),
        ("tests/units/test_tuning_rule.py",),
    ),
    "idle": Target(
        "wyoming_pocket_tts/engine/tuning/idle.py",
        ("on_idle", "_after_export", "_with_graphs", "_measured_again", "_retuned"),
        (
            "tests/engine/test_remeasure.py",
            "tests/engine/test_onnx_runtime.py::test_without_cached_graphs_torch_serves_while_a_child_process_exports",
            "tests/engine/test_onnx_runtime.py::test_an_export_process_that_fails_leaves_torch_serving_and_is_remembered",
            "tests/engine/test_onnx_runtime.py::test_a_provisional_torch_decision_outlives_a_failed_export",
            "tests/engine/test_onnx_runtime.py::test_auto_times_the_graphs_against_torch_when_idle_and_the_next_start_keeps_the_choice",
            "tests/engine/test_onnx_runtime.py::test_auto_times_the_graphs_at_the_precision_torch_chose_and_keeps_them",
            "tests/engine/test_runtime_conditions.py::test_a_request_during_the_switch_to_the_graphs_goes_first",
        ),
        light=False,
    ),
    "course": Target(
        "wyoming_pocket_tts/engine/tuning/course.py",
        ("Course.measured_again", "Course.idle_after", "Course.stop", "Course.without_export"),
        (
            "tests/engine/test_remeasure.py",
            "tests/engine/test_onnx_runtime.py::test_without_cached_graphs_torch_serves_while_a_child_process_exports",
            "tests/engine/test_onnx_runtime.py::test_a_server_that_stops_ends_its_export_process",
            "tests/engine/test_onnx_runtime.py::test_a_provisional_torch_decision_outlives_a_failed_export",
            "tests/server/test_unload.py::test_a_model_whose_graphs_are_being_built_is_not_unloaded",
        ),
        light=False,
    ),
    "equivalents": Target(
        "wyoming_pocket_tts/engine/model/equivalents.py",
        (
            "MatmulConvTranspose1d.forward",
            "MatmulConvTranspose1d._by_matmul",
            "RememberedTimeEmbedding.forward",
            "use_equivalents",
            "remember_time_embeddings",
        ),
        ("tests/engine/test_equivalents.py",),
        light=False,
    ),
    "agreement": Target(
        "wyoming_pocket_tts/text/numbers/agreement.py",
        (
            "Agreement.noun_gender",
            "Agreement.counted_gender",
            "Agreement.case",
            "Agreement.names",
            "Agreement.of",
        ),
        ("tests/units/test_agreement_rules.py", "tests/units/test_numbers_corpus.py"),
        light=False,
    ),
    "int8_gate": Target(
        "wyoming_pocket_tts/engine/onnx/int8_gate.py",
        ("Drift.held", "measure", "_latents", "_relative", "check"),
        (
            "tests/engine/test_int8_gate.py::test_the_int8_graphs_hold_the_gate_here",
            "tests/engine/test_int8_gate.py::test_int8_past_the_bound_is_refused_and_fp32_serves",
        ),
        light=False,
    ),
    "aliases": Target(
        "wyoming_pocket_tts/http/aliases.py",
        ("VoiceAliases.get", "VoiceAliases.__iter__"),
        (
            "tests/server/test_openai_clients.py::test_openai_names_speak_the_default_voice_unless_mapped",
            "tests/server/test_openai_clients.py::test_a_household_nova_speaks_as_itself_and_an_openai_name_follows_the_model",
        ),
        light=False,
    ),
    "openai": Target(
        "wyoming_pocket_tts/http/openai.py",
        ("_voice", "_language"),
        (
            "tests/server/test_openai_clients.py::test_openai_names_speak_the_default_voice_unless_mapped",
            "tests/server/test_openai_clients.py::test_a_household_nova_speaks_as_itself_and_an_openai_name_follows_the_model",
        ),
        light=False,
    ),
    "auth": Target(
        "wyoming_pocket_tts/http/auth.py",
        (
            "cookie_value",
            "install_key",
            "_read_key",
            "from_proxy",
            "token_matches",
            "bearer_auth",
        ),
        (
            "tests/studio/test_studio_units.py::test_the_cookie_secret_is_kept_remade_when_damaged_and_never_fails_a_start",
            "tests/studio/test_studio_read_only.py::test_the_cookie_opens_only_the_install_and_token_it_was_made_for",
            "tests/studio/test_http_guards.py",
            "tests/studio/test_studio_security.py::test_with_a_token_the_page_is_opened_once_with_it",
            "tests/addon/test_supervisor_contract.py::test_studio_with_a_token_through_ingress",
        ),
        light=False,
    ),
    "children": Target(
        "wyoming_pocket_tts/engine/children/process.py",
        (
            "Child.__init__",
            "Child.run",
            "Child._ended_by_bounds",
            "Child.stop",
            "Child._reason",
            "child_main",
            "end_with_parent",
            "fail",
            "one_line",
        ),
        (
            "tests/engine/test_child_runs.py",
            "tests/engine/test_child_conditions.py",
            "tests/engine/test_cloning.py::test_a_voice_child_says_by_its_exit_code_whether_the_weights_cannot_clone",
            "tests/engine/test_onnx_runtime.py::test_an_export_process_that_fails_leaves_torch_serving_and_is_remembered",
            "tests/engine/test_without_torch.py::test_a_cut_checkpoint_in_the_hub_cache_is_downloaded_again_and_served",
            "tests/engine/test_onnx_runtime.py::test_an_export_process_past_its_time_is_killed",
            "tests/engine/test_onnx_runtime.py::test_a_child_killed_by_a_signal_ends_as_killed",
            "tests/engine/test_onnx_runtime.py::test_a_server_that_stops_ends_its_export_process",
        ),
        light=False,
    ),
    "offline": Target(
        "wyoming_pocket_tts/offline.py",
        ("is_missing_network", "waiting_for", "_chain", "_transport_error", "retry_delays"),
        ("tests/units/test_offline_rules.py",),
    ),
    "first_build": Target(
        "wyoming_pocket_tts/engine/onnx/first_build.py",
        ("graphs_now", "_forget_a_failure", "_forget_graphs_that_cannot_clone"),
        (
            "tests/engine/test_without_torch.py::test_a_first_start_without_torch_builds_clones_and_speaks_as_pocket_tts",
            "tests/engine/test_without_torch.py::test_a_build_that_failed_is_tried_again_at_the_next_start",
            "tests/engine/test_without_torch.py::test_no_network_waits_for_the_cloning_weights_alone_and_logs_each_retry_once",
            "tests/addon/test_docs_walkthrough.py::test_voice_cloning",
            "tests/addon/test_docs_walkthrough.py::test_a_restart_keeps_what_the_household_made",
            "tests/engine/test_child_conditions.py::test_the_first_build_without_torch_keeps_the_server_s_priority",
        ),
        light=False,
    ),
    "model_files": Target(
        "wyoming_pocket_tts/engine/model_files.py",
        ("sources",),
        (
            "tests/units/test_model_files.py",
            "tests/engine/test_without_torch.py::test_no_network_waits_for_the_cloning_weights_alone_and_logs_each_retry_once",
            "tests/engine/test_without_torch.py::test_offline_the_weights_without_cloning_already_here_are_built_from",
            "tests/engine/test_without_torch.py::test_a_cut_checkpoint_in_the_hub_cache_is_downloaded_again_and_served",
            "tests/engine/test_without_torch.py::test_a_checkpoint_that_lacks_a_tensor_is_not_downloaded_again",
        ),
        light=False,
    ),
    "making": Target(
        "wyoming_pocket_tts/engine/voice_states/making.py",
        ("VoiceMaking.start",),
        (
            "tests/engine/test_lean_serving.py::test_new_voices_are_encoded_one_child_at_a_time",
            "tests/engine/test_lean_serving.py::test_while_a_child_makes_a_new_voice_the_warm_voices_are_served",
            "tests/engine/test_lean_serving.py::test_a_voice_whose_encoding_child_dies_is_refused_and_the_server_serves_on",
            "tests/engine/test_lean_serving.py::test_a_server_stopped_while_a_voice_is_encoded_exits_at_once",
        ),
        light=False,
    ),
    "decisions": Target(
        "wyoming_pocket_tts/engine/tuning/decisions.py",
        ("host_key", "DecisionStore.read", "DecisionStore.write"),
        ("tests/engine/test_tuning.py", "tests/engine/test_remeasure.py"),
        light=False,
    ),
    "background": Target(
        "wyoming_pocket_tts/engine/onnx/background.py",
        ("BackgroundExport.exporting", "BackgroundExport._run", "BackgroundExport._prepare"),
        (
            "tests/engine/test_onnx_runtime.py::test_a_server_that_stops_ends_its_export_process",
            "tests/server/test_unload.py::test_a_model_whose_graphs_are_being_built_is_not_unloaded",
            "tests/engine/test_onnx_runtime.py::test_an_export_process_that_fails_leaves_torch_serving_and_is_remembered",
            "tests/engine/test_onnx_runtime.py::test_without_a_data_folder_the_export_folder_is_temporary",
            "tests/engine/test_onnx_runtime.py::test_a_graph_that_does_not_load_leaves_a_server_on_torch",
            "tests/engine/test_export_queue.py",
            "tests/engine/test_int8_gate.py::test_a_server_whose_int8_is_refused_serves_fp32_graphs_and_says_why",
            "tests/engine/test_onnx_runtime.py::test_graphs_the_background_cannot_load_are_one_warning_line",
            "tests/engine/test_onnx_runtime.py::test_graphs_that_wait_for_another_child_say_so_then_load",
            "tests/engine/test_onnx_runtime.py::test_a_background_failure_outside_the_build_is_one_warning_line",
        ),
        light=False,
    ),
    "studio": Target(
        "wyoming_pocket_tts/http/studio.py",
        (
            "StudioSettings.read_only",
            "_is_loopback",
            "Guard.wrap",
            "Guard.check_peer",
            "Guard.check_token",
            "Guard.check_changes_allowed",
            "Guard.check_origin",
            "Guard.check_csrf",
        ),
        (
            "tests/studio/test_studio_read_only.py",
            "tests/studio/test_http_guards.py",
            "tests/studio/test_studio_security.py",
        ),
        light=False,
    ),
}

EQUIVALENT: dict[str, str] = {
    "background: BackgroundExport._run: True -> False": (
        "two mutants: lowest_priority(thread=False), where Linux's setpriority(PRIO_PROCESS, 0)"
        " renices the calling thread alone, as the thread's own id does; and rmtree's"
        " ignore_errors, which only a temporary folder that cannot be removed would tell"
    ),
    "background: BackgroundExport._run: why_not is not None -> why_not is None": (
        "a DEBUG line only: the loading thread's nice refused"
    ),
    "first_build: graphs_now: atexit.register(partial(shutil.rmtree, folder, ignore_errors=True)) -> pass": (  # noqa: E501
        "only without a data folder, which the server never is (--data-dir defaults to the XDG"
        " cache): the temporary folder of a caller's own build"
    ),
    "first_build: graphs_now: True -> False": (
        "the same atexit line's ignore_errors: only without a data folder, as above"
    ),
    "first_build: _forget_a_failure: True -> False": (
        "rmtree of a folder the server made and holds a file in: no error to ignore"
    ),
    "children: Child.run: process.stdin is not None -> process.stdin is None": (
        "closing the stdin of a child that has ended: only its descriptor, which the Popen"
        " object's collection closes too (a child that still runs is killed or waited for first)"
    ),
    "children: Child.run: process.stdin.close() -> pass": "as above",
    "children: Child.run: process.kill() -> pass": (
        "the kill for a stop that lands between the check before the child starts and its"
        " start, a window no test can place a stop in (the bounds' kill, in _ended_by_bounds, is"
        " tested: tests/engine/test_child_runs.py)"
    ),
    "children: Child._ended_by_bounds: used > cpu_time -> used >= cpu_time": (
        "the bound's edge: the kill comes one CPU tick (10 ms) or one poll sooner"
    ),
    "children: Child._ended_by_bounds: now - moved > STALLED -> now - moved >= STALLED": (
        "as above: on the clock, one poll's instant"
    ),
    "children: Child.run: code < 0 -> code <= 0": ("inside `if code != 0`: 0 never gets there"),
    "children: Child._reason: code < 0 -> code <= 0": "_reason runs for a code other than 0",
    "children: child_main: why_not is not None -> why_not is None": (
        "Linux lets a process lower its own priority, so why_not is None on every host the tests"
        " run on; the mutant adds one line to the server's debug log"
    ),
    "children: child_main: print(f'The child runs at normal priority: {why_not}', file=sys.stderr) -> pass": (  # noqa: E501
        "as above: never reached"
    ),
    "children: fail: True -> False": (
        "flush: the child exits right after, and the interpreter flushes stderr at exit"
    ),
    "first_build: _forget_graphs_that_cannot_clone: True -> False": (
        "rmtree of a graph folder the server built: no error to ignore, as above"
    ),
    "model_files: sources: offline -> not (offline)": (
        "the other weights' cache-only error, raised instead, has the network's error as its"
        " context: the same missing network, the same first cause in the Waiting line"
    ),
    "catalog: VoiceCatalog.resolve: spec is None and self._roots -> spec is None or self._roots": (
        "only an extra rescan of the folders when the name is known or there are none: same answer"
    ),
    "loudness: limit_peaks: magnitude > KNEE -> magnitude >= KNEE": (
        "at exactly the knee the curve gives the knee itself (tanh(0) = 0): same sample"
    ),
    "loudness: limit_peaks: False -> True": "astype(copy=True) only copies: same values",
    "loudness: integrated_loudness: True -> False": (
        "zip's strict: the block starts and ends are made from one arange, always as many"
    ),
    "loudness: integrated_loudness: levels >= ABSOLUTE_GATE_LUFS -> levels > ABSOLUTE_GATE_LUFS": (
        "differs only for a block at exactly -70.000... LUFS, which no float signal lands on"
    ),
    "loudness: integrated_loudness: levels > relative_gate -> levels >= relative_gate": (
        "differs only for a block exactly on the relative gate, which no float signal lands on"
    ),
    "loudness: integrated_loudness: levels > ABSOLUTE_GATE_LUFS -> levels >= ABSOLUTE_GATE_LUFS": (
        "differs only for a block at exactly -70.000... LUFS, which no float signal lands on"
    ),
    "loudness: k_weighted: data.size + sample_rate - 1 -> data.size + sample_rate + 1": (
        "the FFT length is a power of two at least a second longer than the audio either way"
        " (twice as long when audio plus a second is within a sample of a power): same output"
    ),
    "pcm: to_pcm16: False -> True": "astype(copy=True) only copies: same values",
    "auth: install_key: False -> True": (
        "a missing key file put in place by replace instead of link: they differ only when two"
        " servers on one data folder make it at the same instant, which no test can order"
    ),
}
"""Surviving mutants that are equivalent to the original, each with its one-line reason."""


# Mutation operators.

_COMPARE_SWAPS: dict[type, tuple[type, ...]] = {
    ast.Lt: (ast.GtE, ast.LtE),
    ast.LtE: (ast.Gt, ast.Lt),
    ast.Gt: (ast.LtE, ast.GtE),
    ast.GtE: (ast.Lt, ast.Gt),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
}
_BINOP_SWAPS: dict[type, type] = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div}
_CALL_SWAPS = {"min": "max", "max": "min"}


def _candidates(node: ast.AST) -> list[ast.AST]:
    """The ways to mutate `node` alone (each a replacement node; `None` drops a statement)."""
    out: list[ast.AST] = []
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        for swap in _COMPARE_SWAPS.get(type(node.ops[0]), ()):
            out.append(ast.Compare(node.left, [swap()], node.comparators))
    elif isinstance(node, ast.BoolOp):
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        out.append(ast.BoolOp(other, node.values))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        out.append(node.operand)
    elif isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
        out.append(ast.BinOp(node.left, _BINOP_SWAPS[type(node.op)](), node.right))
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        out.append(ast.Constant(not node.value))
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _CALL_SWAPS
    ):
        out.append(
            ast.Call(ast.Name(_CALL_SWAPS[node.func.id], ast.Load()), node.args, node.keywords)
        )
    elif isinstance(node, (ast.If, ast.While)) and not isinstance(
        node.test, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Constant)
    ):
        out.append(ast.UnaryOp(ast.Not(), node.test))  # marker: negate the condition
    elif isinstance(node, (ast.Expr, ast.Delete)) and not _is_log_or_docstring(node):
        out.append(ast.Pass())
    return out


@dataclass
class Mutant:
    """One mutation: where it is and what it does, as source text."""

    index: int
    function: str
    line: int
    before: str
    after: str
    key: str = field(init=False)

    def __post_init__(self) -> None:
        self.key = f"{self.function}: {self.before} -> {self.after}"


class _Mutator(ast.NodeTransformer):
    """Walks the named functions; lists every candidate, or applies the one numbered `apply`."""

    def __init__(self, functions: tuple[str, ...], apply: int | None = None) -> None:
        self.functions = functions
        self.apply = apply
        self.found: list[Mutant] = []
        self._scope: list[str] = []

    def _qualname(self) -> str:
        return ".".join(self._scope)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self._scope.append(node.name)
        self.generic_visit(node)
        self._scope.pop()
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self._scope.append(node.name)
        inside = self._qualname() in self.functions or any(
            self._qualname().startswith(f"{name}.") for name in self.functions
        )
        if inside:
            node.body = [self.visit(statement) for statement in node.body]
            node.body = [s for s in node.body if s is not None] or [ast.Pass()]
        else:
            self.generic_visit(node)
        self._scope.pop()
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if not self._scope or not (
            self._qualname() in self.functions
            or any(self._qualname().startswith(f"{n}.") for n in self.functions)
        ):
            return super().generic_visit(node)
        if isinstance(node, ast.expr) and _is_docstring_or_annotation(node):
            return node
        replacement: ast.AST | None = None
        for candidate in _candidates(node):
            number = len(self.found)
            self.found.append(
                Mutant(
                    number, self._qualname(), getattr(node, "lineno", 0), *_texts(node, candidate)
                )
            )
            if number == self.apply:
                replacement = candidate
        super().generic_visit(node)
        if replacement is None:
            return node
        if isinstance(node, (ast.If, ast.While)):
            node.test = ast.UnaryOp(ast.Not(), node.test)
            return node
        return ast.copy_location(replacement, node)


def _is_docstring_or_annotation(node: ast.expr) -> bool:
    return False


def _is_log_or_docstring(node: ast.stmt) -> bool:
    """Dropping a log line or a docstring changes no decision."""
    if not isinstance(node, ast.Expr):
        return False
    value = node.value
    if isinstance(value, ast.Constant):
        return True
    return isinstance(value, ast.Call) and ast.unparse(value.func).startswith("_LOGGER.")


def _texts(node: ast.AST, candidate: ast.AST) -> tuple[str, str]:
    if isinstance(node, (ast.If, ast.While)):
        before = ast.unparse(node.test)
        return before, f"not ({before})"
    if isinstance(candidate, ast.Pass):
        return ast.unparse(node).splitlines()[0], "pass"
    return ast.unparse(node), ast.unparse(candidate)


def list_mutants(source: str, target: Target) -> list[Mutant]:
    mutator = _Mutator(target.functions)
    mutator.visit(ast.parse(source))
    return mutator.found


def mutated_source(source: str, target: Target, index: int) -> str:
    mutator = _Mutator(target.functions, apply=index)
    tree = mutator.visit(copy.deepcopy(ast.parse(source)))
    return ast.unparse(ast.fix_missing_locations(tree))


# Running.


def run_tests(tests: tuple[str, ...], timeout: float, light: bool = False) -> str:
    """'passed', 'failed' or 'timeout' for the paired tests against the file as it is now."""
    command = [
        str(ROOT / ".venv" / "bin" / "python"),
        "-m",
        "pytest",
        "-x",
        "-q",
        "-p",
        "no:cacheprovider",
        *(["--noconftest", "--timeout", "15"] if light else ["--timeout", "120"]),
        *tests,
    ]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        result = subprocess.run(
            command, cwd=ROOT, env=env, capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    return "passed" if result.returncode == 0 else "failed"


def mutate_module(name: str, tests: tuple[str, ...] | None, only: str | None) -> dict:
    target = TARGETS[name]
    tests = tests or target.tests
    path = ROOT / target.path
    original = path.read_text()
    mutants = list_mutants(original, target)
    if only:
        mutants = [m for m in mutants if re.search(only, m.key)]
    print(f"{name}: {len(mutants)} mutants of {target.path}, tests: {' '.join(tests)}", flush=True)
    started = time.monotonic()
    light = target.light and tests == target.tests
    if run_tests(tests, PER_MUTANT_TIMEOUT, light) != "passed":
        sys.exit(f"{name}: the paired tests fail on the unmutated code; fix that first")
    baseline = time.monotonic() - started
    timeout = max(60.0, 5 * baseline)
    survivors: list[Mutant] = []
    equivalent: list[Mutant] = []
    killed = 0

    def restore(*_: object) -> None:
        path.write_text(original)
        if _:
            sys.exit(130)

    signal.signal(signal.SIGINT, restore)
    signal.signal(signal.SIGTERM, restore)
    try:
        for mutant in mutants:
            path.write_text(mutated_source(original, target, mutant.index))
            outcome = run_tests(tests, timeout, light)
            path.write_text(original)
            if outcome == "passed":
                if mutant.key in EQUIVALENT or f"{name}: {mutant.key}" in EQUIVALENT:
                    equivalent.append(mutant)
                    status = "equivalent"
                else:
                    survivors.append(mutant)
                    status = "SURVIVED"
            else:
                killed += 1
                status = f"killed ({outcome})"
            print(f"  {status:18} L{mutant.line} {mutant.key}", flush=True)
    finally:
        restore()
    scored = len(mutants) - len(equivalent)
    score = 100.0 * killed / scored if scored else 100.0
    minutes = (time.monotonic() - started) / 60
    print(f"{name}: {killed}/{scored} killed ({score:.0f}%), {minutes:.1f} min", flush=True)
    return {
        "module": name,
        "path": target.path,
        "tests": " ".join(tests),
        "mutants": len(mutants),
        "killed": killed,
        "equivalent": len(equivalent),
        "survivors": [m.key for m in survivors],
        "score": score,
        "minutes": minutes,
        "partial": bool(only) or tests != target.tests,
    }


def refresh_table(result: dict) -> None:
    """Replace the module's row (and its survivors) in MUTATION.md."""
    rows: dict[str, str] = {}
    notes: dict[str, list[str]] = {}
    if TABLE.exists():
        section = None
        for line in TABLE.read_text().splitlines():
            row = re.match(r"^\| `(\w+)` \|", line)
            if row:
                rows[row.group(1)] = line
            heading = re.match(r"^### `(\w+)` survivors", line)
            if heading:
                section = heading.group(1)
                notes[section] = []
            elif section and line.startswith("- "):
                notes[section].append(line)
    name = result["module"]
    rows[name] = (
        f"| `{name}` | `{result['path']}` | {result['mutants']} | {result['killed']} "
        f"| {result['equivalent']} | {len(result['survivors'])} | {result['score']:.0f}% "
        f"| {result['minutes']:.1f} | {time.strftime('%Y-%m-%d')} |"
    )
    notes[name] = [f"- `{key}`" for key in result["survivors"]]
    lines = [
        "# Mutation scores",
        "",
        "Refreshed by `script/mutate MODULE` (see the script's docstring). Score = killed /",
        "(mutants - equivalent). Equivalent mutants and their reasons are listed in",
        "`script/mutate.py` (`EQUIVALENT`).",
        "",
        "| module | file | mutants | killed | equivalent | survived | score | minutes | run |",
        "|---|---|---|---|---|---|---|---|---|",
        *[rows[key] for key in sorted(rows)],
        "",
    ]
    for key in sorted(notes):
        if notes[key]:
            lines += [f"### `{key}` survivors", "", *notes[key], ""]
    TABLE.write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help=f"any of {', '.join(TARGETS)} (default: all)")
    parser.add_argument("--tests", nargs="+", help="run these tests instead of the paired ones")
    parser.add_argument("--only", help="mutants whose description matches this regex")
    parser.add_argument("--list", action="store_true", help="list the mutants; run nothing")
    args = parser.parse_args()
    for name in args.modules or list(TARGETS):
        if name not in TARGETS:
            parser.error(f"unknown module {name!r}; known: {', '.join(TARGETS)}")
        if args.list:
            target = TARGETS[name]
            for mutant in list_mutants((ROOT / target.path).read_text(), target):
                print(f"{name} L{mutant.line} {mutant.key}")
            continue
        result = mutate_module(name, tuple(args.tests) if args.tests else None, args.only)
        if not result["partial"]:
            refresh_table(result)


if __name__ == "__main__":
    main()
