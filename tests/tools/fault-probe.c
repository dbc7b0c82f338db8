/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fault-probe.c - stand-ins for isotier-probe that misbehave, for the verify
 * fault tests. Static (musl), libc only, so every backend can run it as
 * /.isotier/isotier-probe. The mode is compiled in (-DFAULT_MODE="hang"):
 * sandboxes clear the environment and fix argv[0]; ISOTIER_FAULT_MODE
 * overrides it when run directly.
 *
 *   hang     forks a child; both name themselves "isotier-fhang" (the marker
 *            the tests look for afterwards) and sleep forever, ignoring SIGTERM
 *   garbage  prints bytes that are not JSON
 *   huge     prints 100 MiB: a JSON document that never ends
 *   none     prints a well-formed document observing no boundary (NONE)
 *   evil     fills the capture directory (argv: --capture DIR) with what a
 *            hostile sandbox would: a symlink to /etc/shadow, a fifo, an 8 MiB
 *            file, 40 nested directories, a 250-byte name; then prints as none
 *   dupkeys  prints a document with "layers" twice: first-wins reads a
 *            container, last-wins a microVM (issue 17, finding 2)
 *   badutf8  prints no JSON and, on stderr, a line that starts with U+202E
 *            and whose 140th byte is inside another, then invalid bytes;
 *            exits 3 (findings 3 and 6)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FAULT_MODE
#define FAULT_MODE "garbage"
#endif

static void write_all(const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(1, buf, len);
		if (n <= 0)
			exit(1);
		buf += n;
		len -= (size_t)n;
	}
}

static void hang(void)
{
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, "isotier-fhang", 0, 0, 0);
	if (fork() == 0)
		prctl(PR_SET_NAME, "isotier-fhang", 0, 0, 0);
	write_all("{\"schema\":", 10);
	for (;;)
		pause();
}

static void garbage(void)
{
	static const char junk[] = "\x1b[31mnot json\x1b[0m {\"schema\": \x01\x02\xff\xfe ]]] \n";
	for (int i = 0; i < 100; i++)
		write_all(junk, sizeof junk - 1);
}

static void huge(void)
{
	static char buf[1 << 16];
	memset(buf, 'A', sizeof buf);
	write_all("{\"schema\":\"isotier.probe/1\",\"pad\":\"", 35);
	for (size_t total = 0; total < 100u * 1024 * 1024; total += sizeof buf)
		write_all(buf, sizeof buf);
}

/* The verifier's nonce (--nonce), echoed like the real probe does: a stand-in
 * that answers this run, so what is tested is what it says, not a replay. */
static const char *nonce;

static void none(void)
{
	static const char doc[] =
	    "{\"schema\":\"isotier.probe/"
	    "1\",\"probe_version\":\"fault\",\"observed_tier\":\"NONE\","
	    "\"confidence\":\"high\",\"layers\":[],\"signals\":[],\"conflicts\":[],"
	    "\"kernel\":{},\"duration_us\":1";
	write_all(doc, sizeof doc - 1);
	if (nonce && strlen(nonce) <= 64 && strspn(nonce, "0123456789abcdef") == strlen(nonce)) {
		write_all(",\"run\":{\"nonce\":\"", 17);
		write_all(nonce, strlen(nonce));
		write_all("\"}", 2);
	}
	write_all("}\n", 2);
}

/* The value after option opt in argv, or NULL. */
static const char *arg_after(int argc, char **argv, const char *opt)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], opt))
			return argv[i + 1];
	return NULL;
}

static void dupkeys(void)
{
	static const char doc[] =
	    "{\"schema\":\"isotier.probe/1\",\"probe_version\":\"fault\",\"observed_tier\":"
	    "\"CONTAINER\",\"confidence\":\"high\",\"layers\":[{\"kind\":\"container\","
	    "\"vendor\":\"bubblewrap\",\"signals\":[]}],\"signals\":[],\"conflicts\":[],"
	    "\"kernel\":{},\"duration_us\":1,\"layers\":[{\"kind\":\"vm\",\"vendor\":"
	    "\"firecracker\",\"signals\":[]}]}\n";
	write_all(doc, sizeof doc - 1);
}

static void badutf8(void)
{
	char line[200];
	memcpy(line, "\xe2\x80\xae", 3); /* U+202E RIGHT-TO-LEFT OVERRIDE, whole */
	memset(line + 3, 'e', 135);
	memcpy(line + 138, "\xe2\x80\xae \xff\xfe\xc3(\n", 10); /* and across byte 140 */
	if (write(2, line, 148) != 148)
		exit(1);
	write_all("not json\n", 9);
	exit(3);
}

static void evil(const char *dir)
{
	if (!dir || chdir(dir) != 0)
		exit(3);
	if (symlink("/etc/shadow", "shadow") != 0 || mkfifo("fifo", 0644) != 0)
		exit(4);
	int fd = open("big", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 8 << 20) != 0)
		exit(5);
	close(fd);
	char name[251];
	memset(name, 'n', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		exit(6);
	close(fd);
	fd = open("ok.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "fine\n", 5) != 5)
		exit(7);
	close(fd);
	for (int i = 0; i < 40; i++)
		if (mkdir("d", 0755) != 0 || chdir("d") != 0)
			exit(8);
	none();
}

int main(int argc, char **argv)
{
	const char *mode = getenv("ISOTIER_FAULT_MODE");
	if (!mode || !*mode)
		mode = FAULT_MODE;
	nonce = arg_after(argc, argv, "--nonce");
	if (!strcmp(mode, "hang"))
		hang();
	else if (!strcmp(mode, "garbage"))
		garbage();
	else if (!strcmp(mode, "huge"))
		huge();
	else if (!strcmp(mode, "none"))
		none();
	else if (!strcmp(mode, "dupkeys"))
		dupkeys();
	else if (!strcmp(mode, "badutf8"))
		badutf8();
	else if (!strcmp(mode, "evil"))
		evil(arg_after(argc, argv, "--capture"));
	else
		return 2;
	return 0;
}
