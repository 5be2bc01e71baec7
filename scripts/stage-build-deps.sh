#!/usr/bin/env bash
# Copy the headers a bare GPU machine's build lacks (SQLite's, valijson's) into .deps/include
# (git-ignored), from this machine's distribution packages, so they can travel with the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/include
cp /usr/include/sqlite3.h /usr/include/sqlite3ext.h .deps/include/
rm -rf .deps/include/valijson && cp -r /usr/include/valijson .deps/include/
du -sh .deps
# The sqlite3 shell (scripts/multi-gpu-check.sh queries with it), which a bare GPU machine lacks;
# scripts that need it put .deps/bin on PATH where the machine has no sqlite3 of its own.
# The shell must load the library it was built with, not the GPU machine's newer one, so a small
# wrapper gives it its own loader path and nothing else sees that path.
mkdir -p .deps/bin .deps/lib
cp /usr/bin/sqlite3 .deps/lib/sqlite3
cp -L /lib/x86_64-linux-gnu/libreadline.so.8 /lib/x86_64-linux-gnu/libsqlite3.so.0 .deps/lib/
cat > .deps/bin/sqlite3 <<'SH'
#!/bin/sh
lib="$(dirname "$(readlink -f "$0")")/../lib"
LD_LIBRARY_PATH="$lib" exec "$lib/sqlite3" "$@"
SH
chmod +x .deps/bin/sqlite3
du -sh .deps
# CUTLASS's headers for the CuTe experiment (experiments/cute), where the checkout has them beside
# it (../shared/third_party/cutlass-*/include): packed, since they are many small files.
# scripts/gpu-session.sh unpacks them under build/ and sets CUTLASS_DIR.
cutlass=$(ls -d ../shared/third_party/cutlass-*/include 2> /dev/null | tail -1)
if [ -n "$cutlass" ]; then
  tar czf .deps/cutlass-include.tar.gz -C "$cutlass" cute cutlass
  echo "staged $cutlass ($(du -h .deps/cutlass-include.tar.gz | cut -f1) packed)"
fi
du -sh .deps
