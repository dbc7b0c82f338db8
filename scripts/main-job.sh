#!/usr/bin/env bash
# The main job (`make run`): verify every local backend against the catalogue
# and keep the result in the SQLite history (./isotier.db unless ISOTIER_DB).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
db=${ISOTIER_DB:-$root/isotier.db}
"$root/${BUILD:-build}/isotier" verify --all --db "$db"
rc=$?
echo "isotier: results stored in $db (see: ${BUILD:-build}/isotier history --db $db)"
exit $rc
