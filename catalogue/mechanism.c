/* mechanism.c - the mechanism table (mechanism.h; FORMAT.md's order). */
#include "mechanism.h"

#include <string.h>

const isotier_mechanism isotier_mechanisms[] = {
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
const size_t isotier_mechanism_count = sizeof isotier_mechanisms / sizeof *isotier_mechanisms;

const isotier_mechanism *isotier_mechanism_find(const char *name)
{
	for (size_t i = 0; name && i < isotier_mechanism_count; i++)
		if (!strcmp(name, isotier_mechanisms[i].name))
			return &isotier_mechanisms[i];
	return NULL;
}
