#!/usr/bin/env bash
# Copy the headers a bare GPU machine's build lacks (SQLite's, valijson's) into .deps/include
# (git-ignored), from this machine's distribution packages, so they can travel with the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/include
cp /usr/include/sqlite3.h /usr/include/sqlite3ext.h .deps/include/
rm -rf .deps/include/valijson && cp -r /usr/include/valijson .deps/include/
du -sh .deps
# The sqlite3 shell (scripts/multi-gpu-check.sh queries with it) and the one library of its that a
# bare GPU machine may lack; scripts that need it put .deps/bin on PATH and .deps/lib on the
# loader path where the machine has no sqlite3 of its own.
mkdir -p .deps/bin .deps/lib
cp /usr/bin/sqlite3 .deps/bin/
cp -L /lib/x86_64-linux-gnu/libreadline.so.8 .deps/lib/
du -sh .deps
