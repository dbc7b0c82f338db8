/* SPDX-License-Identifier: Apache-2.0 */
/* cli.c - helpers every subcommand shares: errors, exit codes, defaults.
 * Kept out of main.c so the unit suites link them too. */
#include "cli.h"
#include "../../reference/api/isotier_tool.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cli_default_catalogue(void)
{
	return isotier__default_catalogue_dir();
}

void cli_error(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	/* A context whose detail was empty ("x: " + ""): never end an error in
	 * ": " with nothing after it, nor say ": : ". */
	/* A history URI's password never reaches the terminal, whichever
	 * message names the URI (history.h). */
	if (strstr(buf, "://")) {
		char shown[sizeof buf];
		for (char *u = strstr(buf, "postgres"); u; u = strstr(u + 1, "postgres"))
			if (isotier__history_is_uri(u)) {
				isotier__history_display(u, shown, sizeof shown);
				snprintf(u, sizeof buf - (size_t)(u - buf), "%s", shown);
			}
	}
	for (char *p; (p = strstr(buf, ": : ")) != NULL;)
		memmove(p, p + 2, strlen(p + 2) + 1);
	size_t n = strlen(buf);
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == ':'))
		buf[--n] = '\0';
	fputs("isotier: ", stderr);
	isotier__fputs_sanitized(stderr, buf);
	fputc('\n', stderr);
}

/* A system call's failure, by its errno: not a file (a directory, a FIFO or
 * device where a history was named) 66, not this user's to read 77,
 * anything else 74. */
static int errno_exit(int e)
{
	switch (e) {
	case EISDIR:
	case ENODEV: return EXIT_NOINPUT;
	case EACCES:
	case EPERM: return EXIT_NOPERM;
	default: return EXIT_IOERR;
	}
}

int cli_fail(const isotier_error *err)
{
	cli_error("%s", err->message[0] ? err->message : isotier_strerror(err->code));
	return cli_exit_code(err);
}

int cli_exit_code(const isotier_error *err)
{
	switch (err->code) {
	case ISOTIER_EINVAL: return EXIT_USAGE;
	case ISOTIER_EDATA: return EXIT_DATAERR;
	case ISOTIER_EUNAVAILABLE: return EXIT_UNAVAIL;
	case ISOTIER_ECONFIG: return EXIT_CONFIG;
	case ISOTIER_EBUSY: return EXIT_TEMPFAIL;
	case ISOTIER_EDB:
		return (err->db_code & 0xff) == ISOTIER_DB_NOTADB ? EXIT_DATAERR : EXIT_IOERR;
	case ISOTIER_EIO: return errno_exit(err->sys_errno);
	case ISOTIER_EINTR: return EXIT_INTERRUPTED;
	case ISOTIER_ENOTFOUND:
		return err->sys_errno == ENOENT || err->sys_errno == ENOTDIR ? EXIT_NOINPUT
		                                                             : EXIT_DATAERR;
	default: return EXIT_SOFTWARE;
	}
}

const char *cli_db_why(const char *path)
{
	/* SQLite says "unable to open database file" for every cause; the
	 * operator needs the cause: the file or its directory (journal, WAL)
	 * not writable, and why. */
	if (isotier__history_is_uri(path))
		return ""; /* a server's history: libpq's message says why */
	static __thread char why[PATH_MAX + 96];
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		slash == dir ? (void)(slash[1] = '\0') : (void)(*slash = '\0');
	else
		snprintf(dir, sizeof dir, ".");
	const char *what = NULL;
	int e = 0;
	if (access(path, F_OK) == 0 && access(path, W_OK) != 0)
		what = path, e = errno;
	else if (access(dir, W_OK) != 0)
		what = dir, e = errno;
	if (!what || !e)
		return "";
	snprintf(why, sizeof why, " (%s is not writable: %s)", what,
	         e == EROFS ? "read-only file system" : strerror(e));
	return why;
}

int cli_check_db(const char *opt, const char *path)
{
	isotier_error err = {0};
	if (isotier__history_target_check(path, &err) < 0) {
		cli_error("%s: %s", opt, err.message); /* the value not echoed */
		return EXIT_USAGE;
	}
	if (isotier__history_is_uri(path))
		return EXIT_OK; /* libpq parses it when the history is opened */
	if (isotier__history_check_file(path, &err) == 0)
		return EXIT_OK;
	if (err.code == ISOTIER_EIO && err.sys_errno)
		cli_error("%s %s: %s (%s)", opt, path, strerror(err.sys_errno),
		          strerrorname_np(err.sys_errno) ? strerrorname_np(err.sys_errno) : "?");
	else
		cli_error("%s: %s", opt, err.message);
	if (err.code == ISOTIER_EIO && (err.sys_errno == EACCES || err.sys_errno == EPERM))
		return EXIT_NOPERM; /* there, but not this user's to read */
	return err.code == ISOTIER_EDATA ? EXIT_DATAERR : EXIT_NOINPUT;
}

int cli_history_readable(const char *db)
{
	isotier_error err = {0};
	int rc = isotier__history_present(db, "--db", &err);
	if (rc > 0)
		return EXIT_OK;
	if (err.code == ISOTIER_ENOTFOUND) {
		cli_error("no history database at %s (`isotier verify` creates it)", db);
		return EXIT_NOINPUT;
	}
	return cli_fail(&err);
}

int cli_parse_int(const char *opt, const char *s, int lo, int hi, int *out)
{
	char *end = NULL;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		cli_error("%s: expected a number from %d to %d, got '%s'", opt, lo, hi, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

int cli_subcommand(int argc, char **argv, const char *sub, int (*run)(int, char **),
                   void (*usage)(FILE *))
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (!strcmp(argv[1], sub))
		return run(argc - 1, argv + 1);
	const char *hint = cli_suggest(argv[1], &sub, 1);
	if (hint)
		cli_error("%s: unknown subcommand '%s' (did you mean '%s'?)", argv[0], argv[1],
		          hint);
	else
		cli_error("%s: unknown subcommand '%s'", argv[0], argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}

/* ---- cli_write_output ---------------------------------------------------- */

/* path made absolute and free of symbolic links in its directory part (the
 * file itself need not exist); false when the directory cannot be resolved. */
static bool canonical_name(char out[PATH_MAX], const char *path)
{
	if (realpath(path, out))
		return true;
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	char rdir[PATH_MAX];
	if (!realpath(dir, rdir))
		return false;
	int n = snprintf(out, PATH_MAX, "%s/%s", strcmp(rdir, "/") ? rdir : "", base);
	return n > 0 && n < PATH_MAX;
}

/* The database at db_path, or its -wal, -shm or -journal: by inode when
 * target exists (st non-NULL), and by name either way. */
static const char *db_file_named(const char *target, const struct stat *st, const char *db_path)
{
	static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
	char ct[PATH_MAX], cdb[PATH_MAX];
	bool have_ct = canonical_name(ct, target), have_db = canonical_name(cdb, db_path);
	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
		char name[PATH_MAX + 16];
		struct stat s;
		snprintf(name, sizeof name, "%s%s", db_path, suffix[i]);
		if (st && stat(name, &s) == 0 && s.st_dev == st->st_dev && s.st_ino == st->st_ino)
			return suffix[i];
		snprintf(name, sizeof name, "%s%s", cdb, suffix[i]);
		if (have_ct && have_db && !strcmp(ct, name))
			return suffix[i];
	}
	return NULL;
}

static bool is_sqlite_file(const char *path)
{
	static const char magic[16] = "SQLite format 3";
	char head[16];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, head, sizeof head);
	close(fd);
	return n == (ssize_t)sizeof head && !memcmp(head, magic, sizeof magic);
}

/* Renders into f and closes it; checks every step. */
static int render_and_close(FILE *f, const char *name, bool sync, cli_output_fn write,
                            const void *ctx)
{
	char *buf = malloc(1 << 20);
	if (buf)
		setvbuf(f, buf, _IOFBF, 1 << 20);
	int rc = EXIT_OK;
	errno = 0;
	int written = write(f, ctx);
	if (written < 0) {
		cli_error("write %s: %s", name, isotier_strerror(written));
		rc = EXIT_SOFTWARE;
	} else if (fflush(f) != 0 || ferror(f)) {
		cli_error("write %s: %s", name, strerror(errno ? errno : EIO));
		rc = EXIT_IOERR;
	} else if (sync && fsync(fileno(f)) != 0) {
		cli_error("fsync %s: %s", name, strerror(errno));
		rc = EXIT_IOERR;
	}
	if (fclose(f) != 0 && rc == EXIT_OK) {
		cli_error("close %s: %s", name, strerror(errno));
		rc = EXIT_IOERR;
	}
	free(buf);
	return rc;
}

int cli_print_json(struct cJSON *doc)
{
	char *text = isotier__json_print(doc, true);
	cJSON_Delete(doc);
	if (!text)
		return -1;
	puts(text);
	free(text);
	return 0;
}

int cli_write_stream(FILE *f, const char *name, cli_output_fn write, const void *ctx)
{
	static char buf[1 << 20]; /* standard output's, set before its first byte */
	if (f == stdout)
		setvbuf(f, buf, _IOFBF, sizeof buf);
	errno = 0;
	int written = write(f, ctx);
	if (written < 0) {
		fflush(f);
		cli_error("write %s: %s", name, isotier_strerror(written));
		return EXIT_SOFTWARE;
	}
	if (fflush(f) != 0 || ferror(f)) {
		cli_error("write %s: %s", name, strerror(errno ? errno : EIO));
		return EXIT_IOERR;
	}
	return EXIT_OK;
}

/* A FIFO reader gets this long to open its end; then the write is refused
 * instead of waiting forever. */
#define FIFO_READER_WAIT_MS 5000

/* A device, FIFO or /dev/stdout: written where it is, never created or renamed.
 * Opened O_NONBLOCK, so a FIFO nobody reads is refused rather than waited on
 * forever; blocking writes once open (a reader that is there drains them). */
static int write_in_place(const char *path, bool nofollow, cli_output_fn write, const void *ctx)
{
	int fd = -1;
	for (int waited = 0;; waited += 50) {
		/* nofollow: a FIFO or device swapped for a link since lstat is not
		 * followed (ELOOP); /dev/std* and /proc paths are links by nature. */
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK |
		                    (nofollow ? O_NOFOLLOW : 0));
		if (fd >= 0 || errno != ENXIO || waited >= FIFO_READER_WAIT_MS)
			break;
		usleep(50 * 1000);
	}
	if (fd < 0) {
		if (errno == ENXIO)
			cli_error(
			    "open %s: a FIFO with no reader (waited %d ms); not writing to it",
			    path, FIFO_READER_WAIT_MS);
		else
			cli_error("open %s: %s", path, strerror(errno));
		return errno == ENOENT || errno == ENXIO ? EXIT_CANTCREAT : EXIT_IOERR;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		cli_error("open %s: %s", path, strerror(errno));
		close(fd);
		return EXIT_IOERR;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		cli_error("open %s: %s", path, strerror(errno));
		close(fd);
		return EXIT_IOERR;
	}
	return render_and_close(f, path, false, write, ctx);
}

/* The descriptor /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N
 * names, or -1. */
static int alias_fd(const char *path)
{
	if (!strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	const char *n = !strncmp(path, "/dev/fd/", 8)          ? path + 8
	                : !strncmp(path, "/proc/self/fd/", 14) ? path + 14
	                                                       : NULL;
	if (!n || *n < '0' || *n > '9' || strlen(n) > 6)
		return -1;
	int fd = 0;
	for (; *n; n++) {
		if (*n < '0' || *n > '9')
			return -1;
		fd = fd * 10 + (*n - '0');
	}
	return fd;
}

/* An open descriptor: written at its own offset and with its own flags
 * (reopening /dev/stdout would start at offset 0 even under `>>`). */
static int write_to_fd(const char *path, int fd, cli_output_fn write, const void *ctx)
{
	int copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	FILE *f = copy < 0 ? NULL : fdopen(copy, "w");
	if (!f) {
		cli_error("open %s: %s", path, strerror(errno));
		if (copy >= 0)
			close(copy);
		return EXIT_CANTCREAT;
	}
	return render_and_close(f, path, false, write, ctx);
}

/* Writes beside the target and renames: a reader never sees half a file. */
static int write_replacing(const char *path, cli_output_fn write, const void *ctx)
{
	char tmp[PATH_MAX + 16];
	snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		cli_error("create %s: %s", tmp, strerror(errno));
		return EXIT_CANTCREAT;
	}
	FILE *f = NULL;
	if (fchmod(fd, 0644) != 0 || !(f = fdopen(fd, "w"))) { /* 0600 would hide it */
		cli_error("open %s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return EXIT_CANTCREAT;
	}
	int rc = render_and_close(f, tmp, true, write, ctx);
	if (rc == EXIT_OK && rename(tmp, path) != 0) {
		cli_error("rename %s to %s: %s", tmp, path, strerror(errno));
		rc = EXIT_CANTCREAT;
	}
	if (rc != EXIT_OK)
		unlink(tmp);
	return rc;
}

int cli_write_output(const char *opt, const char *path, const char *db_path, cli_output_fn write,
                     const void *ctx)
{
	size_t len = strlen(path);
	if (len == 0 || len > PATH_MAX - 32) {
		cli_error("%s: bad path", opt);
		return EXIT_USAGE;
	}
	/* Aliases of a descriptor: whatever they are, never replace them. */
	int fd = alias_fd(path);
	if (fd >= 0)
		return write_to_fd(path, fd, write, ctx);
	if (!strncmp(path, "/dev/std", 8) || !strncmp(path, "/dev/fd/", 8) ||
	    !strncmp(path, "/proc/", 6))
		return write_in_place(path, false, write, ctx);
	struct stat st;
	if (lstat(path, &st) != 0) {
		if (errno != ENOENT) {
			cli_error("%s %s: %s", opt, path, strerror(errno));
			return EXIT_CANTCREAT;
		}
		const char *which = db_path ? db_file_named(path, NULL, db_path) : NULL;
		if (which) {
			cli_error("%s %s: that is the history database%s%s; not overwriting it",
			          opt, path, *which ? "'s " : "", which);
			return EXIT_USAGE;
		}
		return write_replacing(path, write, ctx);
	}
	/* Never followed: replacing what a link names would give someone else's
	 * file our owner and mode, and the link could be swapped between
	 * resolving it and the rename. The rename below replaces the directory
	 * entry itself, so a link planted after this check is replaced, never
	 * followed. */
	if (S_ISLNK(st.st_mode)) {
		cli_error("%s %s: a symbolic link; not following it (name the file itself)", opt,
		          path);
		return EXIT_USAGE;
	}
	if (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode)) {
		cli_error("%s %s: a %s; not writing to it", opt, path,
		          S_ISDIR(st.st_mode) ? "directory" : "block device");
		return EXIT_CANTCREAT;
	}
	if (!S_ISREG(st.st_mode))
		return write_in_place(path, true, write, ctx);
	const char *which = db_path ? db_file_named(path, &st, db_path) : NULL;
	if (which) {
		cli_error("%s %s: that is the history database%s%s; not overwriting it", opt, path,
		          *which ? "'s " : "", which);
		return EXIT_USAGE;
	}
	if (is_sqlite_file(path)) {
		cli_error("%s %s: an SQLite database; not overwriting it", opt, path);
		return EXIT_USAGE;
	}
	return write_replacing(path, write, ctx);
}

/* ---- helping a user who mistyped ------------------------------------------ */

/* Optimal string alignment distance (a transposition counts once), capped. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return SIZE_MAX;
	size_t d[65][65];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *cli_suggest(const char *word, const char *const *choices, size_t n)
{
	if (!word || !*word)
		return NULL;
	size_t len = strlen(word), best = SIZE_MAX;
	const char *pick = NULL, *prefix = NULL;
	size_t n_prefix = 0;
	for (size_t i = 0; i < n; i++) {
		if (!choices[i])
			continue;
		if (!strncmp(choices[i], word, len))
			prefix = choices[i], n_prefix++;
		size_t d = edit_distance(word, choices[i]);
		if (d < best)
			best = d, pick = choices[i];
	}
	size_t limit = len < 4 ? 1 : len < 8 ? 2 : 3;
	if (pick && best <= limit)
		return pick;
	return n_prefix == 1 ? prefix : NULL;
}

const char *cli_plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

int cli_unknown_option(const char *cmd, const char *arg, const struct option *longopts,
                       void (*usage)(FILE *))
{
	const char *names[128];
	char spelled[128][40];
	size_t n = 0;
	for (size_t i = 0; longopts && longopts[i].name && n < 128; i++) {
		snprintf(spelled[n], sizeof spelled[n], "--%s", longopts[i].name);
		names[n] = spelled[n];
		n++;
	}
	char word[64];
	snprintf(word, sizeof word, "%s", arg ? arg : "");
	char *eq = strchr(word, '=');
	if (eq)
		*eq = '\0';
	const char *hint = cli_suggest(word, names, n);
	if (hint)
		cli_error("%s: unknown option '%s' (did you mean '%s'?)", cmd, word, hint);
	else
		cli_error("%s: unknown option '%s'", cmd, word);
	if (usage)
		usage(stderr);
	return EXIT_USAGE;
}

const char *cli_suggest_backend(const char *name)
{
	const char *names[64];
	size_t n = 0;
	for (size_t i = 0; i < isotier__backend_count() && n < 64; i++)
		names[n++] = isotier__backend_at(i)->name;
	return cli_suggest(name, names, n);
}
