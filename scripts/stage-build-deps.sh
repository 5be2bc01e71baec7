#!/usr/bin/env bash
# Copy the headers a bare GPU machine's build lacks (SQLite's, valijson's) into .deps/include
# (git-ignored), from this machine's distribution packages, so they can travel with the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/include
cp /usr/include/sqlite3.h /usr/include/sqlite3ext.h .deps/include/
rm -rf .deps/include/valijson && cp -r /usr/include/valijson .deps/include/
du -sh .deps
