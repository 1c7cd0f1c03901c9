#!/usr/bin/env bash
# Installs the optional system tools Tarsier uses when they are present
# (Debian/Ubuntu, as root): gcc and cpp (preprocessing, counterexample
# replay), gcc-multilib (replaying ILP32 programs with gcc -m32), qemu-user
# (qemu-i386 runs those programs where the kernel runs no 32-bit ones), native
# SMT solvers z3 and cvc5 (--solver z3|cvc5), valgrind (runs of programs
# that read arrays they wrote), and Chromium (the browser tests
# of the report page and the playground), and redis-server (the job-queue
# tests of tarsier bench --queue). Tarsier works without them and says
# so where one is missing.
set -euo pipefail
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-system-tools: apt-get not found; install gcc, gcc-multilib, qemu-user, valgrind, z3, cvc5, chromium and redis-server with your package manager" >&2
  exit 1
fi
sudo=''
[ "$(id -u)" -eq 0 ] || sudo='sudo'
# One list of every package, so that CI installs them all or fails.
packages=(gcc gcc-multilib qemu-user valgrind z3 cvc5 chromium redis-server)
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${packages[@]}" >/dev/null
echo "install-system-tools: gcc $(gcc -dumpversion), $(qemu-i386 --version | head -1), $(valgrind --version), $(z3 --version), cvc5 $(cvc5 --version 2>/dev/null | head -1 | awk '{print $NF}'), $(chromium --version 2>/dev/null)"
