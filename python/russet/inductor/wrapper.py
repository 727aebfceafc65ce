"""Inductor's Python wrapper for russet: PythonWrapperCodegen, with generated
kernels called as `kernel(*args, threads=N)` (launch.GlslKernel)."""

from torch._inductor.codegen.wrapper import PythonWrapperCodegen, SubgraphPythonWrapperCodegen
from torch._inductor.virtualized import V


def _call_helper(base):
    def _generate_kernel_call_helper(self, kernel_name, call_args, *, device=None, triton=True, **kwargs):
        device = device or V.graph.get_current_device_or_throw()
        if not triton and device.type == "russet":
            # launch.GlslKernel takes the current stream itself
            self.writeline(self.wrap_kernel_call(kernel_name, call_args))
            return
        return base._generate_kernel_call_helper(self, kernel_name, call_args, device=device, triton=triton, **kwargs)

    return _generate_kernel_call_helper


class RussetSubgraphWrapperCodegen(SubgraphPythonWrapperCodegen):
    _generate_kernel_call_helper = _call_helper(SubgraphPythonWrapperCodegen)


class RussetWrapperCodegen(PythonWrapperCodegen):
    _generate_kernel_call_helper = _call_helper(PythonWrapperCodegen)

    @staticmethod
    def create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures=None):
        if is_subgraph:
            return RussetSubgraphWrapperCodegen(subgraph_name, parent_wrapper, partition_signatures)
        return RussetWrapperCodegen()
