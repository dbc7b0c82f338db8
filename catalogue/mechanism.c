/* SPDX-License-Identifier: Apache-2.0 */
/* mechanism.c - the mechanism table (mechanism.h; FORMAT.md's order). */
#include "mechanism.h"

#include <string.h>

const isotier_mechanism isotier__mechanisms[] = {
    {"firecracker", ISOTIER_MICROVM, "firecracker"},
    {"cloud-hypervisor", ISOTIER_MICROVM, "cloud-hypervisor"},
    {"qemu", ISOTIER_MICROVM, "qemu"},
    {"kata", ISOTIER_MICROVM, NULL},
    {"libkrun", ISOTIER_MICROVM, NULL},
    {"vm", ISOTIER_MICROVM, NULL},
    {"gvisor", ISOTIER_GVISOR, NULL},
    {"runc", ISOTIER_CONTAINER, NULL},
    {"crun", ISOTIER_CONTAINER, NULL},
    {"bubblewrap", ISOTIER_CONTAINER, NULL},
    {"systemd-nspawn", ISOTIER_CONTAINER, NULL},
    {"container", ISOTIER_CONTAINER, NULL},
    {"webassembly", ISOTIER_UNKNOWN, NULL},
    {"v8-isolate", ISOTIER_UNKNOWN, NULL},
    {"unknown", ISOTIER_UNKNOWN, NULL},
};
const size_t isotier__mechanism_count = sizeof isotier__mechanisms / sizeof *isotier__mechanisms;

const isotier_mechanism *isotier__mechanism_find(const char *name)
{
	for (size_t i = 0; name && i < isotier__mechanism_count; i++)
		if (!strcmp(name, isotier__mechanisms[i].name))
			return &isotier__mechanisms[i];
	return NULL;
}
