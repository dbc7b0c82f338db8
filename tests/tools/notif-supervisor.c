/* SPDX-License-Identifier: Apache-2.0 */
/*
 * notif-supervisor.c - a lie from inside the sandbox (tests/integration/lies_local.sh):
 * runs argv[1..] under a seccomp user-notification supervisor that answers sysinfo(2) with a
 * constant task count (no host pattern can show in it) and statfs(2)/fstatfs(2) with procfs'
 * magic (bind-mounted identity files pass as procfs'), with the command's argv[0] "hidden" (the
 * host's process table sees no probe). A sandbox imitating a kernel of its own: isotier must
 * not take it for one. With --ptrace first, the same answers come from a ptrace(2) tracer
 * (PTRACE_GET_SYSCALL_INFO: it rewrites sysinfo's result at the call's exit) instead.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static int send_fd(int sock, int fd)
{
	char c = 'f';
	struct iovec io = {&c, 1};
	char ctl[CMSG_SPACE(sizeof(int))] = {0};
	struct msghdr m = {
	    .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);
	h->cmsg_level = SOL_SOCKET, h->cmsg_type = SCM_RIGHTS, h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof fd);
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char c;
	struct iovec io = {&c, 1};
	char ctl[CMSG_SPACE(sizeof(int))] = {0};
	struct msghdr m = {
	    .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof fd);
	return fd;
}

/* The --ptrace interposer: the command traced (threads too), sysinfo's answer rewritten as the
 * call returns. */
static int run_traced(char **argv)
{
	pid_t child = fork();
	if (child == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(71);
		raise(SIGSTOP);
		char *path = argv[0];
		argv[0] = "hidden";
		execv(path, argv);
		_exit(127);
	}
	int st;
	if (waitpid(child, &st, 0) != child)
		return 73;
	ptrace(PTRACE_SETOPTIONS, child, 0,
	       PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE);
	ptrace(PTRACE_SYSCALL, child, 0, 0);
	for (;;) {
		pid_t t = waitpid(-1, &st, __WALL);
		if (t < 0)
			return 74;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (t == child)
				return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
			continue;
		}
		int sig = 0;
		if (WSTOPSIG(st) == (SIGTRAP | 0x80)) {
			struct __ptrace_syscall_info info;
			if (ptrace(PTRACE_GET_SYSCALL_INFO, t, sizeof info, &info) > 0 &&
			    info.op == PTRACE_SYSCALL_INFO_ENTRY && info.entry.nr == SYS_sysinfo) {
				/* Remember where the answer goes: the exit stop of this thread
				 * follows. */
				unsigned long long dst = info.entry.args[0];
				ptrace(PTRACE_SYSCALL, t, 0, 0);
				if (waitpid(t, &st, __WALL) == t && WIFSTOPPED(st)) {
					struct sysinfo si;
					sysinfo(&si);
					si.procs = 42;
					si.uptime = 12345;
					struct iovec local = {&si, sizeof si},
					             remote = {(void *)dst, sizeof si};
					process_vm_writev(t, &local, 1, &remote, 1, 0);
				}
			}
		} else if (WSTOPSIG(st) != SIGTRAP && WSTOPSIG(st) != SIGSTOP) {
			sig = WSTOPSIG(st);
		}
		ptrace(PTRACE_SYSCALL, t, 0, sig);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 64;
	if (!strcmp(argv[1], "--ptrace"))
		return argc < 3 ? 64 : run_traced(argv + 2);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 70;
	pid_t child = fork();
	if (child == 0) {
		struct sock_filter f[] = {
		    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sysinfo, 3, 0),
		    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_statfs, 2, 0),
		    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fstatfs, 1, 0),
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		};
		struct sock_fprog p = {sizeof f / sizeof *f, f};
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(71);
		int l = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		                     SECCOMP_FILTER_FLAG_NEW_LISTENER, &p);
		if (l < 0 || send_fd(sv[1], l))
			_exit(72);
		close(l);
		char *path = argv[1];
		argv[1] = "hidden";
		execv(path, argv + 1);
		_exit(127);
	}
	int l = recv_fd(sv[0]);
	if (l < 0)
		return 73;
	struct seccomp_notif_sizes sz;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz))
		return 74;
	struct seccomp_notif *req = calloc(1, sz.seccomp_notif);
	struct seccomp_notif_resp *resp = calloc(1, sz.seccomp_notif_resp);
	for (;;) {
		struct pollfd pf = {.fd = l, .events = POLLIN};
		int st;
		if (waitpid(child, &st, WNOHANG) == child)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (poll(&pf, 1, 50) <= 0 || (pf.revents & (POLLHUP | POLLERR)))
			continue;
		memset(req, 0, sz.seccomp_notif);
		if (ioctl(l, SECCOMP_IOCTL_NOTIF_RECV, req))
			continue;
		memset(resp, 0, sz.seccomp_notif_resp);
		resp->id = req->id;
		struct iovec local, remote;
		if (req->data.nr == SYS_sysinfo) {
			struct sysinfo si;
			sysinfo(&si);
			si.procs = 42; /* a count no host pattern moves */
			si.uptime = 12345;
			local = (struct iovec){&si, sizeof si};
			remote = (struct iovec){(void *)req->data.args[0], sizeof si};
		} else {
			struct statfs sf = {.f_type = 0x9fa0}; /* PROC_SUPER_MAGIC */
			local = (struct iovec){&sf, sizeof sf};
			remote = (struct iovec){(void *)req->data.args[1], sizeof sf};
		}
		if (process_vm_writev(req->pid, &local, 1, &remote, 1, 0) < 0)
			resp->error = -EFAULT;
		ioctl(l, SECCOMP_IOCTL_NOTIF_SEND, resp);
	}
}
