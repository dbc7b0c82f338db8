/* SPDX-License-Identifier: Apache-2.0 */
/*
 * syscall_twin.c - the probe's floor: a static program making the probe's
 * system calls and nothing else (bench/probe.sh). It replays a script written
 * by bench/syscall_twin.py from an strace of the probe, one call per line:
 *   o FD FLAGS PATH / O DIRFD FD FLAGS PATH   open / openat (FD: the traced
 *       descriptor, -1 when the open failed; FLAGS R or D for a directory)
 *   r FD N / g FD N   read / getdents64 of up to N bytes
 *   c FD / f FD / F FD   close / fstat / fstatfs
 *   l PATH / L DIRFD PATH / a PATH / s PATH / x DIRFD PATH
 *       readlink / readlinkat / access / stat / statx
 *   p / P / u   getppid / getpid / uname
 *   m N / M N   anonymous mmap / munmap of N bytes
 *   w N   a write of N bytes (to /dev/null)
 *   y TYPE   syslog(2) (klogctl) of that type into a 128 KiB buffer
 *   k   fork, the child exits at once, wait for it
 * Traced descriptors map to live ones; a call the trace did not know fails
 * the same way here, which is the point: same calls, same outcomes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_FD   1024
#define MAX_MAPS 4096

static int fds[MAX_FD];
static char buf[1 << 17];

static int live(long traced)
{
	if (traced == -100)
		return AT_FDCWD;
	return traced >= 0 && traced < MAX_FD ? fds[traced] : -1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: syscall_twin SCRIPT\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "re");
	if (!f)
		return 1;
	for (int i = 0; i < MAX_FD; i++)
		fds[i] = -1;
	void *maps[MAX_MAPS];
	size_t map_len[MAX_MAPS];
	int n_maps = 0;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	char line[8192], p[8192], fl[8];
	long a, b;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		struct stat st;
		struct statfs sf;
		switch (line[0]) {
		case 'o':
		case 'O': {
			long dir = -100;
			int ok =
			    line[0] == 'o'
			        ? sscanf(line, "o %ld %7s %8191[^\n]", &a, fl, p) == 3
			        : sscanf(line, "O %ld %ld %7s %8191[^\n]", &dir, &a, fl, p) == 4;
			if (!ok)
				break;
			int fd = openat(live(dir), p,
			                O_RDONLY | O_CLOEXEC |
			                    (fl[0] == 'D' ? O_DIRECTORY : O_NONBLOCK));
			if (a >= 0 && a < MAX_FD)
				fds[a] = fd;
			else if (fd >= 0)
				close(fd);
			break;
		}
		case 'r':
			if (sscanf(line, "r %ld %ld", &a, &b) == 2)
				(void)!read(live(a), buf,
				            (size_t)b < sizeof buf ? (size_t)b : sizeof buf);
			break;
		case 'g':
			if (sscanf(line, "g %ld %ld", &a, &b) == 2)
				syscall(SYS_getdents64, live(a), buf,
				        (size_t)b < sizeof buf ? (size_t)b : sizeof buf);
			break;
		case 'c':
			if (sscanf(line, "c %ld", &a) == 1 && a >= 0 && a < MAX_FD && fds[a] >= 0) {
				close(fds[a]);
				fds[a] = -1;
			}
			break;
		case 'f':
			if (sscanf(line, "f %ld", &a) == 1)
				fstat(live(a), &st);
			break;
		case 'F':
			if (sscanf(line, "F %ld", &a) == 1)
				fstatfs(live(a), &sf);
			break;
		case 'l': (void)!readlink(line + 2, buf, 512); break;
		case 'L':
			if (sscanf(line, "L %ld %8191[^\n]", &a, p) == 2)
				(void)!readlinkat(live(a), p, buf, 512);
			break;
		case 'a': access(line + 2, F_OK); break;
		case 's': stat(line + 2, &st); break;
		case 'x':
			if (sscanf(line, "x %ld %8191[^\n]", &a, p) == 2)
				fstatat(live(a), p, &st, 0);
			break;
		case 'p': getppid(); break;
		case 'P': getpid(); break;
		case 'u': {
			struct utsname u;
			uname(&u);
			break;
		}
		case 'm':
			if (sscanf(line, "m %ld", &a) == 1 && n_maps < MAX_MAPS) {
				void *m = mmap(NULL, (size_t)a, PROT_READ | PROT_WRITE,
				               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				if (m != MAP_FAILED) {
					maps[n_maps] = m;
					map_len[n_maps++] = (size_t)a;
				}
			}
			break;
		case 'M':
			if (sscanf(line, "M %ld", &a) == 1)
				for (int i = n_maps - 1; i >= 0; i--)
					if (map_len[i] == (size_t)a) {
						munmap(maps[i], map_len[i]);
						maps[i] = maps[--n_maps];
						map_len[i] = map_len[n_maps];
						break;
					}
			break;
		case 'w':
			if (sscanf(line, "w %ld", &a) == 1)
				(void)!write(null, buf,
				             (size_t)a < sizeof buf ? (size_t)a : sizeof buf);
			break;
		case 'y':
			if (sscanf(line, "y %ld", &a) == 1)
				klogctl((int)a, buf, a == 10 ? 0 : (int)sizeof buf);
			break;
		case 'k': {
			pid_t pid = fork();
			if (pid == 0)
				_exit(0);
			if (pid > 0)
				waitpid(pid, NULL, 0);
			break;
		}
		}
	}
	fclose(f);
	return 0;
}
