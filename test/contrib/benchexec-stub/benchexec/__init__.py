# A stand-in for the parts of BenchExec that contrib/benchexec/tarsier.py
# uses (BenchExec is not packaged by Debian, so CI cannot install it). The
# names and fields follow BenchExec's documented tool-info API; the tests run
# against a real BenchExec source tree instead when TARSIER_BENCHEXEC names it.


class BenchExecException(Exception):
    pass
