#!/usr/bin/env bash
# isotier-test: normal; uses: challenge
# SPDX-License-Identifier: Apache-2.0
# `isotier run --rootfs DIR` runs the command from an unpacked root filesystem
# instead of the host's, read-only, on every sandbox backend.
. "$ISOTIER_ROOT/tests/lib.sh"
command -v musl-gcc >/dev/null || skip "musl-gcc missing (scripts/deps.sh installs musl-tools)"
root=$TMP/rootfs
mkdir -p "$root/bin" "$root/etc"
echo "isotier-rootfs-$$" >"$root/etc/marker"
# A static program that exists only in this root: it prints the marker file
# and tries to write the root, which must fail.
cat >"$TMP/hello.c" <<'C'
#include <stdio.h>
int main(void)
{
	char line[128] = "";
	FILE *f = fopen("/etc/marker", "r");
	if (!f || !fgets(line, sizeof line, f))
		return 2;
	fputs(line, stdout);
	return fopen("/etc/written", "w") ? 3 : 0;
}
C
musl-gcc -static -O2 -o "$root/bin/hello" "$TMP/hello.c"
[ ! -e /bin/hello ] || skip "the host has a /bin/hello, the test cannot tell roots apart"
for backend in bwrap runc runsc qemu-microvm; do
  out=$("$ISOTIER_BIN" run --new-db --db "$TMP/h.db" --backend "$backend" --rootfs "$root" -- /bin/hello 2>"$TMP/err") \
    || fail "$backend: exit $? running from --rootfs: $(cat "$TMP/err")"
  assert_eq "$(tr -d '\r' <<<"$out")" "isotier-rootfs-$$" "$backend: output from the rootfs"
  [ ! -e "$root/etc/written" ] || fail "$backend: the rootfs was writable"
done
# A rootfs that is not a directory is a clear error, before anything starts.
set +e
"$ISOTIER_BIN" run --new-db --db "$TMP/h.db" --backend bwrap --rootfs "$TMP/hello.c" -- /bin/hello 2>"$TMP/err"
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a file accepted as rootfs"
assert_contains "$(cat "$TMP/err")" "rootfs"
echo "ok: --rootfs on every backend"
