# This file is part of Tarsier (Apache-2.0).
#
# BenchExec tool-info module for Tarsier, a verifier and witness validator
# for C programs (Node.js 20 or later). How to load it (README.md here): copy
# it to benchexec/tools/tarsier.py and write <benchmark tool="tarsier">, or put
# the Tarsier checkout on PYTHONPATH and write the module's full dotted name,
# <benchmark tool="contrib.benchexec.tarsier"> (a name without a dot is looked
# up in benchexec.tools only).

import os
import re

import benchexec.result as result
import benchexec.tools.template

try:  # BenchExec's own reading of validation tasks (witness_input_file)
    from benchexec.tools.sv_benchmarks_util import (
        TaskFilesConsidered,
        handle_witness_of_task,
    )
except ImportError:  # an older BenchExec: the same reading, done here
    handle_witness_of_task = None

# The last line of `tarsier verify` and `tarsier validate` is the answer,
# "Verification result: TRUE", "Verification result: FALSE(valid-deref)" or
# "Verification result: UNKNOWN"; the reason is on the line before.
_RESULT = re.compile(
    r"^\s*Verification result:\s*(TRUE|FALSE|UNKNOWN)\s*(?:\(\s*([\w-]+)\s*\))?\s*$"
)

# The violations Tarsier names, as BenchExec spells them.
_FALSE = {
    "unreach-call": result.RESULT_FALSE_REACH,
    "no-overflow": result.RESULT_FALSE_OVERFLOW,
    "termination": result.RESULT_FALSE_TERMINATION,
    "valid-deref": result.RESULT_FALSE_DEREF,
    "valid-free": result.RESULT_FALSE_FREE,
    "valid-memtrack": result.RESULT_FALSE_MEMTRACK,
    "valid-memcleanup": result.RESULT_FALSE_MEMCLEANUP,
    "no-data-race": result.RESULT_FALSE_DATARACE,
}

# Exit statuses of Tarsier when it prints no answer.
_EXIT = {1: "invalid input", 2: "usage or unreadable file", 3: "internal error"}

# The option that turns a run into a validation, as in Ultimate's module.
VALIDATE_OPTION = "--validate"


def _witness_of_task(task, options):
    """The task's input files without the witness, and ["--validate", W] for a validation task."""
    if handle_witness_of_task is not None:
        return handle_witness_of_task(
            task, options, VALIDATE_OPTION, TaskFilesConsidered.SINGLE_INPUT_FILE
        )
    task_options = task.options if isinstance(task.options, dict) else {}
    name = task_options.get("witness_input_file")
    witnesses = [f for f in task.input_files if name and os.path.basename(f) == name]
    others = [f for f in task.input_files if f not in witnesses]
    if len(others) != 1:
        raise benchexec.tools.template.UnsupportedFeatureException(
            "Tarsier needs exactly one program file per task"
        )
    if not name or VALIDATE_OPTION in options:
        return others, []
    if len(witnesses) != 1:
        raise benchexec.tools.template.UnsupportedFeatureException(
            "the witness of the task options is not exactly once among its input files"
        )
    return others, [VALIDATE_OPTION, witnesses[0]]


class Tool(benchexec.tools.template.BaseTool2):
    """
    Tarsier: a verifier and witness validator for C programs, written in
    TypeScript (needs Node.js 20 or later on PATH).
    The executable is bin/tarsier.js of a checkout (built with npm run
    build) or the `tarsier` command of an installed package.
    Verification: `tarsier verify PROGRAM --prop P.prp`, witness in
    ./witness.yml (or ./witness.graphml where the rules ask for GraphML).
    Validation: a task with `witness_input_file` in its options, or the
    option `--validate WITNESS`, runs `tarsier validate PROGRAM --prop P.prp
    --witness WITNESS`.
    """

    # Relative to the package root (the folder above bin/).
    REQUIRED_PATHS = ["bin", "dist", "node_modules", "package.json", "schemas"]

    def executable(self, tool_locator):
        # find_executable raises when it finds nothing: try the installed command, then the checkout's script.
        try:
            return tool_locator.find_executable("tarsier", subdir="bin")
        except benchexec.tools.template.ToolNotFoundException:
            return tool_locator.find_executable("tarsier.js", subdir="bin")

    def program_files(self, executable):
        # An installed `tarsier` is a link into the package (lib/node_modules/tarsier/bin/tarsier.js):
        # the files are those of the package, beside the link's target.
        target = os.path.realpath(executable) if os.path.islink(executable) else executable
        files = self._program_files_from_executable(
            target, self.REQUIRED_PATHS, parent_dir=True
        )
        return [executable] + files if target != executable else files

    def name(self):
        return "Tarsier"

    def version(self, executable):
        return self._version_from_tool(executable, arg="--version")

    def cmdline(self, executable, options, task, rlimits):
        options = list(options)
        input_files, witness_options = _witness_of_task(task, options)
        witness = None
        if VALIDATE_OPTION in options:
            i = options.index(VALIDATE_OPTION)
            if i + 1 >= len(options):
                raise benchexec.tools.template.UnsupportedFeatureException(
                    VALIDATE_OPTION + " needs the witness file"
                )
            witness = options[i + 1]
            del options[i : i + 2]
        elif witness_options:
            witness = witness_options[1]
        cmd = [executable, "validate" if witness else "verify", input_files[0]]
        if task.property_file:
            cmd += ["--prop", task.property_file]
        if witness:
            cmd += ["--witness", witness]
        data_model = (
            task.options.get("data_model") if isinstance(task.options, dict) else None
        )
        if data_model in ("ILP32", "LP64") and "--data-model" not in options:
            cmd += ["--data-model", data_model]
        if rlimits.cputime and "--timeout" not in options:
            cmd += ["--timeout", str(rlimits.cputime)]
        # verify writes its witness into the working folder: ./witness.yml, or
        # ./witness.graphml where the rules ask for GraphML (README.md says
        # where it ends up with and without BenchExec's container).
        return cmd + options

    def determine_result(self, run):
        for line in reversed(run.output):
            match = _RESULT.match(line)
            if not match:
                continue
            answer, prop = match.group(1), match.group(2)
            if answer == "TRUE":
                return result.RESULT_TRUE_PROP
            if answer == "FALSE":
                if prop is None:
                    return result.RESULT_FALSE_PROP
                return _FALSE.get(prop, result.RESULT_FALSE_PROP + "(" + prop + ")")
            return result.RESULT_UNKNOWN
        if run.was_timeout:
            return result.RESULT_TIMEOUT
        code = run.exit_code.value if run.exit_code else None
        if code:
            return result.RESULT_ERROR + "(" + _EXIT.get(code, "exit code " + str(code)) + ")"
        return result.RESULT_ERROR + "(no answer)"

    def get_value_from_output(self, output, identifier):
        for line in reversed(output):
            if line.startswith(identifier):
                return line[len(identifier) :].strip()
        return None
