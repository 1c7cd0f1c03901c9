# The tool-info base class as the module uses it: locating the executable,
# the tasks, limits and runs handed to it, and the program-files helper.
import glob
import os
import subprocess
from typing import NamedTuple, Optional

import benchexec


class ToolNotFoundException(benchexec.BenchExecException):
    pass


class UnsupportedFeatureException(benchexec.BenchExecException):
    pass


class BaseTool2:
    class ToolLocator(NamedTuple):
        tool_directory: Optional[str] = None
        use_path: bool = False
        use_current: bool = False

        def find_executable(self, executable_name, subdir=""):
            places = []
            if self.tool_directory:
                places.append(os.path.join(self.tool_directory, subdir))
            if self.use_path:
                places += os.environ.get("PATH", "").split(os.pathsep)
            for place in places:
                candidate = os.path.join(place, executable_name)
                if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                    return candidate
            raise ToolNotFoundException("Could not find executable '%s'" % executable_name)

    class Task(NamedTuple):
        input_files_or_empty: tuple
        identifier: Optional[str]
        property_file: Optional[str]
        options: Optional[dict]

        @classmethod
        def with_files(cls, input_files, *, property_file=None, options=None):
            return cls(tuple(input_files), None, property_file, options)

        @property
        def input_files(self):
            return self.input_files_or_empty

        @property
        def input_files_or_identifier(self):
            return self.input_files_or_empty or (self.identifier,)

        @property
        def single_input_file(self):
            if len(self.input_files_or_empty) != 1:
                raise UnsupportedFeatureException("one input file expected")
            return self.input_files_or_empty[0]

    class ResourceLimits(NamedTuple):
        cputime: Optional[int] = None
        cputime_hard: Optional[int] = None
        walltime: Optional[int] = None
        memory: Optional[int] = None
        cpu_cores: Optional[int] = None

    class Run(NamedTuple):
        cmdline: tuple
        exit_code: object
        output: list
        termination_reason: Optional[str]

        @property
        def was_timeout(self):
            return self.termination_reason in ("cputime", "cputime-soft", "walltime")

    @staticmethod
    def _program_files_from_executable(executable, required_paths, parent_dir=False):
        base = os.path.dirname(executable)
        if parent_dir:
            base = os.path.join(base, os.path.pardir)
        found = []
        for pattern in required_paths:
            found += glob.glob(os.path.normpath(os.path.join(base, pattern)))
        return found

    @staticmethod
    def _version_from_tool(executable, arg="--version"):
        done = subprocess.run([executable, arg], capture_output=True, text=True)
        return done.stdout.strip()
