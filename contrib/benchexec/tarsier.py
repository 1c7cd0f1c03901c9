# This file is part of Tarsier (Apache-2.0).
#
# BenchExec tool-info module for Tarsier, an SV-COMP style verifier for C
# programs. Install it as benchexec/tools/tarsier.py (or put this folder on
# PYTHONPATH and name the tool module "tarsier" in the benchmark definition).

import re

import benchexec.result as result
import benchexec.tools.template

# The last line of `tarsier verify` is the verdict, e.g.
# "Verification result: FALSE(valid-deref)"; the reason is on the line before.
_RESULT = re.compile(r"^\s*Verification result:\s*(TRUE|FALSE|UNKNOWN)\s*(?:\(\s*([\w-]+)\s*\))?")


class Tool(benchexec.tools.template.BaseTool2):
    """
    Tarsier: a verifier and witness toolkit for C programs written in
    TypeScript (needs Node.js 20+).
    The executable is the npm-installed `tarsier` script (bin/tarsier.js).
    """

    REQUIRED_PATHS = ["bin", "dist", "node_modules", "package.json", "schemas"]

    def executable(self, tool_locator):
        return tool_locator.find_executable("tarsier", subdir="bin") or tool_locator.find_executable("tarsier.js", subdir="bin")

    def name(self):
        return "Tarsier"

    def version(self, executable):
        return self._version_from_tool(executable, arg="--version")

    def cmdline(self, executable, options, task, rlimits):
        cmd = [executable, "verify", task.single_input_file]
        if task.property_file:
            cmd += ["--prop", task.property_file]
        data_model = task.options.get("data_model") if isinstance(task.options, dict) else None
        if data_model in ("ILP32", "LP64"):
            cmd += ["--data-model", data_model]
        if rlimits.cputime and "--timeout" not in options:
            cmd += ["--timeout", str(rlimits.cputime)]
        # The witness goes to witness.yml in the working folder, as the rules ask.
        return cmd + list(options)

    def determine_result(self, run):
        for line in reversed(run.output):
            match = _RESULT.match(line)
            if not match:
                continue
            answer, prop = match.group(1), match.group(2)
            if answer == "TRUE":
                return result.RESULT_TRUE_PROP
            if answer == "FALSE":
                return result.RESULT_FALSE_PROP + "(" + prop + ")" if prop else result.RESULT_FALSE_PROP
            return result.RESULT_UNKNOWN
        if run.was_timeout:
            return result.RESULT_TIMEOUT
        if run.exit_code and run.exit_code.value not in (0, None):
            # Exit status 1: invalid input (unparsable program); 2: usage or unreadable file; 3: internal error.
            return result.RESULT_ERROR + "(exit code " + str(run.exit_code.value) + ")"
        return result.RESULT_ERROR + "(no verdict)"

    def get_value_from_output(self, output, identifier):
        for line in reversed(output):
            if line.startswith(identifier):
                return line[len(identifier):].strip()
        return None
