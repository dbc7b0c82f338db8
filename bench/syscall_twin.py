#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench/syscall_twin.py TRACE > SCRIPT - the probe's system calls, from `strace -f -qq -o TRACE`,
as a script for bench/syscall_twin.c: the floor a probe cannot go under (the same opens, reads,
directory listings, stats, readlinks, maps and writes, with no analysis between them).
Only the first process's calls are replayed; a clone becomes a fork that exits at once."""
import re
import sys

LINE = re.compile(r'^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+|0x[0-9a-f]+)')
STR = re.compile(r'"((?:[^"\\]|\\.)*)"')


def path(args):
    m = STR.search(args)
    return m.group(1).encode().decode('unicode_escape') if m else None


def flags(args):
    return 'D' if 'O_DIRECTORY' in args else 'R'


def main():
    ops, main_pid = [], None
    for line in open(sys.argv[1], errors='replace'):
        m = LINE.match(line)
        if not m:
            c = re.match(r'^(\d+)\s+(clone3?|vfork|fork)\(', line)
            if c and c.group(1) == (main_pid or c.group(1)):
                main_pid = c.group(1)
                ops.append('k')  # its end comes on a later, unfinished line
            continue
        pid, call, args, ret = m.group(1), m.group(2), m.group(3), m.group(4)
        main_pid = main_pid or pid
        if pid != main_pid:
            continue
        ret = int(ret, 0)
        first = args.split(',')[0].strip()
        if call == 'open':
            ops.append(f'o {ret} {flags(args)} {path(args)}')
        elif call == 'openat':
            d = -100 if first == 'AT_FDCWD' else int(first)
            ops.append(f'O {d} {ret} {flags(args)} {path(args)}')
        elif call in ('read', 'getdents64') and ret >= 0:
            n = int(args.rsplit(',', 1)[1])
            ops.append(f'{"r" if call == "read" else "g"} {first} {n}')
        elif call == 'close':
            ops.append(f'c {first}')
        elif call == 'fstat':
            ops.append(f'f {first}')
        elif call == 'fstatfs':
            ops.append(f'F {first}')
        elif call in ('readlink', 'access', 'stat', 'lstat'):
            ops.append(f'{ {"readlink": "l", "access": "a", "stat": "s", "lstat": "s"}[call]} {path(args)}')
        elif call in ('readlinkat', 'statx', 'newfstatat') and path(args):
            d = -100 if first == 'AT_FDCWD' else int(first)
            ops.append(f'{"L" if call == "readlinkat" else "x"} {d} {path(args)}')
        elif call in ('getppid', 'getpid', 'uname'):
            ops.append({'getppid': 'p', 'getpid': 'P', 'uname': 'u'}[call])
        elif call == 'mmap' and 'MAP_ANONYMOUS' in args:
            ops.append(f'm {int(args.split(",")[1])}')
        elif call == 'munmap':
            ops.append(f'M {int(args.split(",")[1])}')
        elif call in ('write', 'writev') and ret >= 0:
            ops.append(f'w {ret}')
        elif call in ('clone', 'clone3', 'fork', 'vfork'):
            ops.append('k')
        elif call == 'statx' and '""' in args:
            ops.append(f'f {first}')  # AT_EMPTY_PATH on a descriptor: what fstat asks
        elif call == 'syslog':
            ops.append(f'y {first.split()[0]}')
    print('\n'.join(o for o in ops if 'None' not in o))


main()
