#!/usr/bin/env bash
# isotier-test: slow; uses: quiet docker kvm nspawn podman
# SPDX-License-Identifier: Apache-2.0
# verify --all end to end: the real probe in the real backends against the real
# catalogue; verdicts asserted from --json and from the SQLite file.
. "$ISOTIER_ROOT/tests/lib.sh"
. "$ISOTIER_ROOT/tests/tools/engine-lib.sh"

for tool in bwrap runc runsc crun systemd-nspawn podman dockerd qemu-system-x86_64 qemu-system-aarch64 sqlite3; do
  command -v "$tool" >/dev/null || skip "$tool is not installed: verify --all cannot run every backend"
done
docker_up
[ -x "$ISOTIER_PROBE" ] || fail "no probe at $ISOTIER_PROBE"

db=$TMP/h.db
set +e
"$ISOTIER_BIN" verify --all --db "$db" --json >"$TMP/out.json" 2>"$TMP/err"
rc=$?
set -e
cat "$TMP/err" >&2
python3 - "$TMP/out.json" <<'EOF' >&2 || true
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f'{r["backend"]:14} {r["verdict"]:13} {r["observed_tier"]:10} {r.get("observed_vendor")} {r["duration_ms"]} ms: {r["reason"]}')
EOF
assert_eq "$rc" 0 "verify --all exit status"
assert_eq "$(json_get "$TMP/out.json" exit_code)" 0 "exit_code in the document"
assert_eq "$(json_get "$TMP/out.json" interrupted)" False "interrupted"

# Per backend, from the JSON document.
verdict_of() { python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["backend"] == sys.argv[2]: print(r["verdict"], r["observed_tier"], r["observed_vendor"] or "-", r["claimed_tier"] or "-")' "$TMP/out.json" "$1"; }
# Every backend with a claim is CONFIRMED at its claimed tier: what is expected is derived from
# the claim each descriptor links (`backends --names`), never written per backend here.
"$ISOTIER_BIN" backends --names >"$TMP/names" || fail "backends --names"
while IFS=$'\t' read -r name where entry; do
  if [ "$where" != local ] || [ "$entry" = - ]; then continue; fi
  read -r verdict observed _ claimed <<<"$(verdict_of "$name")"
  case $claimed in CONTAINER|GVISOR|MICROVM) ;; *) fail "$name: claimed tier '$claimed'" ;; esac
  assert_eq "$verdict $observed" "CONFIRMED $claimed" "$name"
done <"$TMP/names"
# What names the runtime where the probe can tell it.
assert_eq "$(verdict_of nspawn | cut -d" " -f3)" "systemd-nspawn" "nspawn vendor"
assert_eq "$(verdict_of docker | cut -d" " -f3)" "docker" "docker vendor"
assert_eq "$(verdict_of podman | cut -d" " -f3)" "podman" "podman vendor"
assert_eq "$(verdict_of qemu-aarch64 | cut -d' ' -f3)" "qemu" "qemu-aarch64 vendor"
case "$(verdict_of qemu-microvm | cut -d' ' -f3)" in
  qemu|tcg|qemu-tcg) ;;
  *) fail "qemu-microvm vendor: $(verdict_of qemu-microvm)" ;;
esac
host=$(verdict_of host)
assert_eq "$(cut -d' ' -f1,4 <<<"$host")" "INCONCLUSIVE -" "host (no --host-provider: no claim)"
# This machine kind is a Firecracker microVM (ACPI OEM FIRECK in the kernel log).
if dmesg 2>/dev/null | grep -q FIRECK; then
  assert_eq "$(cut -d' ' -f2,3 <<<"$host")" "MICROVM firecracker" "host observation"
fi
assert_contains "$(python3 -c 'import json,sys
print([r["reason"] for r in json.load(open(sys.argv[1]))["results"] if r["backend"] == "host"][0])' "$TMP/out.json")" "no claim (pass --host-provider)"

# The same, from the database.
q() { sql "$db" "$1"; }
run=$(json_get "$TMP/out.json" run_id)
assert_eq "$(q "SELECT status FROM runs WHERE id = $run")" ok "run status"
assert_eq "$(q "SELECT tool_version FROM runs WHERE id = $run")" "$("$ISOTIER_BIN" --version | cut -d' ' -f2)" "tool version"
commit=$(q "SELECT catalogue_commit FROM runs WHERE id = $run")
assert_eq "$commit" "$(json_get "$TMP/out.json" catalogue_commit)" "catalogue commit"
[[ "$commit" =~ ^[0-9a-f]{40}$ ]] || fail "catalogue commit '$commit' is not a commit id"
git -C "$ISOTIER_ROOT" merge-base --is-ancestor "$commit" HEAD || fail "catalogue commit $commit is not in this repository's history"
# One per local backend of the registry (verify --all skips the remote ones without credentials).
n_local=$("$ISOTIER_BIN" backends --names | awk -F'\t' '$2 == "local"' | wc -l)
[ "$n_local" -ge 13 ] || fail "backends --names: $n_local local backends"
assert_eq "$(q "SELECT count(*) FROM observations WHERE run_id = $run")" "$n_local" "one observation per backend"
assert_eq "$(q "SELECT group_concat(backend || '=' || verdict || '/' || observed_tier, ' ') FROM (SELECT * FROM observations WHERE run_id = $run ORDER BY backend)")" \
  "$(python3 -c 'import json,sys
rows = sorted((r["backend"], r["verdict"], r["observed_tier"]) for r in json.load(open(sys.argv[1]))["results"])
print(" ".join(f"{b}={v}/{t}" for b, v, t in rows))' "$TMP/out.json")" "rows: the document's"
assert_eq "$(q "SELECT count(*) FROM observations WHERE run_id = $run AND verdict = 'CONFIRMED' AND observed_tier = claimed_tier")" \
  "$(awk -F'\t' '$2 == "local" && $3 != "-"' "$TMP/names" | wc -l)" "rows: every claimed backend CONFIRMED at its claim"
assert_eq "$(q "SELECT provider_id || ' ' || claimed_tier || ' ' || claimed_mechanism FROM observations WHERE run_id = $run AND backend = 'runsc'")" "runsc GVISOR gvisor" "runsc claim"
assert_eq "$(q "SELECT count(*) FROM observations WHERE run_id = $run AND provider_id IS NULL")" 1 "only host has no claim"
# Every observation keeps the full probe JSON, its layers and the capture as a tar.
assert_eq "$(q "SELECT count(*) FROM observations WHERE run_id = $run AND json_extract(probe_json, '\$.schema') = 'isotier.probe/1' AND json_valid(layers_json) AND evidence_format = 'tar' AND length(COALESCE(evidence, (SELECT content FROM evidence_blobs e WHERE e.sha256 = observations.evidence_sha256))) > 1024 AND duration_ms > 0")" "$n_local" "probe JSON, layers, evidence"
for b in bwrap runsc docker qemu-aarch64; do
  q "SELECT writefile('$TMP/$b.tar', COALESCE(evidence, (SELECT content FROM evidence_blobs e WHERE e.sha256 = observations.evidence_sha256))) FROM observations WHERE run_id = $run AND backend = '$b'" >/dev/null
  python3 - "$TMP/$b.tar" <<'EOF' || fail "$b evidence is not a tar holding the capture"
import sys, tarfile
names = tarfile.open(sys.argv[1]).getnames()
assert any(n.startswith(".probe/") or n.startswith("proc/") for n in names), names
EOF
done
# The database is WAL and passes an integrity check.
assert_eq "$(q "PRAGMA journal_mode")" wal "journal mode"
assert_eq "$(q "PRAGMA integrity_check")" ok "integrity"

# The text form: one summary row per backend, terminal-safe.
"$ISOTIER_BIN" verify --backend bwrap --db "$db" >"$TMP/table" 2>&1 || fail "verify --backend bwrap: $(cat "$TMP/table")"
assert_contains "$(cat "$TMP/table")" "BACKEND"
grep -Eq '^bwrap +CONTAINER \(bubblewrap\) +CONTAINER( \(bubblewrap\))? +CONFIRMED +[0-9]+ ms' "$TMP/table" || fail "summary row: $(cat "$TMP/table")"
assert_eq "$(q "SELECT count(*) FROM runs")" 2 "two runs"
echo "verify --all: $host"
