"""A child's load of the model without a second copy of its weights (the export's, a voice's).

pocket-tts builds the model with random weights, then copies the checkpoint's tensors into
them: both copies are resident at once, and at `english` shapes that load was the export's
peak (1,218 MiB of the child's 1,218, 2026-12-02, 2-vCPU host). Inside `one_copy_of_weights` the
random initialisation does not run (the weights stay untouched, not resident) and the load
takes the checkpoint's tensors in place of them (`load_state_dict(assign=True)`, cast to the
dtype the model declared, as the copy would): 807 MiB. The weights are the checkpoint's either
way. Only for a process that does nothing else (`graph_build.child`, `children.voice`): it
patches torch process-wide.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

_RANDOM = frozenset(
    {
        torch.Tensor.uniform_,
        torch.Tensor.normal_,
        torch.Tensor.random_,
        torch.Tensor.bernoulli_,
        torch.Tensor.exponential_,
        torch.Tensor.log_normal_,
        torch.Tensor.geometric_,
        torch.Tensor.cauchy_,
    }
)
"""The in-place random fills `torch.nn.init` is made of."""


class _NoRandomFill(TorchFunctionMode):
    """Random in-place fills leave their tensor as it is (allocated, untouched)."""

    def __torch_function__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        if func in _RANDOM:
            return args[0]
        return func(*args, **(kwargs or {}))


@contextmanager
def one_copy_of_weights() -> Iterator[None]:
    """Load a pocket-tts model inside: no random initialisation, the checkpoint's tensors
    taken in place of the module's (cast where the module declares another dtype)."""
    original = torch.nn.Module.load_state_dict

    def assign(
        module: torch.nn.Module, state_dict: Mapping[str, Any], strict: bool = True,
        assign: bool = False,
    ) -> Any:  # fmt: skip
        declared = module.state_dict()
        cast = {
            key: value.to(declared[key].dtype)
            if isinstance(value, torch.Tensor)
            and key in declared
            and value.dtype != declared[key].dtype
            else value
            for key, value in state_dict.items()
        }
        del declared
        return original(module, cast, strict=strict, assign=True)

    torch.nn.Module.load_state_dict = assign  # type: ignore[method-assign,assignment]
    try:
        with _NoRandomFill():
            yield
    finally:
        torch.nn.Module.load_state_dict = original  # type: ignore[method-assign]
