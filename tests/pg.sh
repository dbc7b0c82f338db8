# SPDX-License-Identifier: Apache-2.0
# tests/pg.sh - a throwaway PostgreSQL server for the tests (sourced).
#
#   pg_start DIR   initdb into DIR/pg, start it listening only on a Unix socket
#                  in DIR/pg (listen_addresses=''), create database isotier and
#                  roles; sets PG_URI (the superuser's URI), PG_SOCKDIR, PG_PORT.
#                  Returns 77 (skip) when no PostgreSQL server binaries exist.
#   pg_stop        stops it (fast shutdown); call it from the caller's trap.
#
# initdb and postgres refuse to run as root: as root the server runs as the
# unprivileged user "nobody" (runuser), owning only DIR/pg.

PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
PG_DIR=
PG_AS=()

pg_start() {
	local dir=$1
	if [ -z "$PG_BIN" ] || [ ! -x "$PG_BIN/initdb" ] || [ ! -x "$PG_BIN/pg_ctl" ]; then
		echo "no PostgreSQL server binaries (apt-get install postgresql)" >&2
		return 77
	fi
	PG_DIR=$dir/pg
	mkdir -p "$PG_DIR"
	if [ "$(id -u)" = 0 ]; then
		chown nobody "$PG_DIR"
		chmod 700 "$PG_DIR"
		# nobody must be able to reach DIR/pg through its parents.
		chmod o+x "$dir"
		PG_AS=(runuser -u nobody --)
	fi
	# A port number is still part of the socket's name; pick one unlikely to clash.
	PG_PORT=${PG_PORT:-$((20000 + ($$ % 20000)))}
	PG_SOCKDIR=$PG_DIR
	(cd "$PG_DIR" && "${PG_AS[@]}" "$PG_BIN/initdb" -D "$PG_DIR/data" -U isotier_admin \
		--auth=trust -E UTF8 --locale=C.UTF-8 >"$PG_DIR/initdb.log" 2>&1) || {
		cat "$PG_DIR/initdb.log" >&2
		return 1
	}
	cat >>"$PG_DIR/data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$PG_DIR'
port = $PG_PORT
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 60
shared_buffers = 32MB
EOF
	(cd "$PG_DIR" && timeout 60 "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" \
		-l "$PG_DIR/server.log" -w -t 30 start >/dev/null) || {
		cat "$PG_DIR/server.log" >&2
		return 1
	}
	PG_URI="postgresql://isotier_admin@/isotier?host=$PG_DIR&port=$PG_PORT"
	pg_psql postgres "CREATE DATABASE isotier" >/dev/null
}

# pg_psql DB SQL: runs SQL in DB as the superuser, over the socket.
pg_psql() {
	local psql=psql
	[ -x "$PG_BIN/psql" ] && psql=$PG_BIN/psql
	timeout 30 "$psql" -qAt -v ON_ERROR_STOP=1 -h "$PG_SOCKDIR" -p "$PG_PORT" -U isotier_admin \
		-d "$1" -c "$2"
}

# pg_sql SQL: runs SQL in database isotier as the superuser.
pg_sql() { pg_psql isotier "$1"; }

pg_stop() {
	[ -n "$PG_DIR" ] && [ -f "$PG_DIR/data/postmaster.pid" ] || return 0
	(cd "$PG_DIR" && timeout 30 "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate \
		-w -t 20 stop >/dev/null 2>&1) || true
}
