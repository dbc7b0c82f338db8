#!/usr/bin/env bash
# isotier-test: normal
# SPDX-License-Identifier: Apache-2.0
# bwrap-nonet, a variant of bwrap that is one row of backend_bwrap.c's table: the probe sees
# CONTAINER inside, and what makes it a variant shows: a network namespace with loopback only and
# no host network device named in /sys/class/net (bwrap itself binds the host's sysfs, which names
# them). Timeout, SIGINT and a missing binary leave nothing behind, as for bwrap.
source "$ISOTIER_ROOT/tests/lib.sh"
source "$ISOTIER_ROOT/tests/tools/backend-lib.sh"
backend_setup bwrap-nonet
check_probe claim container
check_outer_vm
check_host_view

# The host names at least one device besides lo; bwrap shows them, bwrap-nonet none.
host_devs=$(ls /sys/class/net | tr '\n' ' ')
[ "$host_devs" != "lo " ] || skip "this host has no network device but lo: nothing to hide"
out=$("$DRIVER" --backend bwrap -- /bin/sh -c 'ls /sys/class/net | tr "\n" " "' 2>"$TMP/net.err") ||
  fail "bwrap: ls /sys/class/net: $(cat "$TMP/net.err")"
assert_eq "$out" "$host_devs" "bwrap shows the host's network devices (what the variant hides)"
out=$("$DRIVER" --backend bwrap-nonet -- /bin/sh -c 'ls -A /sys/class/net | wc -l' 2>"$TMP/net.err") ||
  fail "bwrap-nonet: ls /sys/class/net: $(cat "$TMP/net.err")"
assert_eq "$out" "0" "bwrap-nonet: /sys/class/net is empty"
out=$("$DRIVER" --backend bwrap-nonet -- /bin/sh -c 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | tr "\n" " "' 2>"$TMP/net.err") ||
  fail "bwrap-nonet: /proc/net/dev: $(cat "$TMP/net.err")"
assert_eq "$out" "lo " "bwrap-nonet: loopback only"
echo "ok: bwrap-nonet hides the network"

check_timeout 2
check_sigint 1
check_missing_binary bwrap
