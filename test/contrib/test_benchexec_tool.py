# Tests of contrib/benchexec/tarsier.py, the BenchExec tool-info module:
# finding the executable (a checkout, an installed package), the files a
# containerised or remote run needs, the command lines of verification and
# validation, and the result of every answer Tarsier prints. Run by
# test/contrib/benchexec.test.ts; against a real BenchExec source tree when
# TARSIER_BENCHEXEC names one, else against test/contrib/benchexec-stub.

import importlib.util
import os
import stat
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("TARSIER_ROOT") or os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.environ.get("TARSIER_BENCHEXEC") or os.path.join(HERE, "benchexec-stub"))

import benchexec.result as result  # noqa: E402
import benchexec.tools.template as template  # noqa: E402
from benchexec.util import ProcessExitCode  # noqa: E402

_spec = importlib.util.spec_from_file_location("tarsier_tool", os.path.join(ROOT, "contrib", "benchexec", "tarsier.py"))
tarsier = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tarsier)
Tool = tarsier.Tool

PACKAGE_PATHS = ["bin", "dist", "node_modules", "package.json", "schemas"]


def make_package(root):
    """A Tarsier package layout whose bin/tarsier.js prints a version."""
    for d in ["bin", "dist", "node_modules", "schemas"]:
        os.makedirs(os.path.join(root, d), exist_ok=True)
    with open(os.path.join(root, "package.json"), "w") as f:
        f.write('{"name": "tarsier"}\n')
    script = os.path.join(root, "bin", "tarsier.js")
    with open(script, "w") as f:
        f.write("#!/bin/sh\necho 9.8.7\n")
    os.chmod(script, os.stat(script).st_mode | stat.S_IXUSR)
    return script


def run_with(lines, exit_code=0, termination=None):
    return Tool.Run(["tarsier"], ProcessExitCode(exit_code << 8, exit_code, None), list(lines), termination)


class Executable(unittest.TestCase):
    def test_checkout_without_bin_tarsier_finds_bin_tarsier_js(self):
        with tempfile.TemporaryDirectory() as d:
            script = make_package(d)
            exe = Tool().executable(Tool.ToolLocator(tool_directory=d))
            self.assertEqual(os.path.realpath(exe), os.path.realpath(script))
            self.assertEqual(Tool().version(exe), "9.8.7")

    def test_installed_package_on_path(self):
        with tempfile.TemporaryDirectory() as d:
            pkg = os.path.join(d, "lib", "node_modules", "tarsier")
            make_package(pkg)
            os.makedirs(os.path.join(d, "bin"))
            link = os.path.join(d, "bin", "tarsier")
            os.symlink(os.path.join("..", "lib", "node_modules", "tarsier", "bin", "tarsier.js"), link)
            old = os.environ["PATH"]
            os.environ["PATH"] = os.path.join(d, "bin")
            try:
                exe = Tool().executable(Tool.ToolLocator(use_path=True))
            finally:
                os.environ["PATH"] = old
            self.assertEqual(exe, link)
            # The package's files, found through the link, with the link itself.
            files = Tool().program_files(exe)
            self.assertEqual(files[0], link)
            self.assertEqual(
                sorted(os.path.relpath(os.path.realpath(f), os.path.realpath(pkg)) for f in files[1:]),
                sorted(PACKAGE_PATHS),
            )

    def test_nothing_found_raises_tool_not_found(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(template.ToolNotFoundException):
                Tool().executable(Tool.ToolLocator(tool_directory=d))

    def test_this_checkout(self):
        exe = Tool().executable(Tool.ToolLocator(tool_directory=ROOT))
        self.assertEqual(os.path.realpath(exe), os.path.realpath(os.path.join(ROOT, "bin", "tarsier.js")))
        files = Tool().program_files(exe)
        names = sorted(os.path.relpath(f, ROOT) for f in files)
        # node_modules and dist/ are where the code runs from: a container needs them.
        self.assertEqual(names, sorted(PACKAGE_PATHS))


class ProgramFiles(unittest.TestCase):
    def test_paths_resolved_from_the_package_root_not_from_bin(self):
        with tempfile.TemporaryDirectory() as d:
            script = make_package(d)
            files = Tool().program_files(script)
            self.assertEqual(sorted(os.path.relpath(f, d) for f in files), sorted(PACKAGE_PATHS))


class Cmdline(unittest.TestCase):
    limits = Tool.ResourceLimits(cputime=900, cputime_hard=960)

    def test_verification(self):
        task = Tool.Task.with_files(["c/loop.c"], property_file="unreach-call.prp", options={"language": "C", "data_model": "LP64"})
        self.assertEqual(
            Tool().cmdline("bin/tarsier.js", [], task, self.limits),
            ["bin/tarsier.js", "verify", "c/loop.c", "--prop", "unreach-call.prp", "--data-model", "LP64", "--timeout", "900"],
        )

    def test_user_options_win(self):
        task = Tool.Task.with_files(["loop.c"], property_file="p.prp", options={"data_model": "ILP32"})
        cmd = Tool().cmdline("t", ["--timeout", "10", "--data-model", "LP64", "--verbose"], task, self.limits)
        self.assertEqual(cmd, ["t", "verify", "loop.c", "--prop", "p.prp", "--timeout", "10", "--data-model", "LP64", "--verbose"])

    def test_validation_task_names_its_witness(self):
        task = Tool.Task.with_files(
            ["simple.c", "simple-valid-witness.yml"],
            property_file="no-overflow.prp",
            options={"language": "C", "data_model": "ILP32", "witness_input_file": "simple-valid-witness.yml"},
        )
        self.assertEqual(
            Tool().cmdline("t", [], task, Tool.ResourceLimits(cputime=300, cputime_hard=300)),
            ["t", "validate", "simple.c", "--prop", "no-overflow.prp", "--witness", "simple-valid-witness.yml", "--data-model", "ILP32", "--timeout", "300"],
        )

    def test_validation_by_option(self):
        task = Tool.Task.with_files(["x.c"], property_file="p.prp", options=None)
        cmd = Tool().cmdline("t", ["--validate", "w.graphml"], task, Tool.ResourceLimits())
        self.assertEqual(cmd, ["t", "validate", "x.c", "--prop", "p.prp", "--witness", "w.graphml"])

    def test_validate_option_without_witness_is_refused(self):
        task = Tool.Task.with_files(["x.c"], property_file="p.prp", options=None)
        with self.assertRaises(template.UnsupportedFeatureException):
            Tool().cmdline("t", ["--validate"], task, Tool.ResourceLimits())


class Results(unittest.TestCase):
    def check(self, last_line, expected, **kw):
        lines = ["Witness written to /tmp/witness.yml", "some reason", last_line]
        self.assertEqual(Tool().determine_result(run_with(lines, **kw)), expected)

    def test_every_answer(self):
        self.check("Verification result: TRUE", result.RESULT_TRUE_PROP)
        self.check("Verification result: UNKNOWN", result.RESULT_UNKNOWN)
        self.check("Verification result: FALSE", result.RESULT_FALSE_PROP)
        for prop, expected in [
            ("unreach-call", result.RESULT_FALSE_REACH),
            ("no-overflow", result.RESULT_FALSE_OVERFLOW),
            ("termination", result.RESULT_FALSE_TERMINATION),
            ("valid-deref", result.RESULT_FALSE_DEREF),
            ("valid-free", result.RESULT_FALSE_FREE),
            ("valid-memtrack", result.RESULT_FALSE_MEMTRACK),
            ("valid-memcleanup", result.RESULT_FALSE_MEMCLEANUP),
            ("no-data-race", result.RESULT_FALSE_DATARACE),
        ]:
            self.check("Verification result: FALSE(%s)" % prop, expected)

    def test_the_last_answer_counts(self):
        lines = ["Verification result: TRUE", "Verification result: FALSE(valid-free)"]
        self.assertEqual(Tool().determine_result(run_with(lines)), result.RESULT_FALSE_FREE)

    def test_no_answer(self):
        self.assertEqual(Tool().determine_result(run_with(["x.c:3:1: error: expected ';'"], exit_code=1)), "ERROR(invalid input)")
        self.assertEqual(Tool().determine_result(run_with(["usage"], exit_code=2)), "ERROR(usage or unreadable file)")
        self.assertEqual(Tool().determine_result(run_with([], exit_code=3)), "ERROR(internal error)")
        self.assertEqual(Tool().determine_result(run_with([], exit_code=137)), "ERROR(exit code 137)")
        self.assertEqual(Tool().determine_result(run_with([], exit_code=0)), "ERROR(no answer)")
        self.assertEqual(Tool().determine_result(run_with([], exit_code=9, termination="cputime")), result.RESULT_TIMEOUT)

    def test_answer_text_elsewhere_is_no_answer(self):
        lines = ["the loop says: Verification result: TRUE is not printed here"]
        self.assertEqual(Tool().determine_result(run_with(lines, exit_code=3)), "ERROR(internal error)")


if __name__ == "__main__":
    unittest.main()
